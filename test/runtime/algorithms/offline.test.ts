// The offline learners end to end: a dataset recorded from a Pendulum controller (about -150 a
// episode; a random policy about -1200), written as rlx record writes it, trained on by BC and
// TD3BC through the trainer (the data file copied into the run, the policy evaluated in the env),
// and the refusals of a dataset that does not fit the env.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { isInputError } from '../../../shared/input-error.js';
import { Rng } from '../../../shared/random.js';
import { transitionsNpz } from '../../../shared/transitions/transitions.js';
import { makeVecEnv } from '../../../runtime/envs/registry.js';
import { evaluate } from '../../../runtime/evaluate.js';
import { recordDataset } from '../../../runtime/record-dataset.js';
import { readEvents } from '../../../runtime/run/events.js';
import { train } from '../../../runtime/train.js';
import { makePlan, tempDir } from '../helpers.js';
import { PENDULUM_EXPERT, randomPendulum } from './pendulum-expert.js';

/** `episodes` of the controller on Pendulum, with `noise` (half-range units) on its torques, as an .npz in a new folder. */
async function recordExpert(episodes: number, noise: number): Promise<{ dir: string; meanReturn: number }> {
  const vec = makeVecEnv('Pendulum', {}, 4);
  const recorded = await recordDataset(PENDULUM_EXPERT, vec, { episodes, epsilon: 0, noise, deterministic: true, seed: 3, firstStream: 100, rng: new Rng(3) });
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'expert.npz'), Buffer.concat(transitionsNpz(recorded.transitions)));
  return { dir, meanReturn: recorded.returns.reduce((a, b) => a + b, 0) / recorded.returns.length };
}

async function randomReturn(): Promise<number> {
  const result = await evaluate(randomPendulum(new Rng(5)), makeVecEnv('Pendulum', {}, 4), 16, true, new Rng(5), 5, 0);
  return result.returns.reduce((a, b) => a + b, 0) / result.returns.length;
}

function offlinePlan(algorithm: string, params: Record<string, unknown>, budget: number) {
  return makePlan({ env: 'Pendulum', algorithm, algorithmParams: { data: './expert.npz', ...params }, budget, envs: 1, policyParams: { hidden: [64, 64] }, eval: { every: 1000, episodes: 8, deterministic: true } });
}

test('rlx record\'s episodes run whole and in order: 200-step Pendulum episodes, each ended by its time limit', async () => {
  const vec = makeVecEnv('Pendulum', {}, 3);
  const { transitions: t, returns } = await recordDataset(PENDULUM_EXPERT, vec, { episodes: 5, epsilon: 0, noise: 0, deterministic: true, seed: 1, firstStream: 0, rng: new Rng(1) });
  assert.equal(returns.length, 5);
  assert.equal(t.rows, 5 * 200);
  const ends = [...t.timeouts.keys()].filter((i) => t.timeouts[i] === 1);
  assert.deepEqual(ends, [199, 399, 599, 799, 999]);
  assert.equal(t.terminals.reduce((a, b) => a + b, 0), 0);
  // Within an episode the next observation is the next row's.
  for (let k = 0; k < 3; k++) assert.equal(t.nextObservations[10 * 3 + k], t.observations[11 * 3 + k]);
  // epsilon 1 is a random policy: its return is a random policy's, far below the controller's.
  const random = await recordDataset(PENDULUM_EXPERT, vec, { episodes: 6, epsilon: 1, noise: 0, deterministic: true, seed: 1, firstStream: 0, rng: new Rng(1) });
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  assert.ok(mean(random.returns) < -800 && mean(returns) > -400, `random ${mean(random.returns)}, controller ${mean(returns)}`);
});

