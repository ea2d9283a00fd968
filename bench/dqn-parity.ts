// `npm run bench -- dqn-parity`: whether rlx's DQN update is SB3's, number for number. A few
// gradient steps of rlx's Q-network (rl-zoo's CartPole size, Huber loss, Adam, gradients clipped
// at norm 10; inputs large enough that clipping acts) are replayed in PyTorch from the same
// weights and batches (bench/peers/dqn_step_parity.py); prints the largest differences.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { dqnGradientStep } from '../runtime/algorithms/dqn/loss.js';
import { mlpSettings } from '../runtime/policies/mlp.js';
import { flatPolicySpaces } from '../runtime/policies/policy.js';
import { MlpQNetwork } from '../runtime/algorithms/dqn/q-network.js';
import { Rng } from '../shared/random.js';
import { Adam, type WeightStore } from '../runtime/tensor/index.js';
import { peersMissing, torchDqnStepParity } from './peers.js';

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
}
