// `npm run bench -- dqn-replay` (minutes): where a DQN run's Q-values go, and whether it is the
// learner's arithmetic that takes them there. rlx's Dqn trains rl-zoo's CartPole-v1 settings for
// the whole 50k budget (seed BENCH_DQN_REPLAY_SEED, 1 by default), recording every gradient
// step's sampled rows and where the target was copied. The same gradient steps are then taken
// again from the same initial weights on the same batches, three ways: in PyTorch as SB3's
// train() takes them (bench/peers/dqn_replay.py), and in rlx from initial weights one float32
// step away (twice, two random nudges). Each round prints the largest and mean Q of the first
// 1000 stored observations. CartPole's discounted return is at most 1 / (1 - 0.99) = 100; the
// max over actions overestimates, so values somewhat above it are DQN's, not a bug (SB3's own
// run on seed 5 ends at 111). Where rlx and PyTorch part on the same batches, the nudged rlx
// rows say whether the run is that sensitive to rounding (runtime/algorithms/dqn/README.md has
// the figures measured).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { Dqn } from '../runtime/algorithms/dqn/dqn.js';
import { BatchQValues, dqnGradientStep, tdTargets } from '../runtime/algorithms/dqn/loss.js';
import { MlpQNetwork } from '../runtime/algorithms/dqn/q-network.js';
import { dqnSettings } from '../runtime/algorithms/dqn/settings.js';
import { Stepper } from '../runtime/algorithms/stepper.js';
import type { ReplayBuffer } from '../runtime/algorithms/replay/buffer.js';
import { makeVecEnv } from '../runtime/envs/registry.js';
import type { DiscreteSpace } from '../runtime/envs/types.js';
import { PolicyFactory } from '../runtime/policies/index.js';
import { mlpSettings } from '../runtime/policies/mlp.js';
import { flatPolicySpaces } from '../runtime/policies/policy.js';
import { Adam, type WeightStore } from '../runtime/tensor/index.js';
import { Rng } from '../shared/random.js';
import { peersMissing, torchDqnReplay } from './peers.js';

const HIDDEN = [256, 256];
const OBS_DIM = 4;
const ROWS = 64;
const LR = 2.3e-3;
const GAMMA = 0.99;
const MAX_GRAD_NORM = 10;
const GRADIENT_STEPS = 128;
/** Observations the Q-values are probed on: the buffer's first rows, the same in every replay. */
const PROBE = 1000;
const COMPUTE = { providers: ['cpu'], threads: false } as const;
/** Env steps of the recorded run: rl-zoo's 50k; BENCH_DQN_REPLAY_STEPS=3000 checks the bench itself in seconds. */
const BUDGET = Number(process.env.BENCH_DQN_REPLAY_STEPS ?? 50_000);

/** What the run recorded: the buffer's rows, each gradient step's row indices and target copies. */
interface Recording {
  readonly rows: number;
  readonly obs: Float32Array;
  readonly nextObs: Float32Array;
  readonly actions: Float32Array;
  readonly rewards: Float32Array;
  readonly dones: Float32Array;
  readonly indices: Int32Array;
  readonly copied: Uint8Array;
  readonly w0: Record<string, Float32Array>;
  /** [env step, max Q, mean Q] after each round, as the run itself went. */
  readonly rounds: [number, number, number][];
}

/** The buffer's private arrays and its last sample's rows (read, never written). */
type BufferInside = { obs: Float32Array; nextObs: Float32Array; actions: Float32Array; rewards: Float32Array; dones: Uint8Array; indices: Int32Array };

async function probeQ(q: BatchQValues, obs: Float32Array): Promise<[number, number]> {
  const values = await q.run(obs.subarray(0, PROBE * OBS_DIM));
  let max = -Infinity;
  let sum = 0;
  for (const v of values) {
    max = Math.max(max, v);
    sum += v;
  }
  return [max, sum / values.length];
}

