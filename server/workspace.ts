// The server's view of the user's files, as the handlers and the publisher ask for it. Three
// parts answer: the file index (which files exist, open documents over the disk, paths and
// URIs: file-index.ts), the import graph (who imports whom: import-graph.ts) and the analysis
// cache (the latest analysis of each file and when it may be reused: analysis-cache.ts). This
// class tells each of them what changed.
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Analysis, PythonEnvFactsProvider, SourceUnit } from '../dsl/index.js';
import { AnalysisCache, type AnalysedDocument, type AnalysisEntry } from './analysis-cache.js';
import { DEFAULT_SETTINGS, type ServerSettings } from './context.js';
import { FileIndex } from './file-index.js';
import { ImportGraph } from './import-graph.js';

export type { AnalysedDocument, AnalysisEntry } from './analysis-cache.js';

export type FileChangeKind = 'created' | 'changed' | 'deleted';

export class ServerWorkspace {
  settings: ServerSettings = DEFAULT_SETTINGS;
  private readonly index = new FileIndex();
  private readonly graph = new ImportGraph({ unit: (p) => this.index.files.unit(p), isKnown: (p) => this.index.isKnown(p) });
  private readonly cache: AnalysisCache;

  /** `pythonEnvs`: what probes learnt of Python envs (python-envs.ts); none by default. */
  constructor(pythonEnvs?: PythonEnvFactsProvider) {
    this.cache = new AnalysisCache(this.index, this.graph, () => this.settings, pythonEnvs);
  }

  // --- Which files exist -------------------------------------------------------------------

  setFolders(folders: string[]): void {
    this.index.setFolders(folders);
  }

  get workspaceFolders(): readonly string[] {
    return this.index.workspaceFolders;
  }

  /** Indexes the .rlx files under the folders, replacing the previous index: what is in it now, and what left it. */
  async scan(): Promise<{ found: string[]; removed: string[] }> {
    const { found, added, removed } = await this.index.scan();
    removed.forEach((p) => this.forgetFile(p));
    added.forEach((p) => this.graph.markDirty(p));
    return { found, removed };
  }

  /** Files the server reports on: indexed ones and open ones. */
  knownFiles(): string[] {
    return this.index.knownFiles();
  }

  isKnown(filePath: string): boolean {
    return this.index.isKnown(filePath);
  }

  /** Creations, changes and deletions reported by the client's file watcher. Returns the paths to re-check. */
  filesChanged(changes: { uri: string; kind: FileChangeKind }[]): string[] {
    this.cache.textsChanged();
    const touched: string[] = [];
    for (const { uri, kind } of changes) {
      const p = this.pathOf(uri);
      this.index.forgetDisk(p);
      if (!p.endsWith('.rlx')) {
        // An env module: the files whose analysis read it are checked again.
        touched.push(...this.cache.readersOfModule(p));
        continue;
      }
      if (kind === 'deleted') this.forgetFile(p);
      // A file outside the index (a run folder's copy, say) may still be imported by a known file.
      else this.index.add(p);
      this.graph.markDirty(p);
      touched.push(p);
    }
    return touched;
  }

  /** The files whose analysis asked about a Python env (`key`: pythonEnvKey), or about any. */
  readersOfPythonEnv(key?: string): string[] {
    return this.cache.readersOfPythonEnv(key);
  }

  private forgetFile(p: string): void {
    this.index.remove(p);
    this.cache.forget(p);
    this.graph.markDirty(p);
  }

  // --- Open documents -----------------------------------------------------------------------

  /** A document was opened or edited: its text now wins over the disk. Returns the path. */
  documentChanged(doc: TextDocument): string {
    const p = this.pathOf(doc.uri);
    this.cache.textsChanged();
    this.index.setDocument(p, doc);
    this.graph.markDirty(p); // parsed when next needed: a burst of keystrokes parses once
    return p;
  }

  /** A document was closed: the disk's text applies again. Returns the path. */
  documentClosed(doc: TextDocument): string {
    const p = this.pathOf(doc.uri);
    this.cache.textsChanged();
    this.index.closeDocument(p);
    this.graph.markDirty(p);
    this.index.indexIfOnDisk(p);
    if (!this.index.isIndexed(p)) this.cache.forgetLatest(p);
    this.cache.forgetModel(p);
    return p;
  }

  /** A document was saved: its file on disk changed too (the overlay still wins while open). */
  documentSaved(doc: TextDocument): void {
    const p = this.pathOf(doc.uri);
    this.index.forgetDisk(p);
    this.index.indexIfOnDisk(p);
  }

  /** The length of a file over the size limit, in characters; undefined for files within it. */
  tooLarge(filePath: string): number | undefined {
    return this.index.tooLarge(filePath);
  }

  isOpen(filePath: string): boolean {
    return this.index.isOpen(filePath);
  }

  document(uri: string): TextDocument | undefined {
    return this.index.documentAt(this.pathOf(uri));
  }

  /** The open document's version; undefined when it is not open. */
  versionOf(uri: string): number | undefined {
    return this.document(uri)?.version;
  }

  // --- Paths and URIs -----------------------------------------------------------------------

  /** The path the front end knows a document by (file-index.ts). */
  pathOf(uri: string): string {
    return this.index.pathOf(uri);
  }

  /** The URI to report a path under: the client's own for open documents. */
  uriOf(filePath: string): string {
    return this.index.uriOf(filePath);
  }

  /** For each open document whose client URI differs from the one features derive from its path. */
  clientUris(): Map<string, string> {
    return this.index.clientUris();
  }

  // --- Imports and analyses -----------------------------------------------------------------

  /** Files that import `p`, directly or through others (not `p` itself). */
  importersOf(p: string): string[] {
    return this.graph.importersOf(p);
  }

  /** The latest analysis valid for all of `paths`, analysing again only if needed. */
  analysisFor(paths: string[]): AnalysisEntry {
    return this.cache.analysisFor(paths);
  }

  /** analysisFor() in slices of about `sliceMs` ms, for the publisher; null when a text changed meanwhile (analysis-cache.ts). */
  analysisInSlices(paths: string[], sliceMs: number): Promise<AnalysisEntry | null> {
    return this.cache.analysisInSlices(paths, sliceMs);
  }

  /** Analyses every known file at once (at start-up): one pass, one entry for all. */
  analyseAll(): AnalysisEntry {
    return this.cache.analyseAll();
  }

  /** A feature's view of one file of an analysis; undefined when the analysis lacks the file. */
  contextIn(entry: AnalysisEntry, filePath: string): AnalysedDocument | undefined {
    return this.cache.contextIn(entry, filePath);
  }

  /** The document at `uri` with a current model of its names, without waiting for the checks (analysis-cache.ts). */
  modelContext(uri: string): AnalysedDocument | undefined {
    return this.cache.modelContext(this.pathOf(uri));
  }

  /** The document at `uri` with a current analysis; undefined when the file cannot be read. */
  context(uri: string): AnalysedDocument | undefined {
    const p = this.pathOf(uri);
    return this.contextIn(this.analysisFor([p]), p);
  }

  /** Every known file's declarations, for workspace symbols: a model without checks. */
  workspaceModel(): Analysis {
    return this.cache.workspaceModel();
  }

  /** The unit for a path if it can be read (test and bench helpers use it). */
  unit(filePath: string): SourceUnit | undefined {
    this.graph.refresh();
    return this.index.files.unit(filePath);
  }
}
