// `npm run bench -- dqn-parity`: whether rlx's DQN update is SB3's, number for number. A few
// gradient steps of rlx's Q-network (rl-zoo's CartPole size, Huber loss, Adam, gradients clipped
// at norm 10; inputs large enough that clipping acts) are replayed in PyTorch from the same
// weights and batches (bench/peers/dqn_step_parity.py); prints the largest differences.
// Then the learner itself: rlx's Dqn with rl-zoo's CartPole settings runs its first rounds of
// 128 gradient steps, and every batch it sampled, with where it copied its target network, is
// replayed in PyTorch as SB3's train() takes it, the TD targets from PyTorch's own target
// network (bench/peers/dqn_loop_parity.py): the target's values and copies, the TD target and
// Adam over hundreds of steps, as the training loop runs them.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { CheckedStep } from '../runtime/algorithms/checked-step.js';
import { Dqn } from '../runtime/algorithms/dqn/dqn.js';
import { dqnGradientStep } from '../runtime/algorithms/dqn/loss.js';
import { dqnSettings } from '../runtime/algorithms/dqn/settings.js';
import { Stepper } from '../runtime/algorithms/stepper.js';
import { makeVecEnv } from '../runtime/envs/registry.js';
import type { DiscreteSpace } from '../runtime/envs/types.js';
import { PolicyFactory } from '../runtime/policies/index.js';
import { mlpSettings } from '../runtime/policies/mlp.js';
import { flatPolicySpaces } from '../runtime/policies/policy.js';
import { MlpQNetwork } from '../runtime/algorithms/dqn/q-network.js';
import { Rng } from '../shared/random.js';
import { Adam, WeightStore, type GradientStep } from '../runtime/tensor/index.js';
import { peersMissing, torchDqnLoopParity, torchDqnStepParity } from './peers.js';

const HIDDEN = [256, 256];
const OBS_DIM = 4;
const ACTIONS = 2;
const ROWS = 64;
const LR = 2.3e-3;
const MAX_GRAD_NORM = 10;
const STEPS = 5;

function dump(weights: WeightStore): Record<string, number[]> {
  return Object.fromEntries(weights.names.map((name) => [name, Array.from(weights.get(name).data)]));
}

export async function benchDqnParity(): Promise<void> {
  const missing = peersMissing();
  if (missing) {
    console.log(`dqn-parity: skipped, ${missing}`);
    return;
  }
  const rng = new Rng(7);
  const policy = new MlpQNetwork(mlpSettings({ hidden: HIDDEN, activation: 'relu' }), flatPolicySpaces(OBS_DIM, { kind: 'discrete', n: ACTIONS }), rng);
  const w0 = dump(policy.weights);
  const step = await dqnGradientStep(policy, 'huber', { compute: { providers: ['cpu'], threads: false }, maxRows: ROWS });
  const adam = new Adam(policy.weights);
  const steps = [];
  for (let s = 0; s < STEPS; s++) {
    const obs = Float32Array.from({ length: ROWS * OBS_DIM }, () => (rng.uniform() * 4 - 2) * 30);
    const actions = Array.from({ length: ROWS }, () => rng.int(ACTIONS));
    const tdTarget = Float32Array.from({ length: ROWS }, () => rng.uniform() * 60 - 10);
    const mask = new Float32Array(ROWS * ACTIONS);
    actions.forEach((a, j) => (mask[j * ACTIONS + a] = 1));
    const out = await step.run({ obs: { data: obs, dims: [ROWS, OBS_DIM] }, action_mask: { data: mask, dims: [ROWS, ACTIONS] }, td_target: { data: tdTarget, dims: [ROWS] }, inv_n: Float32Array.of(1 / ROWS) });
    const gradNorm = adam.step(out.grads, LR, { maxGradNorm: MAX_GRAD_NORM });
    steps.push({ obs: Array.from(obs), actions, td_target: Array.from(tdTarget), loss: out.metrics[step.metricNames.indexOf('td_loss')], grad_norm: gradNorm });
  }
  await step.release();
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-dqn-parity-')), 'steps.json');
  fs.writeFileSync(file, JSON.stringify({ obs_dim: OBS_DIM, hidden: HIDDEN, actions: ACTIONS, lr: LR, max_grad_norm: MAX_GRAD_NORM, w0, w1: dump(policy.weights), steps }));
  const worst = await torchDqnStepParity(file);
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  const norms = steps.map((s) => s.grad_norm.toFixed(1)).join(', ');
  console.log(`dqn-parity: ${STEPS} updates (grad norms ${norms}; clipped at ${MAX_GRAD_NORM}) vs PyTorch: max |loss diff| ${worst.loss.toExponential(1)}, |grad norm diff| ${worst.grad_norm.toExponential(1)}, |weight diff| ${worst.weights.toExponential(1)} (one Adam step moves weights ~${LR})`);
  await learnerParity();
}

