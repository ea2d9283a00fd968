// Checkpoints: checkpoints/policy-<step>.onnx (the standalone policy) and
// checkpoints/state-<step>.json (everything `rlx train --resume` needs to continue: the
// algorithm's parameters, optimiser moments, counters and random streams, and the trainer's
// own counters). policy-final.onnx is written at the end of a run.
//
// Float32Array values are stored exactly, as base64 of their bytes ({"f32": "..."}), so a
// resumed run continues from bit-identical parameters and optimiser state.
//
// Bulk data (a replay buffer: tens of MB) goes to a raw binary side file instead,
// checkpoints/state-<step>.bin, written atomically before the state file, which records its
// size and sha256; base64 in JSON would triple the time and double the size. An object of the
// algorithm state marked `droppable: true` is bulk: its typed arrays (Float32Array, Int32Array,
// Uint8Array) are written to the side file as {"bin": [type, byteOffset, length]}. Only the
// newest checkpoint keeps its side file (older ones are removed after a save): loading an
// older state gives null in place of each droppable object (a resumed DQN then starts from an
// empty buffer, as SB3 does without save_replay_buffer).
//
// A state file also records the sha256 of its algorithm state, the size and sha256 of its
// policy file and the sha256 of the plan: a resume takes the newest checkpoint that is intact
// (a file cut short or edited is passed over, and the trainer says so) and refuses a plan.json
// edited since. States written before these fields existed are taken as they are.
//
// A run folder may come from elsewhere: every file here is read through run-files.ts (a
// regular file inside the checkpoints folder, under its size limit), and `rlx eval` checks
// the policy it runs against the size and sha256 its state file recorded (verifiedPolicy).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic, writeJsonAtomic } from '../atomic-files.js';
import { InputFileError, type InputFileOptions } from '../../shared/input-files.js';
import { readRunFile, readRunJson, RUN_FILE_LIMITS, runFileExists } from './run-files.js';

export const STATE_FORMAT = 'rlx-trainer-state';
export const STATE_VERSION = 1;

export interface TrainerCounters {
  /** Seconds of training before this checkpoint (summed over resumes). */
  elapsed: number;
  nextEval: number;
  evalCount: number;
  nextCheckpoint: number;
  /** The last 20 training episodes, for train.* metrics. */
  recentReturns: number[];
  recentLengths: number[];
  recentSuccesses: number[];
  /** The latest eval's metrics (for stop conditions over eval.*). */
  latestEval: Record<string, number>;
  /** Environment steps between checkpoints and between sampled rollouts, kept across resumes (absent in older states). */
  checkpointEvery?: number;
  rolloutEvery?: number;
  /** Index of the stage being trained, and the run steps taken before it began (absent in older states: 0). */
  stage?: number;
  stageStart?: number;
  /** The value a `curriculum { }` has reached (absent without one). */
  curriculum?: number;
}

export interface CheckpointState {
  format: typeof STATE_FORMAT;
  version: number;
  step: number;
  seed: number;
  algorithm: string;
  trainer: TrainerCounters;
  /** The algorithm's own state, with typed arrays encoded. */
  algorithmState: unknown;
  /** sha256 of the plan's JSON (planHash()). */
  plan?: string;
}

/** What saveCheckpoint() adds to a state file, to tell a damaged checkpoint from an intact one. */
interface Integrity {
  /** sha256 of the encoded algorithm state's JSON. */
  algorithmSha256: string;
  policy: RecordedFile;
  /** The side file of the droppable objects' arrays, when there are any. */
  binary?: RecordedFile;
}

/** A file beside a state file, as the state recorded it. */
interface RecordedFile {
  file: string;
  bytes: number;
  sha256: string;
}

type BulkArray = Float32Array | Int32Array | Uint8Array;
const BULK_TYPES = { f32: Float32Array, i32: Int32Array, u8: Uint8Array } as const;
type BulkType = keyof typeof BULK_TYPES;
const bulkType = (a: BulkArray): BulkType => (a instanceof Float32Array ? 'f32' : a instanceof Int32Array ? 'i32' : 'u8');

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** The sha256 a checkpoint records of the plan it was written for. */
export function planHash(plan: unknown): string {
  return sha256(JSON.stringify(plan));
}

