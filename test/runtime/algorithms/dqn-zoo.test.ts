// examples/cartpole-dqn.rlx says it follows rl-baselines3-zoo's CartPole-v1 DQN entry (SB3 2.3.2,
// hyperparams/dqn.yml): its plan must mean what SB3 runs, and DQN driven with those settings
// must explore, train and copy its target network at the env steps SB3's DQN does
// (dqn/dqn.py _on_step, common/off_policy_algorithm.py collect_rollouts and learn). The mapping
// is in runtime/algorithms/dqn/README.md.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, describe, it, mock } from 'node:test';
import { planFile } from '../../../cli/commands/plan.js';
import { Dqn } from '../../../runtime/algorithms/dqn/dqn.js';
import { dqnSettings } from '../../../runtime/algorithms/dqn/settings.js';
import { Stepper } from '../../../runtime/algorithms/stepper.js';
import { makeVecEnv } from '../../../runtime/envs/registry.js';
import type { DiscreteSpace } from '../../../runtime/envs/types.js';
import { flatPolicySpaces, PolicyFactory } from '../../../runtime/policies/index.js';
import { WeightStore } from '../../../runtime/tensor/index.js';
import { Rng } from '../../../shared/random.js';
import { repoRoot } from '../../helpers/repo.js';

/** rl-zoo's hyperparams/dqn.yml, CartPole-v1 (n_envs 1). */
const ZOO = {
  n_timesteps: 50_000, learning_rate: 2.3e-3, batch_size: 64, buffer_size: 100_000, learning_starts: 1000, gamma: 0.99,
  target_update_interval: 10, train_freq: 256, gradient_steps: 128, exploration_fraction: 0.16, exploration_final_eps: 0.04,
  net_arch: [256, 256],
};

/** SB3's get_linear_fn(start, end, end_fraction): a function of progress_remaining. */
const sb3Linear = (start: number, end: number, endFraction: number) => (progressRemaining: number) =>
  1 - progressRemaining > endFraction ? end : start + ((1 - progressRemaining) * (end - start)) / endFraction;

/** SB3 DQN's exploration for the action after `t` env steps: uniformly random before learning_starts, then the schedule. */
const sb3Epsilon = (t: number) => (t < ZOO.learning_starts ? 1 : sb3Linear(1.0, ZOO.exploration_final_eps, ZOO.exploration_fraction)(1 - t / ZOO.n_timesteps));

describe('examples/cartpole-dqn.rlx', () => {
  it('is rl-zoo\'s CartPole-v1 DQN entry, with SB3\'s Huber loss and gradient clipping', () => {
    const [plan] = planFile(path.join(repoRoot(), 'examples', 'cartpole-dqn.rlx'));
    const stage = plan.stages[0];
    const s = dqnSettings(stage.algorithm.params);
    assert.equal(plan.envs, 1, 'n_envs 1: train_every and target_update count the same steps as SB3\'s train_freq and target_update_interval');
    assert.equal(stage.budget, ZOO.n_timesteps);
    assert.deepEqual(s.learning_rate, { schedule: 'constant', value: ZOO.learning_rate });
    assert.equal(s.batch_size, ZOO.batch_size);
    assert.equal(s.buffer, ZOO.buffer_size);
    assert.equal(s.learning_starts, ZOO.learning_starts);
    assert.equal(s.gamma, ZOO.gamma);
    assert.equal(s.target_update, ZOO.target_update_interval);
    assert.equal(s.tau, 1, 'SB3 tau 1.0: a copy');
    assert.equal(s.train_every, ZOO.train_freq);
    assert.equal(s.gradient_steps, ZOO.gradient_steps);
    assert.deepEqual(s.epsilon, { schedule: 'linear', from: 1, to: ZOO.exploration_final_eps, over: ZOO.exploration_fraction }, 'exploration_initial_eps 1.0');
    assert.equal(s.loss, 'huber', 'SB3: F.smooth_l1_loss');
    assert.equal(s.max_grad_norm, 10, 'SB3 max_grad_norm 10');
    assert.equal(s.double, false);
    assert.deepEqual(plan.policy.params.hidden, ZOO.net_arch);
    assert.equal(plan.policy.params.activation, 'relu', 'SB3 DQN\'s MlpPolicy: ReLU');
    assert.equal(plan.eval?.episodes, 10, 'rl-zoo evaluates 10 episodes');
    assert.equal(plan.eval?.deterministic, true, 'greedy, as evaluate_policy(deterministic=True)');
    assert.equal(plan.stop ?? null, null, 'rl-zoo trains the whole budget');
  });
});

