// curriculum { }: the values it takes, the plans the trainer refuses, and short PPO runs whose
// curriculum advances: events, status.json, the env copies' new value, rollout headers, resume.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import type { Plan, PlanExpr } from '../../../dsl/compile/plan.js';
import type { GridWorld } from '../../../runtime/envs/grid-world.js';
import { openRunEnvs } from '../../../runtime/envs/run-envs.js';
import { loadCheckpoint } from '../../../runtime/run/checkpoint.js';
import { readEvents, type CurriculumEvent, type EpisodeEvent, type RunEvent } from '../../../runtime/run/events.js';
import { PlanError, resume, train } from '../../../runtime/train.js';
import { Curriculum, curriculumProblems } from '../../../runtime/curriculum.js';
import { makePlan, tempDir, type PlanOptions } from '../helpers.js';

const ALWAYS: PlanExpr = { op: '>=', args: [{ ref: 'steps' }, { const: 0 }] };

function withCurriculum(options: PlanOptions, curriculum: Plan['curriculum']): Plan {
  return { ...makePlan(options), curriculum };
}

const curriculumEvents = (events: RunEvent[]) => events.filter((e): e is CurriculumEvent & { time: number } => e.type === 'curriculum');
const status = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'status.json'), 'utf8'));

describe('Curriculum', () => {
  it('walks from `from` to `to` one step at a time, never past it, up or down', () => {
    const of = (c: Omit<NonNullable<Plan['curriculum']>, 'advance'>, env = 'GridWorld') => Curriculum.of(withCurriculum({ env }, { ...c, advance: ALWAYS }))!.values();
    assert.deepEqual(of({ param: 'env.size', from: 5, to: 11, step: 2 }), [5, 7, 9, 11]);
    assert.deepEqual(of({ param: 'env.size', from: 5, to: 10, step: 2 }), [5, 7, 9, 10]);
    assert.deepEqual(of({ param: 'env.size', from: 11, to: 5, step: 3 }), [11, 8, 5]);
    assert.deepEqual(of({ param: 'env.gravity', from: 0.1, to: 0.4, step: 0.1 }, 'CartPole'), [0.1, 0.2, 0.3, 0.4]);
  });

  it('refuses, with what to do, what it cannot move', () => {
    const problems = (options: PlanOptions, c: Partial<NonNullable<Plan['curriculum']>>, text?: boolean) =>
      curriculumProblems(withCurriculum(options, { param: 'env.size', from: 5, to: 9, step: 1, advance: ALWAYS, ...c }), text ?? false);
    assert.deepEqual(problems({ env: 'GridWorld' }, {}), []);
    assert.deepEqual(problems({ env: 'CartPole' }, {}), ['curriculum param env.size: CartPole has no parameter size (it has max_steps, gravity, cart_mass, pole_mass, pole_half_length, force, tau)']);
    assert.deepEqual(problems({ env: 'GridWorld' }, { param: 'policy.hidden' }), ['curriculum param must be an env parameter such as env.size, got policy.hidden']);
    assert.deepEqual(problems({ env: 'GuessNumber' }, { param: 'env.high' }, true), ['a curriculum moves a parameter of an observation env; env E is a text task']);
    assert.deepEqual(problems({ env: 'Bandit' }, { param: 'env.arms' }), ["curriculum param env.arms changes the size of Bandit's observations or actions: a curriculum cannot move it"]);
    assert.deepEqual(problems({ env: 'GridWorld' }, { step: 1.5 }), ['curriculum param env.size is a whole number: from, to and step must be whole numbers (got 5, 9, 1.5)']);
    assert.deepEqual(problems({ env: 'GridWorld' }, { to: 200 }), ['curriculum env.size = 102: GridWorld: param "size" must be a whole number >= 5 and <= 101, got 102']);
    // Every value the curriculum reaches must make a valid env: a fixed goal outside the smaller grids.
    assert.deepEqual(problems({ env: 'GridWorld', envParams: { goal: { kind: 'fixed', x: 8, y: 8 } } }, { from: 7, to: 11, step: 2 }),
      ['curriculum env.size = 7: GridWorld: param "goal" fixed(8, 8) is outside the 7x7 grid (coordinates run from 0 to 6)']);
  });
});

