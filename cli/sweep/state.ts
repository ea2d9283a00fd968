// A sweep's own directory, <runs>/<sweep name>/: sweep.json says which file and sweep it runs,
// how many members it has, and which run directory each started member trains in, so that
// `rlx sweep --resume` and the editor find the members without guessing from folder names.
// Members' states are not copied here: each run directory's status.json is the one source.
// logs/member-<K>.log keeps each member's stderr.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeDirs, writeJsonAtomic } from '../../runtime/atomic-files.js';
import { readRunJson, runFileExists } from '../../runtime/run/run-files.js';
import { UserError } from '../files.js';

export const SWEEP_STATE_FORMAT = 1;
/** sweep.json lists one run directory per member: a million members fit in far less. */
const SWEEP_STATE_LIMIT = { what: "sweep's state (sweep.json)", maxBytes: 256 * 2 ** 20 } as const;

export interface SweepState {
  rlx_sweep: typeof SWEEP_STATE_FORMAT;
  /** The .rlx file, absolute. */
  file: string;
  sweep: string;
  experiment: string;
  /** Members (combinations x seeds), as `rlx train --list-members` numbers them. */
  count: number;
  /** SweepMembers.numbering(): a resume refuses a sweep whose lists changed since. */
  numbering: string;
  backend: string;
  /** ISO time the sweep was first started. */
  started: string;
  /** backend: slurm: the job array's id (its script and log files are in slurm/ beside sweep.json). */
  slurm_job?: string;
  /** Member index -> its run directory, relative to the runs folder (the sweep directory's parent). */
  members: Record<string, string>;
}

export function sweepDir(runsRoot: string, sweep: string): string {
  return path.join(runsRoot, sweep.replace(/[^A-Za-z0-9_.-]/g, '_'));
}

export function stateFile(dir: string): string {
  return path.join(dir, 'sweep.json');
}

export function memberLog(dir: string, index: number): string {
  return path.join(dir, 'logs', `member-${index}.log`);
}

/** The state of the sweep in `dir`, or undefined when none was started there. */
export function readSweepState(dir: string): SweepState | undefined {
  const file = stateFile(dir);
  if (!runFileExists(file)) return undefined;
  let state: SweepState;
  try {
    // As a run folder's files: a regular file inside the sweep's folder, of bounded size (a cloned runs/ may hold a FIFO).
    state = readRunJson(dir, file, SWEEP_STATE_LIMIT) as SweepState;
  } catch (err) {
    throw new UserError(`${(err as Error).message}; remove it to start the sweep again`);
  }
  if (state?.rlx_sweep !== SWEEP_STATE_FORMAT || typeof state.members !== 'object') {
    throw new UserError(`${file} is not a sweep state rlx can read (rlx_sweep ${String(state?.rlx_sweep)}); remove it to start the sweep again`);
  }
  return state;
}

export function writeSweepState(dir: string, state: SweepState): void {
  makeDirs(dir);
  writeJsonAtomic(stateFile(dir), state);
}

/** A member's run directory, absolute, from the state's relative record. */
export function memberRunDir(dir: string, state: SweepState, index: number): string | undefined {
  const rel = state.members[String(index)];
  return rel === undefined ? undefined : path.resolve(path.dirname(dir), rel);
}