test('BC on a recorded expert set beats a random policy on Pendulum within 5k gradient steps', { timeout: 300_000 }, async (t) => {
  const { dir, meanReturn } = await recordExpert(20, 0);
  const run = await train(offlinePlan('BC', { learning_rate: 1e-3 }, 5000), { out: path.join(dir, 'runs'), baseDir: dir });
  const evals = readEvents(path.join(run.runDir, 'events.jsonl')).filter((e) => e.type === 'eval');
  const last = evals[evals.length - 1]!.values['eval/mean_return']!;
  const random = await randomReturn();
  t.diagnostic(`dataset ${meanReturn.toFixed(0)}, random ${random.toFixed(0)}, BC after 5k steps ${last.toFixed(0)} (evals ${evals.map((e) => e.values['eval/mean_return']!.toFixed(0)).join(' ')})`);
  assert.ok(last > random + 500, `BC ${last}, random ${random}`);
  // The run keeps its copy of the dataset.
  assert.ok(fs.existsSync(path.join(run.runDir, 'data', 'main.data.npz')));
});

test('TD3BC learns from a noisy expert set in a shortened run', { timeout: 300_000 }, async (t) => {
  const { dir, meanReturn } = await recordExpert(20, 0.3);
  const run = await train(offlinePlan('TD3BC', {}, 3000), { out: path.join(dir, 'runs'), baseDir: dir });
  const evals = readEvents(path.join(run.runDir, 'events.jsonl')).filter((e) => e.type === 'eval');
  const last = evals[evals.length - 1]!.values['eval/mean_return']!;
  const random = await randomReturn();
  t.diagnostic(`dataset ${meanReturn.toFixed(0)}, random ${random.toFixed(0)}, TD3BC after 3k steps ${last.toFixed(0)} (evals ${evals.map((e) => e.values['eval/mean_return']!.toFixed(0)).join(' ')})`);
  assert.ok(last > random + 500, `TD3BC ${last}, random ${random}`);
});

test('IQL learns from a noisy expert set in a shortened run', { timeout: 300_000 }, async (t) => {
  const { dir, meanReturn } = await recordExpert(20, 0.3);
  const run = await train(offlinePlan('IQL', {}, 3000), { out: path.join(dir, 'runs'), baseDir: dir });
  const evals = readEvents(path.join(run.runDir, 'events.jsonl')).filter((e) => e.type === 'eval');
  const last = evals[evals.length - 1]!.values['eval/mean_return']!;
  const random = await randomReturn();
  t.diagnostic(`dataset ${meanReturn.toFixed(0)}, random ${random.toFixed(0)}, IQL after 3k steps ${last.toFixed(0)} (evals ${evals.map((e) => e.values['eval/mean_return']!.toFixed(0)).join(' ')})`);
  assert.ok(last > random + 500, `IQL ${last}, random ${random}`);
});

test('a dataset of another env\'s shapes is refused before training, naming the file and both shapes', async () => {
  const vec = makeVecEnv('Pendulum', {}, 1);
  const { transitions } = await recordDataset(PENDULUM_EXPERT, vec, { episodes: 1, epsilon: 0, noise: 0, deterministic: true, seed: 1, firstStream: 0, rng: new Rng(1) });
  const dir = tempDir();
  // Observations of 4 numbers: a 3-number Pendulum set with a column added.
  const wide = new Float32Array(transitions.rows * 4);
  for (let r = 0; r < transitions.rows; r++) wide.set(transitions.observations.subarray(r * 3, r * 3 + 3), r * 4);
  const nextWide = new Float32Array(transitions.rows * 4);
  for (let r = 0; r < transitions.rows; r++) nextWide.set(transitions.nextObservations.subarray(r * 3, r * 3 + 3), r * 4);
  fs.writeFileSync(path.join(dir, 'expert.npz'), Buffer.concat(transitionsNpz({ ...transitions, obsShape: [4], observations: wide, nextObservations: nextWide })));
  await assert.rejects(train(offlinePlan('BC', {}, 100), { out: path.join(dir, 'runs'), baseDir: dir }),
    (err: Error) => isInputError(err) && /expert\.npz: its observations have 4 numbers \(shape \[4\]\), Pendulum's 3/.test(err.message));
});