describe('a run with a curriculum', () => {
  it('advances after each update without evaluations: events, status.json, longer episodes, and a resume continues at its value', async () => {
    // CartPole's max_steps from 10 to 30: episodes of a random policy often last longer than 10 steps.
    const plan = withCurriculum({ budget: 3072, envs: 4, algorithmParams: { rollout_steps: 64 } }, { param: 'env.max_steps', from: 10, to: 30, step: 10, advance: ALWAYS });
    const out = tempDir();
    const controller = new AbortController();
    const first = await train(plan, { out, signal: controller.signal, checkpointEvery: 256, onProgress: (p) => p.step >= 256 && controller.abort() });
    assert.equal(first.status, 'stopped');
    const dir = first.runDir;
    let events = readEvents(path.join(dir, 'events.jsonl'));
    assert.deepEqual(curriculumEvents(events).map((e) => [e.step, e.param, e.previous, e.value]), [[256, 'env.max_steps', 10, 20]]);
    assert.match(curriculumEvents(events)[0].message, /^curriculum: env.max_steps 10 -> 20 at step 256 \(steps >= 0: steps = 256\); each env copy takes the new value at the end of its episode in flight$/);
    assert.deepEqual(status(dir).curriculum, { param: 'env.max_steps', value: 20, from: 10, to: 30 });
    const episodes = events.filter((e): e is EpisodeEvent & { time: number } => e.type === 'episode');
    assert.ok(episodes.length > 0 && episodes.every((e) => e.length <= 10), 'before the advance every episode is cut at 10 steps');
    assert.equal(loadCheckpoint(path.join(dir, 'checkpoints/state-256.json')).trainer.curriculum, 20);

    const second = await resume(dir);
    assert.equal(second.status, 'finished');
    events = readEvents(path.join(dir, 'events.jsonl'));
    // The resumed run starts at 20 (its checkpoint's value) and moves to 30, the last value, at its first update.
    assert.deepEqual(curriculumEvents(events).map((e) => [e.step, e.previous, e.value]), [[256, 10, 20], [512, 20, 30]]);
    assert.match(curriculumEvents(events)[1].message, /the curriculum has reached its last value$/);
    assert.deepEqual(status(dir).curriculum, { param: 'env.max_steps', value: 30, from: 10, to: 30 });
    const later = events.filter((e): e is EpisodeEvent & { time: number } => e.type === 'episode' && e.step > 1024);
    assert.ok(later.some((e) => e.length > 20) && later.every((e) => e.length <= 30), 'episodes now run to 30 steps at most');
  });

  it('tests `advance` after each evaluation, and the rollouts say which size the episode ran on (GridWorld)', async () => {
    const advance: PlanExpr = { op: '>=', args: [{ ref: 'eval.mean_length' }, { const: 0 }] };
    const plan = withCurriculum(
      { env: 'GridWorld', budget: 2048, envs: 4, algorithmParams: { rollout_steps: 64 }, eval: { every: 512, episodes: 4, deterministic: true } },
      { param: 'env.size', from: 5, to: 9, step: 2, advance },
    );
    const result = await train(plan, { out: tempDir(), rolloutEvery: 256 });
    const events = readEvents(path.join(result.runDir, 'events.jsonl'));
    const evalSteps = events.filter((e) => e.type === 'eval').map((e) => e.step);
    assert.deepEqual(curriculumEvents(events).map((e) => [e.step, e.value]), [[512, 7], [1024, 9]]);
    assert.ok(curriculumEvents(events).every((e) => evalSteps.includes(e.step)));
    const sizes = fs.readdirSync(path.join(result.runDir, 'rollouts')).map((file) => {
      const header = JSON.parse(fs.readFileSync(path.join(result.runDir, 'rollouts', file), 'utf8').split('\n')[0]);
      return [header.step, header.env_params.size] as [number, number];
    }).sort((a, b) => a[0] - b[0]);
    // A recording armed at a step starts with copy 0's next episode, which may begin after a later advance.
    assert.equal(sizes[0][1], 5);
    assert.equal(sizes[sizes.length - 1][1], 9);
    for (let i = 1; i < sizes.length; i++) assert.ok(sizes[i][1] >= sizes[i - 1][1], `the sizes of the recorded episodes only grow: ${JSON.stringify(sizes)}`);
    for (const [step, size] of sizes) assert.ok(size >= (step < 512 ? 5 : step < 1024 ? 7 : 9), `the episode recorded from step ${step} ran on size ${size}`);
    // rlx eval judges the policy on the size the run ended on, and a checkpoint's policy on the size it was training on.
    const envs = await openRunEnvs(result.runDir, plan, 1);
    assert.equal((envs.vec.envs[0] as GridWorld).size, 9);
    const checkpoints = path.join(result.runDir, 'checkpoints');
    const policySteps = fs.readdirSync(checkpoints).flatMap((f) => /^policy-(\d+)\.onnx$/.exec(f)?.[1] ?? []).map(Number).filter((step) => step % 512 !== 0);
    assert.ok(policySteps.some((step) => step < 512) && policySteps.some((step) => step > 512 && step < 1024), `checkpoints before and between the advances: ${policySteps}`);
    for (const step of policySteps) {
      const atCheckpoint = await openRunEnvs(result.runDir, plan, 1, undefined, path.join(checkpoints, `policy-${step}.onnx`));
      assert.equal((atCheckpoint.vec.envs[0] as GridWorld).size, step < 512 ? 5 : step < 1024 ? 7 : 9, `the policy saved at step ${step}`);
    }
  });

  it('refuses a plan whose curriculum cannot run, before creating anything', async () => {
    const out = tempDir();
    const plan = withCurriculum({}, { param: 'env.size', from: 5, to: 9, step: 1, advance: ALWAYS });
    await assert.rejects(train(plan, { out }), (err: unknown) => err instanceof PlanError && /CartPole has no parameter size/.test(err.message));
    assert.deepEqual(fs.readdirSync(out), []);
  });
});
