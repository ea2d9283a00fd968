// Reward terms: compiled from the plan's expressions, evaluated per transition, summed per
// episode by the Stepper; errors name the reward, the term and the bad name.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { PlanExpr, PlanReward } from '../../../dsl/compile/plan.js';
import { Stepper } from '../../../runtime/algorithms/stepper.js';
import { makeVecEnv } from '../../../runtime/envs/registry.js';
import { compileReward, type RewardEnv } from '../../../runtime/rewards/index.js';

const C = (value: number | boolean): PlanExpr => ({ const: value });
const R = (ref: string): PlanExpr => ({ ref });
const op = (o: '+' | '-' | '*' | '/' | '^' | '==' | '!=' | '<' | '<=' | '>' | '>=' | 'and' | 'or', a: PlanExpr, b: PlanExpr): PlanExpr => ({ op: o, args: [a, b] });
const call = (name: string, ...args: PlanExpr[]): PlanExpr => ({ call: name, args });

const CARTPOLE: RewardEnv = { kind: 'CartPole', obsFields: ['x', 'x_dot', 'theta', 'theta_dot'], actionSpace: { kind: 'discrete', n: 2 } };

function reward(terms: Record<string, PlanExpr>, replace = false): PlanReward {
  return { name: 'Shaped', replace_env_reward: replace, terms: Object.entries(terms).map(([name, expr]) => ({ name, expr })) };
}

describe('reward terms', () => {
  it('evaluates each term over the named fields and returns their sum', () => {
    const compiled = compileReward(
      reward({
        alive: C(1),
        centre: op('*', C(-0.05), call('abs', R('obs.x'))),
        tilt: op('*', C(-0.1), call('abs', R('next_obs.theta'))),
        pushed_right: op('==', R('action'), C(1)),
        late: call('if', op('and', op('>=', R('t'), C(10)), { op: 'not', args: [R('terminated')] }), C(2), C(0)),
      }),
      CARTPOLE,
    );
    const c = compiled.context;
    c.obs.set([-2, 0, 0.1, 0]);
    c.nextObs.set([-2, 0, -0.25, 0]);
    c.action[0] = 1;
    c.t = 12;
    const sum = compiled.evaluate();
    const expected = [1, -0.1, -0.025, 1, 2];
    expected.forEach((v, i) => assert.ok(Math.abs(compiled.values[i] - v) < 1e-7, `${compiled.termNames[i]}: ${compiled.values[i]} vs ${v}`));
    assert.ok(Math.abs(sum - expected.reduce((a, b) => a + b)) < 1e-7);
    c.terminated = 1;
    compiled.evaluate();
    assert.equal(compiled.values[4], 0, 'booleans count as 0/1');
  });

  it('has the functions of the language', () => {
    const value = (expr: PlanExpr, setup?: (c: ReturnType<typeof compileReward>['context']) => void) => {
      const compiled = compileReward(reward({ v: expr }), CARTPOLE);
      setup?.(compiled.context);
      return compiled.evaluate();
    };
    assert.equal(value(call('sqrt', C(16))), 4);
    assert.equal(value(call('exp', C(0))), 1);
    assert.equal(value(call('log', C(1))), 0);
    assert.equal(value(call('min', C(3), C(-1), C(2))), -1);
    assert.equal(value(call('max', C(3), C(-1), C(2))), 3);
    assert.equal(value(call('clip', C(5), C(-1), C(2))), 2);
    assert.equal(value(op('^', C(2), C(10))), 1024);
    assert.equal(value({ op: 'neg', args: [op('-', C(1), C(3))] }), 2);
    assert.equal(value(op('or', C(false), op('<', C(1), C(2)))), 1);
    assert.equal(value(op('!=', C(1), C(1))), 0);
    assert.equal(value(call('norm', { list: [C(3), C(4)] })), 5);
    assert.equal(value(call('dist', R('obs'), R('next_obs')), (c) => {
      c.obs.set([0, 0, 0, 0]);
      c.nextObs.set([1, 1, 1, 1]);
    }), 2);
  });

  it('gives goal-conditioned envs goal and achieved (after the step)', () => {
    const grid: RewardEnv = {
      kind: 'GridWorld',
      obsFields: ['x', 'y', 'goal_x', 'goal_y'],
      actionSpace: { kind: 'discrete', n: 4 },
      goalFields: ['goal_x', 'goal_y'],
      achievedFields: ['x', 'y'],
    };
    const compiled = compileReward(reward({ closer: op('*', C(-1), call('dist', R('achieved'), R('goal'))) }), grid);
    compiled.context.nextObs.set([1, 1, 4, 5]);
    assert.equal(compiled.evaluate(), -5);
  });

  it('names the reward, the term and what is wrong', () => {
    const fails = (terms: Record<string, PlanExpr>, env: RewardEnv, message: RegExp) => assert.throws(() => compileReward(reward(terms), env), message);
    fails({ tilt: R('obs.thta') }, CARTPOLE, /reward Shaped, term tilt: CartPole has no observation field "thta" \(in obs.thta\); its fields are x, x_dot, theta, theta_dot/);
    fails({ g: R('goal') }, CARTPOLE, /term g: "goal" needs a goal-conditioned env; CartPole is not one/);
    fails({ n: R('obs') }, CARTPOLE, /term n: expected a number, got a vector of 4 \(use norm\(\) or dist\(\)\)/);
    fails({ e: call('exact', R('completion'), R('target')) }, CARTPOLE, /term e: exact\(\): text verifiers need a text environment/);
    fails({ p: R('prompt') }, CARTPOLE, /term p: "prompt": only text envs have a prompt/);
    fails({ s: C(1 as number), q: call('abs', C(1), C(2)) }, CARTPOLE, /term q: abs\(\) takes 1 argument\(s\), got 2/);
  });

  it('info.NAME reads what the env reports; a name it does not report fails before training, as a RewardError', () => {
    const compiled = compileReward(reward({ far: op('*', C(-1), R('info.left')), won: R('info.success') }), CARTPOLE);
    assert.deepEqual(compiled.infoNames, ['left', 'success']);
    compiled.bindInfo({ kind: 'Walk', infoFields: ['success', 'left', 'other'] });
    compiled.readInfo(Float64Array.from([0, 3, 9, 1, 0, 9]), 1); // copy 1's row: success 1, left 0
    compiled.evaluate();
    assert.deepEqual([...compiled.values], [-0, 1]);
    compiled.readInfo(Float64Array.from([0, 3, 9, 1, 0, 9]), 0);
    compiled.evaluate();
    assert.deepEqual([...compiled.values], [-3, 0]);
    // CartPole reports nothing: the Stepper binds the reward to the env and refuses it.
    const turns = compileReward(reward({ i: R('info.turns') }), CARTPOLE);
    assert.throws(() => new Stepper(makeVecEnv('CartPole', {}, 1), turns), (err: Error) => err.name === 'RewardError'
      && /^reward Shaped: env CartPole reports no info value "turns" \(info\.turns\); it reports none/.test(err.message));
    assert.throws(() => compileReward(reward({ t: R('obs.thta') }), CARTPOLE), (err: Error) => err.name === 'RewardError', 'a user error, not an internal one');
  });

  it('compiles to plain JS: no tree walk at run time', () => {
    const compiled = compileReward(reward({ centre: op('*', C(-0.05), call('abs', R('obs.x'))) }), CARTPOLE);
    assert.match(compiled.source, /v = \(\(-0\.05\) \* Math\.abs\(c\.obs\[0\]\)\);/);
  });
});