/**
 * Writes policy-<step>.<extension> and state-<step>.json (and policy-final.<extension> when
 * final); returns their paths. The policy file is an ONNX model, or for a pretrained model the
 * JSON record of what its weights (in the state) belong to.
 */
export function saveCheckpoint(dir: string, state: CheckpointState, policy: Uint8Array, final: boolean, extension = 'onnx'): { policy: string; state: string } {
  const policyFile = path.join(dir, `policy-${state.step}.${extension}`);
  const stateFile = path.join(dir, `state-${state.step}.json`);
  writeFileAtomic(policyFile, policy);
  const bulk: BulkArray[] = [];
  const algorithmState = encode(state.algorithmState, bulk);
  const integrity: Integrity = {
    algorithmSha256: sha256(JSON.stringify(algorithmState)),
    policy: { file: path.basename(policyFile), bytes: policy.byteLength, sha256: sha256(policy) },
  };
  const binaryFile = path.join(dir, `state-${state.step}.bin`);
  if (bulk.length > 0) integrity.binary = { file: path.basename(binaryFile), ...writeArraysAtomic(binaryFile, bulk) };
  // The state goes last: a state file is only ever found next to its policy and side file.
  writeJsonAtomic(stateFile, { ...state, ...integrity, algorithmState });
  if (final) writeFileAtomic(path.join(dir, `policy-final.${extension}`), policy);
  // Only the newest checkpoint keeps its bulk data.
  for (const name of fs.readdirSync(dir)) {
    if (/^state-\d+\.bin$/.test(name) && name !== path.basename(binaryFile)) fs.rmSync(path.join(dir, name), { force: true });
  }
  return { policy: policyFile, state: stateFile };
}

