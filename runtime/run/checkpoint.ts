// Checkpoints: checkpoints/policy-<step>.onnx (the standalone policy) and
// checkpoints/state-<step>.json (everything `rlx train --resume` needs to continue: the
// algorithm's parameters, optimiser moments, counters and random streams, and the trainer's
// own counters). policy-final.onnx is written at the end of a run.
//
// Float32Array values are stored exactly, as base64 of their bytes ({"f32": "..."}), so a
// resumed run continues from bit-identical parameters and optimiser state.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readJson, writeFileAtomic, writeJsonAtomic } from '../atomic-files.js';

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
}

/** Writes policy-<step>.onnx and state-<step>.json (and policy-final.onnx when final); returns their paths. */
export function saveCheckpoint(dir: string, state: CheckpointState, policy: Uint8Array, final: boolean): { policy: string; state: string } {
  const policyFile = path.join(dir, `policy-${state.step}.onnx`);
  const stateFile = path.join(dir, `state-${state.step}.json`);
  writeFileAtomic(policyFile, policy);
  // The state goes last: a state file is only ever found next to its policy.
  writeJsonAtomic(stateFile, { ...state, algorithmState: encode(state.algorithmState) });
  if (final) writeFileAtomic(path.join(dir, 'policy-final.onnx'), policy);
  return { policy: policyFile, state: stateFile };
}

/** The state file with the highest step in `dir`, if any. */
export function latestCheckpoint(dir: string): { step: number; file: string } | undefined {
  let best: { step: number; file: string } | undefined;
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    const match = /^state-(\d+)\.json$/.exec(name);
    if (match && (!best || Number(match[1]) > best.step)) best = { step: Number(match[1]), file: path.join(dir, name) };
  }
  return best;
}

export function loadCheckpoint(file: string): CheckpointState {
  const raw = readJson<CheckpointState>(file, 'checkpoint state');
  if (raw.format !== STATE_FORMAT || raw.version !== STATE_VERSION) {
    throw new Error(`${file} is not an rlx trainer state of version ${STATE_VERSION} (format ${String(raw.format)}, version ${String(raw.version)})`);
  }
  return { ...raw, algorithmState: decode(raw.algorithmState) };
}

function encode(value: unknown): unknown {
  if (value instanceof Float32Array) return { f32: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  if (Array.isArray(value)) return value.map(encode);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encode(v)]));
  return value;
}

function decode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decode);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 1 && entries[0][0] === 'f32' && typeof entries[0][1] === 'string') {
      const bytes = Buffer.from(entries[0][1], 'base64');
      return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, decode(v)]));
  }
  return value;
}