describe('the Stepper with reward terms', () => {
  it('replaces (or adds to) the env reward and sums each term per episode', () => {
    const terms = { alive: C(1), centre: op('*', C(-1), call('abs', R('next_obs.x'))), last: R('terminated') };
    for (const replace of [true, false]) {
      const vec = makeVecEnv('CartPole', { max_steps: 5 }, 2);
      const compiled = compileReward(reward(terms, replace), CARTPOLE);
      const stepper = new Stepper(vec, compiled);
      stepper.reset(3);
      let sumX = 0;
      const total = [0, 0];
      for (let t = 0; t < 5; t++) {
        stepper.step(new Int32Array([1, 0]));
        // On the last step the next observation is the final one, kept in finalObs.
        sumX += Math.abs((t === 4 ? vec.finalObs : vec.obs)[0]);
        for (let i = 0; i < 2; i++) total[i] += stepper.rewards[i];
      }
      const episodes = stepper.takeEpisodes();
      assert.equal(episodes.length, 2);
      const e = episodes[0];
      assert.equal(e.return, 5, "the env's own return");
      assert.equal(e.terms!.alive, 5);
      assert.ok(Math.abs(e.terms!.centre + sumX) < 1e-6, `centre ${e.terms!.centre} vs ${-sumX}`);
      assert.equal(e.terms!.last, 0, 'truncated, not terminated');
      const shaped = 5 + e.terms!.centre;
      assert.ok(Math.abs(e.trainingReturn! - (replace ? shaped : 5 + shaped)) < 1e-5, `${replace}: ${e.trainingReturn}`);
      assert.ok(Math.abs(total[0] - e.trainingReturn!) < 1e-4, 'the per-step rewards sum to the training return');
    }
  });
});