/** Writes the arrays' bytes one after another into `file` (atomically); returns their size and sha256. */
function writeArraysAtomic(file: string, arrays: readonly BulkArray[]): { bytes: number; sha256: string } {
  const views = arrays.map((a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  const hash = createHash('sha256');
  for (const view of views) hash.update(view);
  writeFileAtomic(file, views);
  return { bytes: views.reduce((sum, v) => sum + v.length, 0), sha256: hash.digest('hex') };
}

/** The state files in `dir`, newest first. */
function stateFiles(dir: string): { step: number; file: string }[] {
  const found: { step: number; file: string }[] = [];
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    const match = /^state-(\d+)\.json$/.exec(name);
    if (match) found.push({ step: Number(match[1]), file: path.join(dir, name) });
  }
  return found.sort((a, b) => b.step - a.step);
}

/** The state file with the highest step in `dir`, if any. */
export function latestCheckpoint(dir: string): { step: number; file: string } | undefined {
  return stateFiles(dir)[0];
}

/** The newest checkpoint in `dir` that loads intact, and the newer ones passed over with why. */
export function latestIntactCheckpoint(dir: string): { state: CheckpointState; file: string; damaged: { file: string; reason: string }[] } | { state: undefined; damaged: { file: string; reason: string }[] } {
  const damaged: { file: string; reason: string }[] = [];
  for (const { file } of stateFiles(dir)) {
    try {
      return { state: loadCheckpoint(file), file, damaged };
    } catch (err) {
      damaged.push({ file, reason: (err as Error).message });
    }
  }
  return { state: undefined, damaged };
}

/** Reads and checks a state file: its format, checksum, weights' sizes and policy file. */
export function loadCheckpoint(file: string): CheckpointState {
  const raw = readRunJson(path.dirname(file), file, RUN_FILE_LIMITS.checkpointState) as CheckpointState & Partial<Integrity>;
  if (raw === null || typeof raw !== 'object') throw new Error(`${file} is not an rlx trainer state (not a JSON object)`);
  if (raw.format !== STATE_FORMAT || raw.version !== STATE_VERSION) {
    throw new Error(`${file} is not an rlx trainer state of version ${STATE_VERSION} (format ${String(raw.format)}, version ${String(raw.version)})`);
  }
  if (raw.algorithmSha256 !== undefined && sha256(JSON.stringify(raw.algorithmState)) !== raw.algorithmSha256) {
    throw new Error(`${file} is damaged: its algorithm state does not match the checksum written with it`);
  }
  if (raw.policy !== undefined) checkPolicyFile(path.join(path.dirname(file), raw.policy.file), raw.policy, file);
  const binary = raw.binary !== undefined ? readBinaryFile(path.join(path.dirname(file), raw.binary.file), raw.binary, file) : null;
  const { algorithmSha256: _sum, policy: _policy, binary: _binary, ...state } = raw;
  const algorithmState = decode(state.algorithmState, binary);
  checkShapes(algorithmState, file, '');
  return { ...state, algorithmState };
}

/** The side file's bytes, or null where it was removed (an older checkpoint: its droppable objects load as null). */
function readBinaryFile(binaryFile: string, expected: RecordedFile, stateFile: string): Buffer | null {
  if (!runFileExists(binaryFile)) return null;
  return readRecordedFile(binaryFile, expected, 'side file', RUN_FILE_LIMITS.checkpointData, stateFile);
}

function checkPolicyFile(policyFile: string, expected: RecordedFile, stateFile: string): void {
  if (!runFileExists(policyFile)) throw new Error(`${stateFile} is damaged: its policy file ${expected.file} is missing`);
  readRecordedFile(policyFile, expected, 'policy file', RUN_FILE_LIMITS.policy, stateFile);
}

/** A file state file `stateFile` recorded (its `what`), read within `limit`: the bytes written, or the checkpoint is damaged. */
function readRecordedFile(file: string, expected: RecordedFile, what: string, limit: InputFileOptions, stateFile: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readRunFile(path.dirname(stateFile), file, limit);
  } catch (err) {
    throw new Error(`${stateFile} is damaged: ${(err as Error).message}`);
  }
  const mismatch = mismatchOf(bytes, expected);
  if (mismatch) throw new Error(`${stateFile} is damaged: its ${what} ${expected.file} ${mismatch}`);
  return bytes;
}

/** How `bytes` differ from those recorded (`has 12 bytes, not 16`), or undefined where they are the same. */
function mismatchOf(bytes: Buffer, expected: RecordedFile): string | undefined {
  if (bytes.length === expected.bytes && sha256(bytes) === expected.sha256) return undefined;
  return `has ${bytes.length} bytes${bytes.length === expected.bytes ? ' that differ from those written' : `, not ${expected.bytes}`}`;
}

/** A policy whose bytes differ from those its run recorded: edited, damaged, or not the run's. */
export class PolicyMismatchError extends InputFileError {
  override name = 'PolicyMismatchError';
}

/**
 * The bytes of policy file `file` of checkpoints folder `dir` (`policy-<step>.onnx` or
 * `policy-final.onnx`), checked against the size and sha256 that its state file recorded: the
 * state of the same step, or for the final policy the newest state (written with it, from the
 * same bytes). `recorded` is false where the run recorded none (runs of earlier versions, a
 * file of another name); a mismatch is a PolicyMismatchError naming the file.
 */
export function verifiedPolicy(dir: string, file: string): { bytes: Buffer; recorded: boolean } {
  const bytes = readRunFile(dir, file, RUN_FILE_LIMITS.policy);
  const name = path.basename(file);
  const step = /^policy-(\d+)\.onnx$/.exec(name)?.[1];
  const stateFile = step !== undefined ? path.join(dir, `state-${step}.json`) : name === 'policy-final.onnx' ? latestCheckpoint(dir)?.file : undefined;
  const expected = stateFile !== undefined && runFileExists(stateFile) ? recordedPolicy(dir, stateFile) : undefined;
  if (expected === undefined) return { bytes, recorded: false };
  const mismatch = mismatchOf(bytes, expected);
  if (mismatch) {
    throw new PolicyMismatchError(
      `the policy ${file} is not the one the run saved: it ${mismatch} ` +
        `(sha256 recorded in ${path.basename(stateFile!)}); it was edited or damaged since: evaluate another checkpoint (--checkpoint FILE), or train again`,
    );
  }
  return { bytes, recorded: true };
}