describe('DQN with rl-zoo\'s settings steps as SB3 does', async () => {
  // The zoo's schedule settings on a small network (the counts do not depend on its size), run
  // to 9k env steps: past the first updates and the end of the epsilon schedule (8k).
  const settings = dqnSettings({
    learning_rate: ZOO.learning_rate, batch_size: ZOO.batch_size, buffer: ZOO.buffer_size, learning_starts: ZOO.learning_starts,
    target_update: ZOO.target_update_interval, train_every: ZOO.train_freq, gradient_steps: ZOO.gradient_steps,
    epsilon: { schedule: 'linear', from: 1, to: ZOO.exploration_final_eps, over: ZOO.exploration_fraction }, loss: 'huber', max_grad_norm: 10,
  });
  const vec = makeVecEnv('CartPole', { max_steps: 500 }, 1);
  const stepper = new Stepper(vec, null);
  stepper.reset(1);
  const rng = new Rng(1);
  const factory = new PolicyFactory({ kind: 'mlp', name: 'q', params: { hidden: [16], activation: 'relu' } }, flatPolicySpaces(vec.obsDim, vec.actionSpace as DiscreteSpace), rng.fork('policy'));
  const dqn = await Dqn.create({ policy: factory, stepper, budget: ZOO.n_timesteps, rng: rng.fork('DQN'), compute: { providers: ['cpu'], threads: false } }, settings);
  after(() => dqn.release());

  const epsilons: [number, number][] = []; // [env steps before the action, epsilon it used]
  const roundsAt: number[] = []; // env steps at which an update round started
  const copies: { step: number; gradientSteps: number }[] = [];
  let gradientSteps = 0;
  const act = dqn.policy.act.bind(dqn.policy);
  dqn.policy.act = (obs, rows, actions, deterministic, actRng) => {
    epsilons.push([dqn.globalStep, dqn.policy.epsilon]);
    return act(obs, rows, actions, deterministic, actRng);
  };
  // sync() follows every gradient step (the acting pass then sees the new weights).
  const sync = dqn.policy.sync.bind(dqn.policy);
  dqn.policy.sync = () => {
    if (gradientSteps % ZOO.gradient_steps === 0) roundsAt.push(dqn.globalStep);
    gradientSteps++;
    sync();
  };
  const copyFrom = WeightStore.prototype.copyFrom;
  mock.method(WeightStore.prototype, 'copyFrom', function (this: WeightStore, source: WeightStore) {
    if (source === dqn.policy.weights) copies.push({ step: dqn.globalStep, gradientSteps });
    copyFrom.call(this, source);
  });
  while (dqn.globalStep < 9000) await dqn.iterate();
  mock.restoreAll();
  const end = dqn.globalStep;

  it('explores with SB3\'s epsilon at every step: 1 before learning_starts, then get_linear_fn(1.0, 0.04, 0.16)', () => {
    assert.equal(epsilons.length, end);
    for (const [t, epsilon] of epsilons) assert.ok(Math.abs(epsilon - sb3Epsilon(t)) < 1e-12, `step ${t}: epsilon ${epsilon}, SB3 ${sb3Epsilon(t)}`);
    // A few values by hand: 1 - 0.96 * t / 8000 from 1000 on, 0.04 from 8000.
    const at = new Map(epsilons);
    assert.deepEqual([999, 1000, 4000, 8000, 8999].map((t) => Number(at.get(t)!.toFixed(6))), [1, 0.88, 0.52, 0.04, 0.04]);
  });

  it('takes 128 gradient steps after each 256 env steps once past learning_starts, as SB3\'s train_freq 256 with gradient_steps 128', () => {
    // SB3: a rollout of train_freq steps, then train() when num_timesteps > learning_starts: 1024, 1280, ...
    const expected: number[] = [];
    for (let t = 1024; t <= end; t += 256) expected.push(t);
    assert.deepEqual(roundsAt, expected);
    assert.equal(gradientSteps, ZOO.gradient_steps * expected.length);
  });

  it('copies the target every 10 env steps, never inside an update round (target_update_interval counts env steps, not gradient steps)', () => {
    // SB3 copies whenever _n_calls % 10 == 0; before the first update the weights have not moved, so
    // rlx's copies start after learning_starts.
    const steps = copies.map((c) => c.step);
    const expected: number[] = [];
    for (let t = 1010; t <= end; t += 10) expected.push(t);
    assert.deepEqual(steps, expected);
    for (const { step, gradientSteps: done } of copies) {
      // The copy after env step t comes before the round at t (SB3: _on_step, then train()).
      const rounds = roundsAt.filter((t) => t < step).length;
      assert.equal(done, ZOO.gradient_steps * rounds, `the copy at step ${step} sees whole rounds only`);
    }
    // So each round of 128 gradient steps bootstraps from the weights it started with: the last
    // copy before it came after the previous round (1020 before 1024, 1280 before 1280, ...).
    const lastBefore = (t: number) => copies.filter((c) => c.step <= t).at(-1)!.step;
    for (const t of roundsAt) assert.equal(lastBefore(t), t - (t % 10), `the round at ${t}`);
  });
});
