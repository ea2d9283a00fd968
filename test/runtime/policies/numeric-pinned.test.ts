// Pins what short runs of the learners over observation vectors learn at a fixed seed: PPO on
// CartPole (separate actor and critic) and on Pendulum (a shared trunk, Gaussian actions),
// REINFORCE, DQN on CartPole, and SAC on Pendulum and on CartPole (discrete). Every metric and
// evaluation value, and a digest of every final weight (its sum, sum of squares, first and last
// value), is compared with fixtures/numeric-pinned.json, recorded before the policies' MLPs
// became one builder behind an observation encoder (issue 42), which reproduces them bit for
// bit (DQN's entry was re-recorded when its actions before learning_starts became uniformly
// random, SB3's warm-up). A change to initialisation, the networks' passes, acting or the
// learners that moves what a run learns fails here.
//
// Values are compared to 1e-5 (relative), as transformer-pinned.test.ts does: onnxruntime picks
// its kernels by the CPU's instruction set. Rewrite the fixture only for a change meant to move
// results: RLX_WRITE_PINNED=1 (then `git diff` shows whether anything moved at all).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { latestCheckpoint, loadCheckpoint } from '../../../runtime/run/checkpoint.js';
import { readEvents } from '../../../runtime/run/events.js';
import { train } from '../../../runtime/train.js';
import { learnerPlan } from '../algorithms/learners.js';
import { repoRoot } from '../../helpers/repo.js';
import { tempDir } from '../helpers.js';

const FIXTURE = path.join(repoRoot(), 'test', 'runtime', 'policies', 'fixtures', 'numeric-pinned.json');
const TOLERANCE = 1e-5;

type Pinned = Record<string, Record<string, number[]>>;

const pendulum = { name: 'E', kind: 'Pendulum', params: {} } as Plan['env'];
const cartPole = { name: 'E', kind: 'CartPole', params: {} } as Plan['env'];

function sharedTrunkPpo(): Plan {
  const plan = learnerPlan('PPO', { env: pendulum });
  return { ...plan, policy: { ...plan.policy, params: { hidden: [16, 16], shared_trunk: true, activation: 'relu' } } };
}

const RUNS: Readonly<Record<string, () => Plan>> = {
  ppo: () => learnerPlan('PPO'),
  'ppo shared trunk': sharedTrunkPpo,
  reinforce: () => learnerPlan('REINFORCE'),
  dqn: () => learnerPlan('DQN'),
  sac: () => learnerPlan('SAC'),
  'sac discrete': () => learnerPlan('SAC', { env: cartPole }),
};

/** sum, sum of squares, first and last value: moves when any weight does. */
function digest(values: Float32Array): number[] {
  let sum = 0;
  let squares = 0;
  for (const v of values) {
    sum += v;
    squares += v * v;
  }
  return [sum, squares, values[0]!, values[values.length - 1]!];
}

/** Every Float32Array under the state's weight parts (`weights`, `actor`, `critics`, `targets`...), by path. */
function weightDigests(state: unknown, at: string, into: Record<string, number[]>): void {
  if (state instanceof Float32Array) {
    if (!/optimi[sz]er|replay|buffer/.test(at)) into[`weight ${at}`] = digest(state);
    return;
  }
  if (state === null || typeof state !== 'object' || ArrayBuffer.isView(state)) return;
  for (const [key, value] of Object.entries(state)) weightDigests(value, at ? `${at}.${key}` : key, into);
}

/** Every metric and evaluation value of a run by name, in step order (wall-clock rates left out), and its final weights' digests. */
async function learned(plan: Plan): Promise<Record<string, number[]>> {
  const result = await train(plan, { out: tempDir() });
  assert.equal(result.status, 'finished');
  const values: Record<string, number[]> = {};
  for (const e of readEvents(path.join(result.runDir, 'events.jsonl'))) {
    if (e.type !== 'metrics' && e.type !== 'eval') continue;
    for (const [name, v] of Object.entries(e.values as Record<string, unknown>)) {
      if (typeof v !== 'number' || name === 'charts/sps' || name.includes('time')) continue;
      (values[`${e.type} ${name}`] ??= []).push(v);
    }
  }
  const last = latestCheckpoint(path.join(result.runDir, 'checkpoints'));
  assert.ok(last, 'the run wrote a checkpoint');
  weightDigests(loadCheckpoint(last.file).algorithmState, '', values);
  return values;
}

test('short runs over observation vectors at a fixed seed learn what they learned when pinned', async () => {
  const got: Pinned = {};
  for (const [name, plan] of Object.entries(RUNS)) got[name] = await learned(plan());
  if (process.env.RLX_WRITE_PINNED === '1') {
    fs.mkdirSync(path.dirname(FIXTURE), { recursive: true });
    fs.writeFileSync(FIXTURE, JSON.stringify(got, null, 1) + '\n');
    return;
  }
  const pinned = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as Pinned;
  assert.deepEqual(Object.keys(got).sort(), Object.keys(pinned).sort(), 'the same runs');
  for (const run of Object.keys(pinned)) {
    assert.deepEqual(Object.keys(got[run]!).sort(), Object.keys(pinned[run]!).sort(), `${run}: the same metrics and weights`);
    for (const [name, values] of Object.entries(pinned[run]!)) {
      const now = got[run]![name]!;
      assert.equal(now.length, values.length, `${run}: ${name} has ${now.length} values, pinned ${values.length}`);
      values.forEach((v, i) => {
        const close = Math.abs(now[i]! - v) <= TOLERANCE * Math.max(1, Math.abs(v));
        assert.ok(close, `${run}: ${name}[${i}] is ${now[i]}, pinned ${v}`);
      });
    }
  }
});
