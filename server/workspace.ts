// The server's view of the user's files: open editors as overlays over the disk, an index of the
// .rlx files under the workspace folders, who imports whom, and the latest analysis of each file.
//
// An analysis of file F needs F's imports (to resolve names) and the files that import F,
// transitively (so references and renames see every use). Those importers are exactly the files
// whose diagnostics an edit of F can change. So one analysis with roots {F} + importers*(F)
// serves both: it is published after an edit and kept for every root's requests. A kept
// analysis stays valid while every unit it saw is still the current one for its path and no new
// importer appeared; otherwise the next request analyses again (parses are reused, so that costs
// the check only).
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { analyze, analyzeInSteps, CheckCache, Model, Workspace, type Analysis, type SourceUnit } from '../dsl/index.js';
import { readModelFolder } from '../dsl/semantics/model-folder.js';
import { DEFAULT_SETTINGS, linesOf, pathToUri, type DocumentContext, type ServerSettings } from './context.js';
import { DiskHost, findRlxFiles, isSkippedPath } from './disk.js';
import { isTooLarge, MAX_DIAGNOSTICS_PER_FILE, MAX_DOCUMENT_CHARS } from './limits.js';

/** A file's analysis and the document versions it saw (open files only). */
export interface AnalysisEntry {
  analysis: Analysis;
  /** The files analysed as roots: each has this entry as its latest. */
  roots: Set<string>;
  /** Version of each open document at the time of the analysis. */
  versions: Map<string, number>;
}

/** A document ready for a feature: its context, and the version the analysis saw (open files). */
export interface AnalysedDocument {
  context: DocumentContext;
  version: number | undefined;
  entry: AnalysisEntry;
}

export type FileChangeKind = 'created' | 'changed' | 'deleted';

export class ServerWorkspace {
  settings: ServerSettings = DEFAULT_SETTINGS;
  // A UTF-8 file of n bytes holds at least n / 3 UTF-16 code units (3 bytes at most per unit):
  // past three times the limit a file cannot be within it, so it is not read at all.
  private readonly disk = new DiskHost(3 * MAX_DOCUMENT_CHARS);
  private readonly files = new Workspace({ readFile: (p) => this.readWithinLimit(p), readDataFile: (p) => this.disk.readDataFile(p) });
  /** Files over the size limit (limits.ts), analysed as empty: their length in characters. */
  private readonly oversized = new Map<string, number>();
  /** A re-check replays the results of declarations an edit cannot have changed (dsl/check/reuse.ts). */
  private readonly checkOptions = { maxDiagnosticsPerFile: MAX_DIAGNOSTICS_PER_FILE, cache: new CheckCache() };
  private folders: string[] = [];
  /** .rlx files on disk under the workspace folders. */
  private readonly indexed = new Set<string>();
  /** Open documents by path (the client's URI is kept in the TextDocument). */
  private readonly open = new Map<string, TextDocument>();
  /** Paths whose text changed since their imports were last read (parsed lazily: see refresh). */
  private readonly dirty = new Set<string>();
  /** Resolved imports of every known file, as of its latest parse. */
  private readonly importsOf = new Map<string, string[]>();
  private graphGeneration = 0;
  private importersMemo: { generation: number; reverse: Map<string, string[]> } | undefined;
  private readonly latest = new Map<string, AnalysisEntry>();
  /** Models without checks (modelContext), by the file they were built for. */
  private readonly models = new Map<string, AnalysisEntry>();
  /** Counts changes of any text (edits, closes, watched files): a check that sees it move is of texts that are gone. */
  private textGeneration = 0;

  // --- Which files exist -------------------------------------------------------------------

  setFolders(folders: string[]): void {
    this.folders = folders.map((f) => path.resolve(f));
  }

  get workspaceFolders(): readonly string[] {
    return this.folders;
  }

  /** Indexes the .rlx files under the folders, replacing the previous index: what is in it now, and what left it. */
  async scan(): Promise<{ found: string[]; removed: string[] }> {
    const found = (await Promise.all(this.folders.map(findRlxFiles))).flat();
    const now = new Set(found);
    const removed = [...this.indexed].filter((p) => !now.has(p));
    removed.forEach((p) => this.forgetFile(p));
    for (const p of found) {
      if (!this.indexed.has(p)) {
        this.indexed.add(p);
        this.dirty.add(p);
      }
    }
    return { found, removed };
  }

  /** Files the server reports on: indexed ones and open ones. */
  knownFiles(): string[] {
    return [...new Set([...this.indexed, ...this.open.keys()])];
  }

  isKnown(filePath: string): boolean {
    return this.indexed.has(filePath) || this.open.has(filePath);
  }

