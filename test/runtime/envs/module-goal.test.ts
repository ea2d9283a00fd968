// Goal-conditioned user envs: a module whose spec names `goal` and `achieved` and that exports
// computeReward(achieved, goal, info) gives env copies the GoalConditioned shape (what hindsight
// relabeling calls, on the trainer's thread), its success feeds train.success and eval.success,
// and a module that declares goals but cannot compute their rewards is refused, saying why.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';

import { envModuleSpec, moduleEnvSpec } from '../../../dsl/schema/env-module.js';
import { isGoalConditioned } from '../../../runtime/envs/types.js';
import { loadEnvModule } from '../../../runtime/envs/user-module.js';
import { readEvents } from '../../../runtime/run/events.js';
import { train } from '../../../runtime/train.js';
import { repoRoot } from '../../helpers/repo.js';
import { makePlan, tempDir } from '../helpers.js';

const example = path.join(repoRoot(), 'examples', 'point-reach.ts');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-goal-env-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = path.join(work, name);
  fs.writeFileSync(file, text);
  return file;
}

/** examples/point-reach.ts with its computeReward replaced (or removed, with `null`). */
function variant(name: string, computeReward: string | null): string {
  const source = fs.readFileSync(example, 'utf8');
  const start = source.indexOf('export function computeReward');
  const end = source.indexOf('\n}\n', start) + 3;
  return write(name, source.slice(0, start) + (computeReward ?? '') + source.slice(end).replace('computeReward([this.x], [this.goal])', '(this.x === this.goal ? 1 : 0)'));
}

test('the copies of a goal-conditioned module compute rewards for any goal, on this thread', async () => {
  const loaded = await loadEnvModule(example, { length: 7 });
  try {
    const env = loaded.create({ length: 7 });
    assert.ok(isGoalConditioned(env));
    assert.deepEqual([env.goalFields, env.achievedFields], [['goal_x'], ['x']]);
    assert.equal(env.computeReward(Float32Array.of(3), Float32Array.of(3)), 1);
    assert.equal(env.computeReward([2], [3]), 0);
    // Reaching the goal ends its episodes: relabeled rows that reach their goal become last steps.
    assert.equal(env.computeTerminated?.(Float32Array.of(3), Float32Array.of(3)), true);
    assert.equal(env.computeTerminated?.([2], [3]), false);
  } finally {
    loaded.close();
  }
});

test('computeTerminated is optional; one that is not a function, throws or answers no boolean is refused, saying why', async () => {
  const source = fs.readFileSync(example, 'utf8');
  const without = (replacement: string) => source.replace(/export function computeTerminated[\s\S]*?\n}\n/, replacement).replace('computeTerminated([this.x], [this.goal])', '(this.x === this.goal)');
  const plain = await loadEnvModule(write('plain.ts', without('')), {});
  const counted = await loadEnvModule(write('counted.ts', without('export function computeTerminated() { return 1; }\n')), {});
  const thrower = await loadEnvModule(write('throws-terminated.ts', without('export function computeTerminated() { throw new Error("never ends"); }\n')), {});
  try {
    const env = plain.create({});
    assert.ok(isGoalConditioned(env));
    assert.equal(env.computeTerminated, undefined, 'relabeled rows then keep their stored dones');
    const one = counted.create({});
    assert.ok(isGoalConditioned(one));
    assert.throws(() => one.computeTerminated?.([1], [1]), /counted\.ts: computeTerminated\(\) must return true or false; got 1/);
    const other = thrower.create({});
    assert.ok(isGoalConditioned(other));
    assert.throws(() => other.computeTerminated?.([1], [1]), /throws-terminated\.ts: computeTerminated\(\) threw: never ends/);
  } finally {
    plain.close();
    counted.close();
    thrower.close();
  }
  await assert.rejects(loadEnvModule(write('not-a-function.ts', without('export const computeTerminated = true;\n')), {}), /not-a-function\.ts: computeTerminated must be a function \(achieved, goal, info\) => boolean, or not exported; got true/);
});

test('a module that declares goals without a usable computeReward is refused, saying why', async () => {
  await assert.rejects(loadEnvModule(variant('none.ts', null), {}), /none\.ts: its spec declares goal and achieved, so it must export a pure function computeReward\(achieved, goal, info\)/);
  const nan = await loadEnvModule(variant('nan.ts', 'export function computeReward() { return NaN; }\n'), {});
  const thrower = await loadEnvModule(variant('throws.ts', 'export function computeReward() { throw new Error("no goals here"); }\n'), {});
  try {
    const env = nan.create({});
    assert.ok(isGoalConditioned(env));
    assert.throws(() => env.computeReward([1], [1]), /nan\.ts: computeReward\(\) must return a finite number; got null/);
    const other = thrower.create({});
    assert.ok(isGoalConditioned(other));
    assert.throws(() => other.computeReward([1], [1]), /throws\.ts: computeReward\(\) threw: no goals here/);
  } finally {
    nan.close();
    thrower.close();
  }
});

test('the spec names a goal and what was achieved among the observations, as many of each', () => {
  const spec = (extra: Record<string, unknown>) => envModuleSpec({ observations: ['x', 'y', 'gx', 'gy'], actions: 'discrete', ...extra });
  const ok = spec({ goal: ['gx', 'gy'], achieved: ['x', 'y'] });
  assert.ok('spec' in ok && moduleEnvSpec(ok.spec, './m.ts').goalConditioned === true);
  assert.ok('spec' in spec({}) && moduleEnvSpec((spec({}) as { spec: never }).spec, './m.ts').goalConditioned === undefined);
  assert.deepEqual(spec({ goal: ['gx'] }), { problem: 'a goal-conditioned spec names both goal and achieved (the observation numbers of the desired goal and of the achieved one); it has only goal' });
  assert.deepEqual(spec({ goal: ['gx', 'gz'], achieved: ['x', 'y'] }), { problem: "spec.goal names 'gz', which is not among spec.observations (x, y, gx, gy)" });
  assert.deepEqual(spec({ goal: ['gx', 'gy'], achieved: ['x'] }), { problem: 'spec.goal names 2 numbers and spec.achieved 1: a goal and what was achieved are compared number by number' });
});

test('its success feeds train.success and eval.success, and a stop condition on eval.success', async () => {
  const plan = {
    ...makePlan({ budget: 20_000, envs: 4, algorithmParams: { rollout_steps: 64 }, eval: { every: 1024, episodes: 10, deterministic: true }, stop: { op: '>=', args: [{ ref: 'eval.success' }, { const: 0.9 }] } }),
    env: { name: 'Reach', kind: 'module', module: './point-reach.ts', params: { length: 4, max_steps: 20 } },
  } as ReturnType<typeof makePlan>;
  const result = await train(plan, { out: tempDir(), envModule: example });
  const events = readEvents(path.join(result.runDir, 'events.jsonl'));
  const evals = events.filter((e) => e.type === 'eval');
  assert.ok(evals.length > 0 && evals.every((e) => typeof e.values['eval/success'] === 'number'));
  assert.ok(events.some((e) => e.type === 'metrics' && typeof e.values['train/success'] === 'number'));
  assert.ok(events.some((e) => e.type === 'episode' && typeof e.success === 'boolean'));
  assert.match(result.reason, /^stop condition eval\.success >= 0\.9 met \(eval\.success = (0\.9|1)\d*\)$/);
});
