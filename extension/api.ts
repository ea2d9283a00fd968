// What activate() returns: a small window onto the extension's state, for the editor tests (which
// run in the same extension host) and for other extensions. Read-only views, no internals.
import type { RunInfo } from '../runtime/run/reader.js';
import type { TrainJob } from './training/job.js';

export interface RlxApi {
  /** The language server's state: starting, running, stopped or failed. */
  serverState(): string;
  /** Resolves once the server runs (or rejects after `timeoutMs`). */
  whenServerRunning(timeoutMs?: number): Promise<void>;
  /** The status bar texts (codicons as `$(name)`), empty when hidden. */
  statusBar(): { server: string; training: string };
  /** The last notification about training that ended (its text and buttons), if any. */
  lastTrainingNotice(): { message: string; actions: string[] } | undefined;
  /** Runs queued or training in this window. */
  activeJobs(): readonly TrainJob[];
  /** The Runs view's items, as it would draw them: top level, and the children of each. */
  runsTree(): RunsTreeSnapshot[];
  /** Re-reads the runs folders now. */
  refreshRuns(): void;
  /** Every run the Runs view knows. */
  runs(): RunInfo[];
  /** The panels open now, by view type, with the run directories each shows and how many times its page has loaded. */
  panels(): { viewType: string; title: string; runDirs: string[]; pageLoads: number }[];
}

export interface RunsTreeSnapshot {
  label: string;
  description?: string;
  icon?: string;
  contextValue?: string;
  /** The item's element, as the view passes it to the commands of its context menu (opaque). */
  element: unknown;
  children: RunsTreeSnapshot[];
}