  /** Creations, changes and deletions reported by the client's file watcher. Returns the paths to re-check. */
  filesChanged(changes: { uri: string; kind: FileChangeKind }[]): string[] {
    this.textGeneration++;
    const touched: string[] = [];
    for (const { uri, kind } of changes) {
      const p = this.pathOf(uri);
      if (!p.endsWith('.rlx')) {
        touched.push(...this.readersOfModule(p));
        continue;
      }
      this.disk.forget(p);
      if (kind === 'deleted') {
        this.forgetFile(p);
      } else if (!isSkippedPath(p, this.folders)) {
        this.indexed.add(p);
        this.dirty.add(p);
      } else {
        this.dirty.add(p); // outside the index, but perhaps imported by a known file
      }
      touched.push(p);
    }
    return touched;
  }

  /**
   * The files whose latest analysis read the env module at `p` (`module("./x.ts")`): an edit of
   * the module can change what they may say (its declared observation fields, say), so they are
   * checked again. The disk cache's stat check would see the change at the next request anyway;
   * this makes the diagnostics follow without one.
   */
  private readersOfModule(p: string): string[] {
    this.disk.forget(p);
    const readers = new Set<string>();
    for (const [root, entry] of this.latest) {
      if (entry.analysis.modules?.has(p)) readers.add(root);
    }
    return [...readers];
  }

  private forgetFile(p: string): void {
    this.indexed.delete(p);
    this.latest.delete(p);
    this.models.delete(p);
    this.dirty.add(p);
  }

  // --- Open documents -----------------------------------------------------------------------

  /** A document was opened or edited: its text now wins over the disk. Returns the path. */
  documentChanged(doc: TextDocument): string {
    const p = this.pathOf(doc.uri);
    this.textGeneration++;
    this.open.set(p, doc);
    this.files.setOverlay(p, this.withinLimit(p, doc.getText()));
    this.dirty.add(p); // parsed when next needed: a burst of keystrokes parses once
    return p;
  }

  /** A document was closed: the disk's text applies again. Returns the path. */
  documentClosed(doc: TextDocument): string {
    const p = this.pathOf(doc.uri);
    this.textGeneration++;
    this.open.delete(p);
    this.files.setOverlay(p, undefined);
    this.disk.forget(p); // it was probably just saved
    this.dirty.add(p);
    this.indexIfOnDisk(p);
    if (!this.indexed.has(p)) this.latest.delete(p);
    this.models.delete(p);
    return p;
  }

  /** A document was saved: its file on disk changed too (the overlay still wins while open). */
  documentSaved(doc: TextDocument): void {
    const p = this.pathOf(doc.uri);
    this.disk.forget(p);
    this.indexIfOnDisk(p);
  }

  /** A new file saved in a workspace folder joins the index without waiting for the watcher. */
  private indexIfOnDisk(p: string): void {
    if (p.endsWith('.rlx') && !isSkippedPath(p, this.folders) && this.disk.readFile(p) !== undefined) this.indexed.add(p);
  }

  /** The text to analyse for a file: itself, or nothing when it is over the size limit. */
  /** The disk's text of `p`, or '' for a file over the size limit (recorded for tooLarge()). */
  private readWithinLimit(p: string): string | undefined {
    const text = this.disk.readFile(p);
    const unreadBytes = this.disk.tooLargeBytes(p);
    if (unreadBytes === undefined) return this.withinLimit(p, text);
    this.oversized.set(p, unreadBytes); // in bytes, not characters: near enough for the message
    return '';
  }

  private withinLimit(p: string, text: string | undefined): string | undefined {
    if (text === undefined || !isTooLarge(text)) {
      this.oversized.delete(p);
      return text;
    }
    this.oversized.set(p, text.length);
    return '';
  }

  /** The length of a file over the size limit, in characters; undefined for files within it. */
  tooLarge(filePath: string): number | undefined {
    return this.oversized.get(filePath);
  }

  isOpen(filePath: string): boolean {
    return this.open.has(filePath);
  }

  document(uri: string): TextDocument | undefined {
    return this.open.get(this.pathOf(uri));
  }

  /** The open document's version; undefined when it is not open. */
  versionOf(uri: string): number | undefined {
    return this.document(uri)?.version;
  }

  // --- Paths and URIs -----------------------------------------------------------------------

  /**
   * The path the front end knows a document by. Documents that are not files (an untitled
   * buffer) get a path of their own under a folder no real file has, so they never clash
   * with one; their imports resolve nowhere.
   */
  pathOf(uri: string): string {
    if (uri.startsWith('file:')) {
      try {
        return path.resolve(fileURLToPath(uri));
      } catch {
        // a malformed file URI: treated as a non-file document below
      }
    }
    return path.resolve(path.sep, '.rlx-documents', encodeURIComponent(uri));
  }

  /** The URI to report a path under: the client's own for open documents. */
  uriOf(filePath: string): string {
    return this.open.get(filePath)?.uri ?? pathToUri(filePath);
  }