/** What a state file recorded of its policy; undefined for a state of an earlier version. */
function recordedPolicy(dir: string, stateFile: string): Integrity['policy'] | undefined {
  const state = readRunJson(dir, stateFile, RUN_FILE_LIMITS.checkpointState) as Partial<Integrity> | null;
  const policy = state !== null && typeof state === 'object' ? state.policy : undefined;
  return policy !== undefined && typeof policy.sha256 === 'string' && typeof policy.bytes === 'number' ? policy : undefined;
}

/** Every `{ shape, data }` in the state holds as many numbers as its shape says (weights cut short otherwise load silently). */
function checkShapes(value: unknown, file: string, where: string): void {
  if (Array.isArray(value)) return value.forEach((v, i) => checkShapes(v, file, `${where}[${i}]`));
  if (value === null || typeof value !== 'object' || value instanceof Float32Array) return;
  const { shape, data } = value as { shape?: unknown; data?: unknown };
  if (Array.isArray(shape) && data instanceof Float32Array) {
    const size = shape.reduce((a: number, b) => a * (b as number), 1);
    if (data.length !== size) throw new Error(`${file} is damaged: ${where} holds ${data.length} numbers, but its shape [${shape.join(', ')}] needs ${size}`);
  }
  for (const [key, v] of Object.entries(value)) checkShapes(v, file, where ? `${where}.${key}` : key);
}

/** Typed arrays as base64 ({"f32": ...}); inside a droppable object, as places in the side file (`bulk` collects them). */
function encode(value: unknown, bulk: BulkArray[], offset = { bytes: 0 }, inBulk = false): unknown {
  if (value instanceof Float32Array || value instanceof Int32Array || value instanceof Uint8Array) {
    if (!inBulk) return { [bulkType(value)]: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
    // Aligned to 4 bytes so that every array can be viewed in place when it is read.
    const pad = (4 - (offset.bytes % 4)) % 4;
    if (pad > 0) bulk.push(new Uint8Array(pad));
    const at = offset.bytes + pad;
    bulk.push(value);
    offset.bytes = at + value.byteLength;
    return { bin: [bulkType(value), at, value.length] };
  }
  if (Array.isArray(value)) return value.map((v) => encode(v, bulk, offset, inBulk));
  if (value !== null && typeof value === 'object') {
    const droppable = inBulk || (value as { droppable?: unknown }).droppable === true;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encode(v, bulk, offset, droppable)]));
  }
  return value;
}

function decode(value: unknown, binary: Buffer | null): unknown {
  if (Array.isArray(value)) return value.map((v) => decode(v, binary));
  if (value !== null && typeof value === 'object') {
    if ((value as { droppable?: unknown }).droppable === true && binary === null) return null;
    const entries = Object.entries(value);
    if (entries.length === 1 && entries[0][0] in BULK_TYPES && typeof entries[0][1] === 'string') {
      const bytes = Buffer.from(entries[0][1], 'base64');
      return new BULK_TYPES[entries[0][0] as BulkType](bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    }
    if (entries.length === 1 && entries[0][0] === 'bin' && Array.isArray(entries[0][1]) && binary !== null) {
      const [type, at, length] = entries[0][1] as [BulkType, number, number];
      const Type = BULK_TYPES[type];
      // A copy: the file's buffer is dropped, and the learner owns its arrays.
      return new Type(binary.buffer.slice(binary.byteOffset + at, binary.byteOffset + at + length * Type.BYTES_PER_ELEMENT) as ArrayBuffer);
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, decode(v, binary)]));
  }
  return value;
}
