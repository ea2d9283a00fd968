// Saving and loading a full 1M-transition replay buffer shaped as Pendulum's (obs 3 floats,
// action 1) through the trainer's checkpoint files (runtime/run/checkpoint.ts): the buffer's
// arrays go to the raw side file state-<step>.bin, the rest to state-<step>.json. Prints the
// side file's size and the save and load times (best of `repeats`).
// Run: node out/bench/replay.js   (the lead wires replayCheckpointFigures() into `npm run bench -- offpolicy`)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ReplayBuffer } from '../runtime/algorithms/replay/buffer.js';
import { loadCheckpoint, saveCheckpoint, STATE_FORMAT, STATE_VERSION, type CheckpointState } from '../runtime/run/checkpoint.js';

export interface ReplayCheckpointFigures {
  transitions: number;
  sideFileBytes: number;
  saveSeconds: number;
  loadSeconds: number;
}

/** Fills a Pendulum-shaped buffer of `capacity` transitions and times a checkpoint save and load of it. */
export function replayCheckpointFigures(capacity = 1_000_000, repeats = 3): ReplayCheckpointFigures {
  const buffer = new ReplayBuffer({ capacity, numEnvs: 1, obsDim: 3, actionWidth: 1 });
  const obs = new Float32Array(3);
  const next = new Float32Array(3);
  const reward = new Float32Array(1);
  const flag = new Uint8Array(1);
  for (let t = 0; t < capacity; t++) {
    obs[0] = Math.cos(t);
    obs[1] = Math.sin(t);
    obs[2] = t % 8;
    next.set(obs);
    reward[0] = -t % 16;
    buffer.add(obs, [Math.sin(t)], reward, next, flag, flag);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-replay-bench-'));
  let saveSeconds = Infinity;
  let loadSeconds = Infinity;
  let sideFileBytes = 0;
  try {
    for (let r = 0; r < repeats; r++) {
      const state: CheckpointState = {
        format: STATE_FORMAT, version: STATE_VERSION, step: capacity + r, seed: 1, algorithm: 'DQN',
        trainer: { elapsed: 0, nextEval: 0, evalCount: 0, nextCheckpoint: 0, recentReturns: [], recentLengths: [], recentSuccesses: [], latestEval: {} },
        algorithmState: { buffer: buffer.state() },
      };
      let start = performance.now();
      const files = saveCheckpoint(dir, state, new Uint8Array(16), false);
      saveSeconds = Math.min(saveSeconds, (performance.now() - start) / 1000);
      sideFileBytes = fs.statSync(files.state.replace(/\.json$/, '.bin')).size;
      start = performance.now();
      const loaded = loadCheckpoint(files.state);
      new ReplayBuffer({ capacity, numEnvs: 1, obsDim: 3, actionWidth: 1 }).load((loaded.algorithmState as { buffer: ReturnType<ReplayBuffer['state']> }).buffer);
      loadSeconds = Math.min(loadSeconds, (performance.now() - start) / 1000);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { transitions: capacity, sideFileBytes, saveSeconds, loadSeconds };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const f = replayCheckpointFigures();
  console.log(`replay checkpoint, ${f.transitions} Pendulum transitions: side file ${(f.sideFileBytes / 2 ** 20).toFixed(1)} MiB, save ${f.saveSeconds.toFixed(2)} s, load (with ReplayBuffer.load) ${f.loadSeconds.toFixed(2)} s (best of 3)`);
}