async function record(seed: number): Promise<Recording> {
  const settings = dqnSettings({
    learning_rate: LR, batch_size: ROWS, buffer: 100_000, learning_starts: 1000, gamma: GAMMA, target_update: 10, train_every: 256,
    gradient_steps: GRADIENT_STEPS, epsilon: { schedule: 'linear', from: 1, to: 0.04, over: 0.16 }, loss: 'huber', max_grad_norm: MAX_GRAD_NORM,
  });
  const vec = makeVecEnv('CartPole', { max_steps: 500 }, 1);
  const stepper = new Stepper(vec, null);
  stepper.reset(seed);
  const rng = new Rng(seed);
  const factory = new PolicyFactory({ kind: 'mlp', name: 'q', params: { hidden: HIDDEN, activation: 'relu' } }, flatPolicySpaces(OBS_DIM, vec.actionSpace as DiscreteSpace), rng.fork('policy'));
  const dqn = await Dqn.create({ policy: factory, stepper, budget: BUDGET, rng: rng.fork('DQN'), compute: COMPUTE }, settings);
  const w0 = Object.fromEntries(dqn.policy.weights.names.map((name) => [name, dqn.policy.weights.get(name).data.slice()]));
  const inside = dqn.buffer as unknown as BufferInside;
  const indices: Int32Array[] = [];
  const copied: number[] = [];
  let copiedSince = false;
  // The learner's target copy and sampling are private: the bench wraps them to see each one.
  const learner = dqn as unknown as { updateTarget(): void; update(): Promise<Record<string, number>> };
  const updateTarget = learner.updateTarget.bind(dqn);
  const update = learner.update.bind(dqn);
  learner.updateTarget = () => {
    copiedSince = true;
    updateTarget();
  };
  const buffer: ReplayBuffer = dqn.buffer;
  const sample = buffer.sample.bind(buffer);
  buffer.sample = (rows, sampleRng, into) => {
    sample(rows, sampleRng, into);
    indices.push(inside.indices.slice(0, rows));
    copied.push(copiedSince ? 1 : 0);
    copiedSince = false;
  };
  const probe = await BatchQValues.create(dqn.policy, dqn.policy.weights, PROBE, COMPUTE);
  const rounds: [number, number, number][] = [];
  learner.update = async () => {
    const metrics = await update();
    rounds.push([dqn.globalStep, ...(await probeQ(probe, inside.obs))]);
    return metrics;
  };
  while (!dqn.done) await dqn.iterate();
  await probe.release();
  await dqn.release();
  const rows = dqn.buffer.size;
  const all = new Int32Array(indices.length * ROWS);
  indices.forEach((rowsOf, k) => all.set(rowsOf, k * ROWS));
  return {
    rows, obs: inside.obs.slice(0, rows * OBS_DIM), nextObs: inside.nextObs.slice(0, rows * OBS_DIM), actions: inside.actions.slice(0, rows),
    rewards: inside.rewards.slice(0, rows), dones: Float32Array.from(inside.dones.subarray(0, rows)), indices: all, copied: Uint8Array.from(copied), w0, rounds,
  };
}

/** The recorded gradient steps again in rlx, from w0 with each weight one float32 step up or down (`nudge` seeds which); [max Q, mean Q] per round. */
async function replayInRlx(rec: Recording, nudge: number): Promise<[number, number][]> {
  const policy = new MlpQNetwork(mlpSettings({ hidden: HIDDEN, activation: 'relu' }), flatPolicySpaces(OBS_DIM, { kind: 'discrete', n: 2 }), new Rng(0));
  const signs = new Rng(nudge);
  for (const name of policy.weights.names) {
    const w = policy.weights.get(name).data;
    w.set(rec.w0[name]!);
    for (let i = 0; i < w.length; i++) w[i] = w[i]! * (1 + (signs.uniform() < 0.5 ? -1 : 1) * 2 ** -23);
  }
  policy.sync();
  const step = await dqnGradientStep(policy, 'huber', { compute: COMPUTE, maxRows: ROWS });
  const adam = new Adam(policy.weights);
  const target: WeightStore = policy.weights.clone();
  const targetQ = await BatchQValues.create(policy, target, ROWS, COMPUTE);
  const probe = await BatchQValues.create(policy, policy.weights, PROBE, COMPUTE);
  const obs = new Float32Array(ROWS * OBS_DIM);
  const nextObs = new Float32Array(ROWS * OBS_DIM);
  const rewards = new Float32Array(ROWS);
  const dones = new Float32Array(ROWS);
  const actionMask = new Float32Array(ROWS * 2);
  const tdTarget = new Float32Array(ROWS);
  const out: [number, number][] = [];
  for (let s = 0; s < rec.copied.length; s++) {
    if (rec.copied[s] === 1) target.copyFrom(policy.weights);
    actionMask.fill(0);
    for (let j = 0; j < ROWS; j++) {
      const r = rec.indices[s * ROWS + j]!;
      obs.set(rec.obs.subarray(r * OBS_DIM, (r + 1) * OBS_DIM), j * OBS_DIM);
      nextObs.set(rec.nextObs.subarray(r * OBS_DIM, (r + 1) * OBS_DIM), j * OBS_DIM);
      rewards[j] = rec.rewards[r]!;
      dones[j] = rec.dones[r]!;
      actionMask[j * 2 + rec.actions[r]!] = 1;
    }
    const q = await targetQ.run(nextObs);
    tdTargets(rewards, dones, q, q, ROWS, 2, GAMMA, tdTarget);
    const ran = await step.run({ obs: { data: obs, dims: [ROWS, OBS_DIM] }, action_mask: { data: actionMask, dims: [ROWS, 2] }, td_target: { data: tdTarget, dims: [ROWS] }, inv_n: Float32Array.of(1 / ROWS) });
    adam.step(ran.grads, LR, { maxGradNorm: MAX_GRAD_NORM });
    if ((s + 1) % GRADIENT_STEPS === 0) out.push(await probeQ(probe, rec.obs));
  }
  await Promise.all([step.release(), targetQ.release(), probe.release()]);
  return out;
}

