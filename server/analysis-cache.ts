// The latest analysis of each file, and when it may be reused.
//
// An analysis of file F needs F's imports (to resolve names) and the files that import F,
// transitively (so references and renames see every use). Those importers are exactly the files
// whose diagnostics an edit of F can change. So one analysis with roots {F} + importers*(F)
// serves both: it is published after an edit and kept for every root's requests. A kept
// analysis stays valid while every unit it saw is still the current one for its path and no new
// importer appeared; otherwise the next request analyses again (parses are reused, so that costs
// the check only).
import { analyze, analyzeInSteps, CheckCache, Model, pythonEnvKey, type Analysis, type PythonEnvFactsProvider, type PythonEnvQuery, type PythonEnvRead, type SourceUnit, type Workspace } from '../dsl/index.js';
import { readModelFolder } from '../dsl/semantics/model-folder.js';
import { linesOf, type DocumentContext, type ServerSettings } from './context.js';
import type { FileIndex } from './file-index.js';
import type { ImportGraph } from './import-graph.js';
import { MAX_DIAGNOSTICS_PER_FILE } from './limits.js';

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


export class AnalysisCache {
  private readonly latest = new Map<string, AnalysisEntry>();
  /** Models without checks (modelContext), by the file they were built for. */
  private readonly models = new Map<string, AnalysisEntry>();
  /** Counts changes of any text (edits, closes, watched files): a check that sees it move is of texts that are gone. */
  private textGeneration = 0;
  /** A re-check replays the results of declarations an edit cannot have changed (dsl/check/reuse.ts). */
  private readonly checkOptions: { maxDiagnosticsPerFile: number; cache: CheckCache; pythonEnvs?: PythonEnvFactsProvider };

  constructor(
    private readonly index: FileIndex,
    private readonly graph: ImportGraph,
    private readonly settings: () => ServerSettings,
    /** What probes learnt of Python envs (python-envs.ts): nothing in an untrusted workspace. */
    private readonly pythonEnvs?: PythonEnvFactsProvider,
  ) {
    this.checkOptions = { maxDiagnosticsPerFile: MAX_DIAGNOSTICS_PER_FILE, cache: new CheckCache(), ...(pythonEnvs ? { pythonEnvs } : {}) };
  }

  private get files(): Workspace {
    return this.index.files;
  }

  /** Some text changed: a check running now is of texts that are gone. */
  textsChanged(): void {
    this.textGeneration++;
  }

  /** Drops the file's analyses (it went, or it is no longer known). */
  forget(filePath: string): void {
    this.latest.delete(filePath);
    this.models.delete(filePath);
  }

  /** Drops the file's latest analysis. */
  forgetLatest(filePath: string): void {
    this.latest.delete(filePath);
  }

  /** Drops the file's model without checks. */
  forgetModel(filePath: string): void {
    this.models.delete(filePath);
  }

  /**
   * The files whose latest analysis read the env module at `p` (`module("./x.ts")`): an edit of
   * the module can change what they may say (its declared observation fields, say), so they are
   * checked again. The disk cache's stat check would see the change at the next request anyway;
   * this makes the diagnostics follow without one.
   */
  readersOfModule(p: string): string[] {
    const readers = new Set<string>();
    for (const [root, entry] of this.latest) {
      if (entry.analysis.modules?.has(p)) readers.add(root);
    }
    return [...readers];
  }

  /**
   * The files whose latest analysis asked about the Python env `key` (pythonEnvKey), or about
   * any when `key` is undefined: a probe answered, or the workspace became trusted, so what
   * they may say changed.
   */
  readersOfPythonEnv(key?: string): string[] {
    const readers = new Set<string>();
    for (const [root, entry] of this.latest) {
      const asked = entry.analysis.pythonEnvs;
      if (asked && (key === undefined ? asked.size > 0 : asked.has(key))) readers.add(root);
    }
    return [...readers];
  }

