// Reading a file of a run directory. A run folder may come from a stranger (a cloned
// repository's runs/, a colleague's archive): any file in it may be a symbolic link to /dev/zero
// or to a file elsewhere on the machine, a FIFO, or far larger than a trainer writes. Readers
// here take only regular files of bounded size (shared/input-files.ts refuses the rest before
// a byte is read) and only files inside the run folder: rlx never writes a symbolic link into
// one, so a path that resolves outside it is refused rather than followed. docs/run-directory.md
// lists the limits.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputFileError, openInputFile, readInputFile, readInputJson, readInputText, type InputFileOptions } from '../../shared/input-files.js';
import { fileErrorReason } from '../../shared/file-errors.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/**
 * The largest file of each kind rlx reads from a run folder: far above what a trainer writes
 * (a status.json is a few KiB, a plan tens of KiB), far below what would stall the editor.
 */
export const RUN_FILE_LIMITS = {
  status: { what: "run's status (status.json)", maxBytes: 4 * MiB },
  plan: { what: "run's plan (plan.json)", maxBytes: 16 * MiB },
  lock: { what: "run's lock (run.lock)", maxBytes: 64 * KiB },
  /** events.jsonl is read in pieces (EventTail), never whole; this bounds the file itself. */
  events: { what: "run's events (events.jsonl)", maxBytes: 1 * GiB },
  rollout: { what: 'recorded episode', maxBytes: 64 * MiB },
  /** A recorded step's PNG (runtime/run/frames.ts): at most 320 x 320 RGBA, a few hundred KiB unpacked. */
  frame: { what: 'recorded frame', maxBytes: 4 * MiB },
  /** JSON text: at most what one JavaScript string holds. */
  checkpointState: { what: 'checkpoint state', maxBytes: 512 * MiB },
  /** An ONNX file: protobuf's own limit. */
  policy: { what: 'policy', maxBytes: 2 * GiB },
  /** Where a python("./x.py:Class") env's file was when the run trained (run-dir.ts RUN_BUNDLE.pythonEnv). */
  pythonEnv: { what: "run's record of its Python env file (source/python-env.json)", maxBytes: 64 * KiB },
  /** The record of the run's copies of its data files (data-files.ts). */
  dataManifest: { what: "run's record of its data files (data/files.json)", maxBytes: 4 * MiB },
  /** A copy of a data file a setting names: as large as rlx reads the original (MAX_DATASET_BYTES). */
  dataFile: { what: "run's copy of a data file", maxBytes: 512 * MiB },
  /** A checkpoint's side file (a replay buffer): the largest a Node.js Buffer holds. */
  checkpointData: { what: "checkpoint's side file", maxBytes: 4 * GiB - 1 },
} as const satisfies Record<string, InputFileOptions>;

/** The longest line of events.jsonl read: a longer one is not an event a trainer wrote (skipped, counted). */
export const MAX_EVENT_LINE_BYTES = 16 * MiB;

/**
 * The path `file` (inside run folder `runDir`) resolves to, refused when it leaves the run
 * folder through a symbolic link; an InputFileError also for a file that is not there.
 */
export function runFilePath(runDir: string, file: string, what: string): string {
  let real: string;
  let root: string;
  try {
    root = fs.realpathSync.native(runDir);
    real = fs.realpathSync.native(file);
  } catch (err) {
    throw new InputFileError(`cannot read the ${what} ${file}: ${fileErrorReason(err)}`, { cause: err });
  }
  if (real !== root && !real.startsWith(root + path.sep)) {
    throw new InputFileError(`the ${what} ${file} is a symbolic link out of the run folder; rlx reads only the run's own files (delete the link)`);
  }
  return real;
}

/** `file` of run folder `runDir`, opened when it is a regular file inside it of at most `limit.maxBytes` (close the descriptor). */
export function openRunFile(runDir: string, file: string, limit: InputFileOptions): { fd: number; size: number } {
  return openInputFile(runFilePath(runDir, file, limit.what), limit);
}

/** The bytes of `file` of run folder `runDir` (see openRunFile). */
export function readRunFile(runDir: string, file: string, limit: InputFileOptions): Buffer {
  return readInputFile(runFilePath(runDir, file, limit.what), limit);
}

/** The text of `file` of run folder `runDir` (see openRunFile). */
export function readRunText(runDir: string, file: string, limit: InputFileOptions): string {
  return readInputText(runFilePath(runDir, file, limit.what), limit);
}

/** The JSON value in `file` of run folder `runDir` (see openRunFile); JSON cut short says how that happens and what to do. */
export function readRunJson(runDir: string, file: string, limit: InputFileOptions): unknown {
  try {
    return readInputJson(runFilePath(runDir, file, limit.what), limit);
  } catch (err) {
    if (err instanceof InputFileError && /is not valid JSON/.test(err.message)) {
      throw new InputFileError(`${err.message} (cut short by a full disk or a copy? restore it from a copy of the run)`);
    }
    throw err;
  }
}

/** Whether `file` is there at all (a link counts, even a broken one): lstat, which follows nothing. */
export function runFileExists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
