// How the editor runs the trainer: the same `rlx train` as the command line, as a child process.
// Pure functions (no VS Code API), so the rules are unit-tested.
import * as path from 'node:path';

/** Which program to start, and the arguments that come before `train ...`. */
export interface TrainerCommand {
  command: string;
  /** Arguments before the rlx ones (the script, when the trainer is a .js file run with Node). */
  prefix: string[];
  /** For messages: the file the user would check or the setting names. */
  display: string;
  /** The trainer is this extension's own bundle (not the user's setting). */
  bundled: boolean;
}

/**
 * `setting` is `rlx.trainer.path`: empty for the bundled CLI run with the editor's own Node
 * (`nodePath`, with ELECTRON_RUN_AS_NODE where that is Electron); a .js/.mjs/.cjs file run with
 * that Node; else an executable. A relative path is resolved against `folder`.
 */
export function trainerCommand(setting: string, bundledCli: string, nodePath: string, folder: string | undefined): TrainerCommand {
  const value = setting.trim();
  if (value === '') return { command: nodePath, prefix: [bundledCli], display: bundledCli, bundled: true };
  const resolved = looksLikePath(value) ? path.resolve(folder ?? process.cwd(), value) : value;
  if (/\.[cm]?js$/i.test(resolved)) return { command: nodePath, prefix: [resolved], display: resolved, bundled: false };
  return { command: resolved, prefix: [], display: resolved, bundled: false };
}

/** `rlx` alone is looked up on PATH; `./bin/rlx` or `tools/rlx.js` are files. */
function looksLikePath(value: string): boolean {
  return value.includes('/') || value.includes('\\') || /\.[cm]?js$/i.test(value);
}

/** The file a trainer command needs to exist, if it names one (a bare `rlx` is found on PATH). */
export function trainerFile(trainer: TrainerCommand): string | undefined {
  if (trainer.prefix.length > 0) return trainer.prefix[0];
  return path.isAbsolute(trainer.command) ? trainer.command : undefined;
}

export type Device = 'auto' | 'cpu' | 'cuda' | 'webgpu';

export type TrainRequest =
  /** An experiment: its seeds one after another (or the one `seed`). */
  | { kind: 'train'; file: string; experiment: string; seed?: number }
  /** `rlx sweep FILE --sweep NAME`: the members as parallel processes, as on the command line. */
  /** (`experiment`: the one it sweeps over, whose folder the members' runs go into.) */
  | { kind: 'sweep'; file: string; sweep: string; experiment: string }
  /** `rlx train --resume RUN_DIR`: continues a stopped or crashed run from its last checkpoint. */
  | { kind: 'resume'; runDir: string };

/**
 * The rlx arguments for a request; `out` is the runs folder. `auto` leaves the spec's own device.
 * `tensorboard` (rlx.train.tensorboard) adds `--tensorboard`; a resume keeps the run's own choice.
 */
export function trainArgs(request: TrainRequest, out: string, device: Device, tensorboard = false): string[] {
  const deviceArgs = [...(device === 'auto' ? [] : ['--device', device]), ...(tensorboard && request.kind !== 'resume' ? ['--tensorboard'] : [])];
  if (request.kind === 'resume') return ['train', '--resume', request.runDir, ...deviceArgs];
  if (request.kind === 'sweep') return ['sweep', request.file, '--sweep', request.sweep, '--out', out, ...deviceArgs];
  const seedArgs = request.seed === undefined ? [] : ['--seed', String(request.seed)];
  return ['train', request.file, '--experiment', request.experiment, ...seedArgs, '--out', out, ...deviceArgs];
}

/** A short name for a request, for the status bar, notifications and the output channel. */
export function requestLabel(request: TrainRequest): string {
  if (request.kind === 'resume') return `${path.basename(path.dirname(request.runDir))}/${path.basename(request.runDir)}`;
  if (request.kind === 'sweep') return `sweep ${request.sweep}`;
  return request.seed === undefined ? request.experiment : `${request.experiment} seed ${request.seed}`;
}

/** The seed "Train with seed…" offers: the smallest whole number from 1 that no run of the experiment used. */
export function nextUnusedSeed(used: Iterable<number | undefined>): number {
  const taken = new Set(used);
  let seed = 1;
  while (taken.has(seed)) seed++;
  return seed;
}