/** Rounds of the learner to replay: 1024 env steps, then one round every 256. */
const ROUNDS = 4;

/** rlx's Dqn with rl-zoo's settings for ROUNDS rounds, every gradient step recorded, replayed in PyTorch. */
async function learnerParity(): Promise<void> {
  const settings = dqnSettings({
    learning_rate: LR, batch_size: ROWS, buffer: 100_000, learning_starts: 1000, gamma: 0.99, target_update: 10, train_every: 256,
    gradient_steps: 128, epsilon: { schedule: 'linear', from: 1, to: 0.04, over: 0.16 }, loss: 'huber', max_grad_norm: MAX_GRAD_NORM,
  });
  const vec = makeVecEnv('CartPole', { max_steps: 500 }, 1);
  const stepper = new Stepper(vec, null);
  stepper.reset(1);
  const rng = new Rng(1);
  const factory = new PolicyFactory({ kind: 'mlp', name: 'q', params: { hidden: HIDDEN, activation: 'relu' } }, flatPolicySpaces(OBS_DIM, vec.actionSpace as DiscreteSpace), rng.fork('policy'));
  const dqn = await Dqn.create({ policy: factory, stepper, budget: 50_000, rng: rng.fork('DQN'), compute: { providers: ['cpu'], threads: false } }, settings);
  const w0 = dump(dqn.policy.weights);
  type Recorded = { obs: number[]; next_obs: number[]; actions: number[]; rewards: number[]; dones: number[]; copied: boolean; td_target?: number[]; loss?: number };
  const steps: Recorded[] = [];
  let copied = false;
  const copyFrom = WeightStore.prototype.copyFrom;
  WeightStore.prototype.copyFrom = function (this: WeightStore, source: WeightStore) {
    if (source === dqn.policy.weights) copied = true;
    copyFrom.call(this, source);
  };
  const sample = dqn.buffer.sample.bind(dqn.buffer);
  dqn.buffer.sample = (rows, sampleRng, into) => {
    sample(rows, sampleRng, into);
    steps.push({ obs: Array.from(into.obs), next_obs: Array.from(into.nextObs), actions: Array.from(into.actions), rewards: Array.from(into.rewards), dones: Array.from(into.dones), copied });
    copied = false;
  };
  // The learner's checked step is private; the bench reads what it was fed and what it returned.
  const { checked, gradients } = dqn as unknown as { checked: CheckedStep; gradients: GradientStep };
  const lossSlot = gradients.metricNames.indexOf('td_loss');
  const step = checked.step.bind(checked);
  checked.step = async (feeds, lr) => {
    const out = await step(feeds, lr);
    const fed = feeds.td_target as { data: Float32Array };
    Object.assign(steps.at(-1)!, { td_target: Array.from(fed.data), loss: out.metrics[lossSlot] });
    return out;
  };
  try {
    while (dqn.updates < ROUNDS) await dqn.iterate();
  } finally {
    WeightStore.prototype.copyFrom = copyFrom;
  }
  const w1 = dump(dqn.policy.weights);
  await dqn.release();
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-dqn-loop-parity-')), 'rounds.json');
  fs.writeFileSync(file, JSON.stringify({ obs_dim: OBS_DIM, hidden: HIDDEN, actions: ACTIONS, lr: LR, gamma: 0.99, max_grad_norm: MAX_GRAD_NORM, w0, w1, steps }));
  const worst = await torchDqnLoopParity(file);
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  console.log(`dqn-parity: the learner's first ${ROUNDS} rounds (${worst.steps} gradient steps, the target copied before ${worst.copies} of them) vs PyTorch: max |loss diff| ${worst.loss.toExponential(1)}, |TD target diff| ${worst.td_target.toExponential(1)}, |weight diff| ${worst.weights.toExponential(1)} (PyTorch against itself from weights one float32 step apart: ${worst.floor_weights.toExponential(1)})`);
}
