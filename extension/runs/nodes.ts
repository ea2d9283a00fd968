// The Runs view's items, and how a command finds the run it was invoked on (a view item, a run
// directory path, or a Uri).
import * as vscode from 'vscode';
import type { RunInfo } from '../../runtime/run/reader.js';
import type { TrainJob } from '../training/job.js';

export type RunsNode =
  /** A runs folder, shown as a level only when the workspace has several. */
  | { kind: 'root'; root: string }
  | { kind: 'experiment'; root: string; name: string; runs: RunInfo[] }
  /** The runs of one sweep of an experiment (plan.json's sweep.name), under the experiment. */
  | { kind: 'sweep'; root: string; experiment: string; name: string; runs: RunInfo[] }
  | { kind: 'run'; info: RunInfo }
  /** A run waiting for a free slot: it has no directory yet. */
  | { kind: 'job'; job: TrainJob; experiment: string; root: string };

export function isRunsNode(value: unknown): value is RunsNode {
  return typeof value === 'object' && value !== null && 'kind' in value && ['root', 'experiment', 'sweep', 'run', 'job'].includes((value as RunsNode).kind);
}

/** The run directory a command argument names, if any. */
export function runDirOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg instanceof vscode.Uri) return arg.fsPath;
  if (isRunsNode(arg) && arg.kind === 'run') return arg.info.dir;
  return undefined;
}