  /**
   * Whether every unit the analysis saw is still the current one. A file that changed on disk
   * without the client saying so is found here; it is marked so that its imports are read again.
   */
  private isCurrent(entry: AnalysisEntry): boolean {
    let current = true;
    for (const u of entry.analysis.units) {
      if (this.files.unit(u.path) !== u) {
        current = false;
        this.graph.markDirty(u.path);
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
    // A probe answered, or probes became allowed (the provider keeps one object per answer).
    for (const { query, read } of entry.analysis.pythonEnvs?.values() ?? []) {
      if (this.pythonEnvs?.lookup(query) !== read) current = false;
    }
    return current;
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
    return this.reusable(paths) ?? this.analyse(this.graph.rootsFor(paths));
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
    const roots = this.graph.rootsFor(paths);
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
    const roots = this.graph.rootsFor(paths);
    if (!roots.every((r) => entry.roots.has(r))) return undefined;
    // Same texts as when analysed: a document opened or edited back to that text since has a
    // newer version number for the very text the analysis saw.
    this.recordVersions(entry);
    return entry;
  }

  /** Analyses every known file at once (at start-up): one pass, one entry for all. */
  analyseAll(): AnalysisEntry {
    this.graph.refresh();
    return this.analyse(this.index.knownFiles());
  }

  private analyse(roots: string[]): AnalysisEntry {
    const entry: AnalysisEntry = { analysis: analyze(this.files, roots, this.checkOptions), roots: new Set(roots), versions: new Map() };
    this.recordVersions(entry);
    for (const r of roots) this.latest.set(r, entry);
    return entry;
  }

  private recordVersions(entry: AnalysisEntry): void {
    for (const unit of entry.analysis.units) {
      const doc = this.index.documentAt(unit.path);
      if (doc) entry.versions.set(unit.path, doc.version);
      else entry.versions.delete(unit.path);
    }
  }

  /** A feature's view of one file of an analysis; undefined when the analysis lacks the file. */
  contextIn(entry: AnalysisEntry, filePath: string): AnalysedDocument | undefined {
    const unit = entry.analysis.model.unitByPath(filePath);
    if (!unit) return undefined;
    return {
      context: { uri: this.index.uriOf(filePath), unit, analysis: entry.analysis, lines: linesOf(unit), settings: this.settings() },
      version: entry.versions.get(filePath),
      entry,
    };
  }

  /**
   * The file at `p` with a current model of its names, for the features that read no
   * diagnostics and no importers (completion, signature help, hover, tokens, inlay hints): the
   * latest analysis when it is still current, else a model of the file and its imports built
   * from their parses (incremental after an edit) without running the checks. Typing then never
   * waits for a re-check (61-77 ms in a 5,000-line file); the publisher runs that after its
   * debounce, and its analysis serves the next request.
   */
  modelContext(p: string): AnalysedDocument | undefined {
    this.graph.refresh();
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

  /**
   * Every known file's declarations, for workspace symbols: a model without checks (building
   * one only indexes declarations by name), over parses that are mostly cached.
   */
  workspaceModel(): Analysis {
    this.graph.refresh();
    const units = this.index.knownFiles().flatMap((p) => this.files.unit(p) ?? []);
    return this.uncheckedAnalysis(units);
  }

  /**
   * A model of these units without the checks. It reads user env modules as the checker does
   * (so `obs.` offers a module's fields right after an edit) and records what it read, so that
   * isCurrent finds a module whose text changed since.
   */
  private uncheckedAnalysis(units: SourceUnit[]): Analysis {
    const modules = new Map<string, ReturnType<Workspace['envModule']>>();
    const pythonEnvs = new Map<string, { query: PythonEnvQuery; read: PythonEnvRead }>();
    const readPythonEnv = (query: PythonEnvQuery) => {
      const read = this.pythonEnvs?.lookup(query);
      pythonEnvs.set(pythonEnvKey(query), { query, read });
      return read;
    };
    const model = new Model(units, (file) => {
      const read = this.files.envModule(file);
      modules.set(file, read);
      return read;
    }, undefined, undefined, undefined, readPythonEnv);
    return { model, units, diagnostics: new Map(), modules, pythonEnvs };
  }
}