  /** For each open document whose client URI differs from the one features derive from its path. */
  clientUris(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [p, doc] of this.open) {
      const derived = pathToUri(p);
      if (derived !== doc.uri) out.set(derived, doc.uri);
    }
    return out;
  }

  // --- Imports ------------------------------------------------------------------------------

  /**
   * Brings parses up to date for changed files and records their imports. Deferred to here,
   * so that edits arriving faster than requests cost one parse, not one each.
   */
  private refresh(): void {
    for (const p of this.dirty) {
      const unit = this.files.unit(p);
      const imports = unit ? unit.imports.flatMap((i) => (i.path ? [i.path] : [])) : undefined;
      const after = imports && this.isKnown(p) ? imports : undefined;
      if (!sameList(this.importsOf.get(p), after)) this.graphGeneration++;
      if (after) this.importsOf.set(p, after);
      else this.importsOf.delete(p);
    }
    this.dirty.clear();
  }

  /** Files that import `p`, directly or through others (not `p` itself). */
  importersOf(p: string): string[] {
    this.refresh();
    if (this.importersMemo?.generation !== this.graphGeneration) {
      const reverse = new Map<string, string[]>();
      for (const [from, imports] of this.importsOf) {
        for (const to of imports) {
          const list = reverse.get(to);
          if (list) list.push(from);
          else reverse.set(to, [from]);
        }
      }
      this.importersMemo = { generation: this.graphGeneration, reverse };
    }
    const reverse = this.importersMemo.reverse;
    const seen = new Set<string>([p]);
    const queue = [p];
    while (queue.length > 0) {
      for (const importer of reverse.get(queue.pop()!) ?? []) {
        if (!seen.has(importer)) {
          seen.add(importer);
          queue.push(importer);
        }
      }
    }
    seen.delete(p);
    return [...seen];
  }

  // --- Analyses -----------------------------------------------------------------------------

  /**
   * Whether every unit the analysis saw is still the current one. A file that changed on disk
   * without the client saying so is found here; it is marked so that its imports are read again.
   */
  private isCurrent(entry: AnalysisEntry): boolean {
    let current = true;
    for (const u of entry.analysis.units) {
      if (this.files.unit(u.path) !== u) {
        current = false;
        this.dirty.add(u.path);
      }
    }
    // An env module's text changed (Workspace.envModule reads it again only then).
    for (const [file, read] of entry.analysis.modules ?? []) {
      if (this.files.envModule(file) !== read) current = false;
    }
    // A model folder changed (model-folder.ts reads it again only then).
    for (const [dir, read] of entry.analysis.modelFolders ?? []) {
      if (readModelFolder(dir) !== read) current = false;
    }
    // A dataset changed on disk (the disk cache sees its mtime or size change; the parse is then new).
    for (const [file, read] of entry.analysis.datasets ?? []) {
      if (this.files.dataset(file) !== read) current = false;
    }
    return current;
  }

  /** The roots an analysis of these files needs: the files and all their importers. */
  private rootsFor(paths: string[]): string[] {
    const roots = new Set<string>();
    for (const p of paths) {
      roots.add(p);
      for (const importer of this.importersOf(p)) roots.add(importer);
    }
    return [...roots];
  }

  /**
   * Whether an analysis has every one of `paths`. A file unreadable when analysed (not yet
   * created) is missing from the analysis: once it can be read, the analysis no longer covers it.
   */
  private covers(entry: AnalysisEntry, paths: string[]): boolean {
    return paths.every((p) => entry.analysis.model.unitByPath(p) !== undefined || this.files.unit(p) === undefined);
  }

  /** The latest analysis valid for all of `paths`, analysing again only if needed. */
  analysisFor(paths: string[]): AnalysisEntry {
    return this.reusable(paths) ?? this.analyse(this.rootsFor(paths));
  }

  /**
   * analysisFor() for the publisher: the checks run in slices of about `sliceMs` milliseconds,
   * with a turn of the event loop between them, so that a completion or hover that arrives
   * during a long check (a 5,000-line file takes 20-60 ms) is answered between two slices
   * instead of after the whole check. Null when a file changed while it ran: that analysis is
   * of texts that are gone (the change has scheduled another).
   */
  async analysisInSlices(paths: string[], sliceMs: number): Promise<AnalysisEntry | null> {
    const reused = this.reusable(paths);
    if (reused) return reused;
    const roots = this.rootsFor(paths);
    const generation = this.textGeneration;
    const steps = analyzeInSteps(this.files, roots, this.checkOptions);
    let step = steps.next();
    while (!step.done) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      // A text changed since the check began: its result could not be published (isCurrent
      // below), so stop now rather than compete with the typing for the rest of the file.
      // Before, a check that a keystroke made stale ran to its end while completion waited.
      if (this.textGeneration !== generation) return null;
      const sliceEnd = performance.now() + sliceMs;
      do step = steps.next();
      while (!step.done && performance.now() < sliceEnd);
    }
    const entry: AnalysisEntry = { analysis: step.value, roots: new Set(roots), versions: new Map() };
    if (!this.isCurrent(entry)) return null;
    this.recordVersions(entry);
    for (const r of roots) this.latest.set(r, entry);
    return entry;
  }

  /** The latest analysis when it is still valid for all of `paths`. */
  private reusable(paths: string[]): AnalysisEntry | undefined {
    const candidates = new Set(paths.map((p) => this.latest.get(p)));
    const [entry] = candidates;
    if (candidates.size !== 1 || !entry || !this.isCurrent(entry) || !this.covers(entry, paths)) return undefined;
    const roots = this.rootsFor(paths);
    if (!roots.every((r) => entry.roots.has(r))) return undefined;
    // Same texts as when analysed: a document opened or edited back to that text since has a
    // newer version number for the very text the analysis saw.
    this.recordVersions(entry);
    return entry;
  }

  /** Analyses every known file at once (at start-up): one pass, one entry for all. */
  analyseAll(): AnalysisEntry {
    this.refresh();
    return this.analyse(this.knownFiles());
  }

  private analyse(roots: string[]): AnalysisEntry {
    const entry: AnalysisEntry = { analysis: analyze(this.files, roots, this.checkOptions), roots: new Set(roots), versions: new Map() };
    this.recordVersions(entry);
    for (const r of roots) this.latest.set(r, entry);
    return entry;
  }

  private recordVersions(entry: AnalysisEntry): void {
    for (const unit of entry.analysis.units) {
      const doc = this.open.get(unit.path);
      if (doc) entry.versions.set(unit.path, doc.version);
      else entry.versions.delete(unit.path);
    }
  }

  /** A feature's view of one file of an analysis; undefined when the analysis lacks the file. */
  contextIn(entry: AnalysisEntry, filePath: string): AnalysedDocument | undefined {
    const unit = entry.analysis.model.unitByPath(filePath);
    if (!unit) return undefined;
    return {
      context: { uri: this.uriOf(filePath), unit, analysis: entry.analysis, lines: linesOf(unit), settings: this.settings },
      version: entry.versions.get(filePath),
      entry,
    };
  }

  /**
   * The document at `uri` with a current model of its names, for the features that read no
   * diagnostics and no importers (completion, signature help, hover, tokens, inlay hints): the
   * latest analysis when it is still current, else a model of the file and its imports built
   * from their parses (incremental after an edit) without running the checks. Typing then never
   * waits for a re-check (61-77 ms in a 5,000-line file); the publisher runs that after its
   * debounce, and its analysis serves the next request.
   */
  modelContext(uri: string): AnalysedDocument | undefined {
    const p = this.pathOf(uri);
    this.refresh();
    const full = this.latest.get(p);
    if (full && this.isCurrent(full) && this.covers(full, [p])) {
      this.recordVersions(full);
      return this.contextIn(full, p);
    }
    let entry = this.models.get(p);
    if (!entry || !this.isCurrent(entry) || !this.covers(entry, [p])) {
      const units = this.files.closure([p]);
      entry = { analysis: this.uncheckedAnalysis(units), roots: new Set([p]), versions: new Map() };
      this.models.set(p, entry);
    }
    this.recordVersions(entry);
    return this.contextIn(entry, p);
  }

  /** The document at `uri` with a current analysis; undefined when the file cannot be read. */
  context(uri: string): AnalysedDocument | undefined {
    const p = this.pathOf(uri);
    return this.contextIn(this.analysisFor([p]), p);
  }

  /**
   * Every known file's declarations, for workspace symbols: a model without checks (building
   * one only indexes declarations by name), over parses that are mostly cached.
   */
  workspaceModel(): Analysis {
    this.refresh();
    const units = this.knownFiles().flatMap((p) => this.files.unit(p) ?? []);
    return this.uncheckedAnalysis(units);
  }

  /**
   * A model of these units without the checks. It reads user env modules as the checker does
   * (so `obs.` offers a module's fields right after an edit) and records what it read, so that
   * isCurrent finds a module whose text changed since.
   */
  private uncheckedAnalysis(units: SourceUnit[]): Analysis {
    const modules = new Map<string, ReturnType<Workspace['envModule']>>();
    const model = new Model(units, (file) => {
      const read = this.files.envModule(file);
      modules.set(file, read);
      return read;
    });
    return { model, units, diagnostics: new Map(), modules };
  }

  /** The unit for a path if it can be read (test and bench helpers use it). */
  unit(filePath: string): SourceUnit | undefined {
    this.refresh();
    return this.files.unit(filePath);
  }
}

function sameList(a: string[] | undefined, b: string[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