function write(dir: string, rec: Recording): void {
  const bin = (name: string, a: Float32Array | Int32Array | Uint8Array) => fs.writeFileSync(path.join(dir, `${name}.bin`), new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  bin('obs', rec.obs);
  bin('next_obs', rec.nextObs);
  bin('actions', rec.actions);
  bin('rewards', rec.rewards);
  bin('dones', rec.dones);
  bin('indices', rec.indices);
  bin('copied', rec.copied);
  const w0 = Object.fromEntries(Object.entries(rec.w0).map(([name, w]) => [name, Array.from(w)]));
  fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ rows: rec.rows, obs_dim: OBS_DIM, hidden: HIDDEN, actions: 2, lr: LR, gamma: GAMMA, max_grad_norm: MAX_GRAD_NORM, batch: ROWS, gradient_steps: GRADIENT_STEPS, probe: PROBE, w0 }));
}

export async function benchDqnReplay(): Promise<void> {
  const seed = Number(process.env.BENCH_DQN_REPLAY_SEED ?? 1);
  const missing = peersMissing();
  console.log(`\nDQN replay: rlx's run (rl-zoo's CartPole-v1 settings, seed ${seed}) and its gradient steps taken again on the same batches${missing ? ` (PyTorch not run: ${missing})` : ''}`);
  const rec = await record(seed);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-dqn-replay-'));
  let torch: [number, number][] | null = null;
  try {
    write(dir, rec);
    torch = missing ? null : await torchDqnReplay(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const nudged = [await replayInRlx(rec, 1), await replayInRlx(rec, 2)];
  const cell = (q: readonly [number, number] | undefined) => (q ? `${q[0].toFixed(1)} / ${q[1].toFixed(1)}` : 'n/a').padStart(13);
  console.log(`  max / mean Q over the first ${PROBE} stored observations, after the round ending at each step (100 bounds the true values)`);
  console.log(`   step |      rlx run |      PyTorch | rlx nudged 1 | rlx nudged 2`);
  rec.rounds.forEach(([step, max, mean], k) => {
    if (k % 10 !== 0 && k !== rec.rounds.length - 1) return;
    console.log(`  ${String(step).padStart(5)} | ${cell([max, mean])} | ${cell(torch?.[k])} | ${cell(nudged[0]![k])} | ${cell(nudged[1]![k])}`);
  });
  const top = (qs: readonly (readonly [number, number])[] | null) => (qs && qs.length > 0 ? Math.max(...qs.map((q) => q[0])).toFixed(1) : 'n/a');
  console.log(`  largest Q of any round: rlx run ${top(rec.rounds.map(([, max, mean]) => [max, mean]))}, PyTorch ${top(torch)}, rlx nudged ${top(nudged[0]!)} and ${top(nudged[1]!)}`);
}
