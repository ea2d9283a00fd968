// Diagnostics after edits: changes are gathered for a short while, then the changed files and
// everything that imports them are analysed once, and each file whose diagnostics differ from
// what the client last got is published again.
//
// The delay is short (DEBOUNCE_MS): the budget from a keystroke to squiggles is 50 ms, and
// re-checking a 5,000-line file after a one-character edit takes 8-15 ms on this project's
// machines, so waiting longer would spend the budget on nothing. What the delay buys is one
// analysis for a burst of changes that arrive together (a multi-cursor edit, an undo of many
// steps, a replace-all). MAX_DELAY_MS bounds the wait while changes keep coming, so diagnostics
// never fall far behind a stream of edits. A request in between that needs diagnostics or
// importers (references, rename, code actions) analyses at once (workspace.ts) and the
// publication that follows reuses that analysis; typing features (completion, hover, tokens)
// answer from a model without the checks and leave the check to the publisher.
import type { Diagnostic } from 'vscode-languageserver';
import type { DocumentContext } from './context.js';
import type { AnalysisEntry, ServerWorkspace } from './workspace.js';

export const DEBOUNCE_MS = 10;
export const MAX_DELAY_MS = 100;
/**
 * The longest the publisher's check runs before letting waiting requests in (workspace.ts
 * analysisInSlices): a completion that arrives during a check waits at most about this long.
 */
export const CHECK_SLICE_MS = 4;

export interface PublisherOptions {
  /** The front end's diagnostics of one file as LSP diagnostics (features/diagnostics.ts). */
  convert: (doc: DocumentContext) => Diagnostic[];
  /** Sends them to the client (handlers/session.ts). */
  publish: (uri: string, version: number | undefined, diagnostics: Diagnostic[]) => void;
  onError: (err: unknown) => void;
  /** Files analysed again because a file they import changed (their tokens and hints may differ). */
  onImportersChanged?: (paths: string[]) => void;
  debounceMs?: number;
  maxDelayMs?: number;
}

export class DiagnosticsPublisher {
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private firstPendingAt = 0;
  /** What the client holds for each file, as JSON, to skip publishing the same again. */
  private readonly published = new Map<string, string>();

  constructor(private readonly workspace: ServerWorkspace, private readonly options: PublisherOptions) {}

  /** Files whose text changed (or appeared): they and their importers are checked soon. */
  schedule(paths: Iterable<string>): void {
    const now = performance.now();
    if (this.pending.size === 0) this.firstPendingAt = now;
    for (const p of paths) this.pending.add(p);
    if (this.pending.size === 0) return;
    clearTimeout(this.timer);
    const debounce = this.options.debounceMs ?? DEBOUNCE_MS;
    const latest = this.firstPendingAt + (this.options.maxDelayMs ?? MAX_DELAY_MS);
    this.timer = setTimeout(() => this.flushAfterPendingInput(), Math.max(0, Math.min(debounce, latest - now)));
  }

  /**
   * Lets messages that have already arrived go first: the check takes tens of milliseconds on a
   * large file, and a completion read just after the timer fired would wait for all of it. The
   * connection hands each message on with setImmediate, so two turns of the check phase let
   * the input already read (and the requests it holds) run before the analysis starts.
   */
  private flushAfterPendingInput(): void {
    setImmediate(() => setImmediate(() => (this.timer !== undefined || this.pending.size > 0 ? void this.flushInSlices() : undefined)));
  }

  /** Analyses and publishes what is pending now, at once (start-up, tests). */
  flush(): void {
    try {
      const live = this.takePending();
      if (live.size > 0) this.publishEntry(this.workspace.analysisFor([...live]), live);
    } catch (err) {
      this.options.onError(err); // from a timer: nothing above would catch it
    }
  }

  /** Flushes whose checks run in slices, one after another: each takes what is pending when it starts. */
  private flushes: Promise<void> = Promise.resolve();

  private flushInSlices(): Promise<void> {
    this.flushes = this.flushes.then(() => this.flushPendingInSlices());
    return this.flushes;
  }

  private async flushPendingInSlices(): Promise<void> {
    try {
      const live = this.takePending();
      if (live.size === 0) return;
      const entry = await this.workspace.analysisInSlices([...live], CHECK_SLICE_MS);
      // A file changed during the check, so it checked texts that are gone: check again soon
      // (the change scheduled its own files; these were changed before it and are not yet published).
      if (!entry) this.schedule(live);
      else this.publishEntry(entry, live);
    } catch (err) {
      this.options.onError(err);
    }
  }

  /** The pending files that are still known; files that left are cleared, and their importers checked. */
  private takePending(): Set<string> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const changed = [...this.pending];
    this.pending.clear();
    // Files that left the workspace (deleted, or closed and not on disk): clear what they showed.
    // Their importers now miss an import: those are checked like edited files.
    const live = new Set<string>();
    for (const p of changed) {
      if (this.workspace.isKnown(p)) {
        live.add(p);
      } else {
        this.clear(p);
        for (const importer of this.workspace.importersOf(p)) live.add(importer);
      }
    }
    return live;
  }

  private publishEntry(entry: AnalysisEntry, live: ReadonlySet<string>): void {
    for (const unit of entry.analysis.units) {
      if (!this.workspace.isKnown(unit.path)) continue; // imported from outside the workspace: no watcher tells us when to clear it
      this.publishFile(entry, unit.path, live.has(unit.path));
    }
    const importers = [...entry.roots].filter((p) => !live.has(p));
    if (importers.length > 0) this.options.onImportersChanged?.(importers);
  }

  /**
   * A file's diagnostics if they changed. An edited file is published even when they did not,
   * so that a client waiting for the diagnostics of its new version gets them.
   */
  private publishFile(entry: AnalysisEntry, filePath: string, always: boolean): void {
    try {
      const doc = this.workspace.contextIn(entry, filePath);
      if (!doc) return;
      const diagnostics = this.options.convert(doc.context);
      const key = JSON.stringify(diagnostics);
      if (!always && (this.published.get(filePath) ?? '[]') === key) return; // never published counts as none
      this.published.set(filePath, key);
      this.options.publish(doc.context.uri, doc.version, diagnostics);
    } catch (err) {
      this.options.onError(err);
    }
  }

  /** Removes a file's diagnostics from the client. */
  clear(filePath: string): void {
    if (!this.published.has(filePath)) return;
    this.published.delete(filePath);
    this.options.publish(this.workspace.uriOf(filePath), undefined, []);
  }

  /** Publishes every known file's diagnostics from one analysis of them all (start-up). */
  publishAll(): void {
    let entry: AnalysisEntry;
    try {
      entry = this.workspace.analyseAll();
    } catch (err) {
      this.options.onError(err);
      return;
    }
    for (const unit of entry.analysis.units) if (this.workspace.isKnown(unit.path)) this.publishFile(entry, unit.path, false);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.pending.clear();
  }
}
