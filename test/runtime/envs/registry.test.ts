import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { EnvParamError } from '../../../runtime/envs/params.js';
import { envInfo, envKinds, makeEnv, makeVecEnv, prepareEnvKind } from '../../../runtime/envs/registry.js';

const MUJOCO_KINDS = ['InvertedPendulum', 'InvertedDoublePendulum', 'HalfCheetah', 'Hopper', 'Walker2d', 'Swimmer', 'Ant', 'Reacher', 'Pusher', 'Humanoid'];
const KINDS = ['CartPole', 'CartPoleNoVel', 'MountainCar', 'Acrobot', 'Pendulum', 'GridWorld', 'Bandit', 'FreeSlots', 'Catch', ...MUJOCO_KINDS];

function paramError(param: string, message: RegExp) {
  return (error: unknown) => error instanceof EnvParamError && error.param === param && message.test(error.message);
}

describe('env registry', () => {
  before(async () => {
    for (const kind of MUJOCO_KINDS) await prepareEnvKind(kind);
  });

  it('offers the built-ins under the names the language uses', () => {
    assert.deepEqual(envKinds().sort(), KINDS.slice().sort());
    for (const kind of KINDS) {
      const env = makeEnv(kind, {});
      assert.equal(env.kind, kind);
      assert.doesNotThrow(() => env.reset(0));
    }
  });

  it('names the valid kinds, with a suggestion, for an unknown kind', () => {
    assert.throws(
      () => makeEnv('Cartpole', {}),
      /unknown environment kind "Cartpole" \(did you mean "CartPole"\?\); built-in kinds: CartPole, CartPoleNoVel, MountainCar, Acrobot, Pendulum, GridWorld, Bandit/,
    );
    assert.throws(() => envInfo('Nope'), /unknown environment kind "Nope"; built-in kinds:/);
    assert.throws(() => makeEnv('TextTask', {}), /environment kind "TextTask" is a text env: .* train it with SFT, GRPO or REINFORCE and a transformer policy/);
    assert.throws(() => makeEnv('GuessNumber', {}), /environment kind "GuessNumber" is a text env: its actions are text, not numbers; train it with SFT, GRPO or REINFORCE and a transformer policy/);
  });

  it('names the param and the valid ones for an unknown param', () => {
    assert.throws(
      () => makeEnv('CartPole', { max_step: 10 }),
      paramError('max_step', /CartPole: unknown param "max_step" \(did you mean "max_steps"\?\); valid params: max_steps, gravity, cart_mass/),
    );
    assert.throws(() => makeEnv('Bandit', { k: 3 }), paramError('k', /Bandit: unknown param "k"; valid params: arms, reward_std, max_steps$/));
  });

  it('names the param and what it must be for a bad value', () => {
    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      ['CartPole', { max_steps: 0 }, 'max_steps', /CartPole: param "max_steps" must be a whole number >= 1 and <= 1000000, got 0/],
      ['CartPole', { max_steps: 2.5 }, 'max_steps', /must be a whole number >= 1 and <= 1000000, got 2.5/],
      ['CartPole', { gravity: '9.8' }, 'gravity', /CartPole: param "gravity" must be a number > 0 and <= 100, got "9.8"/],
      ['CartPole', { pole_mass: 0 }, 'pole_mass', /must be a number > 0 and <= 100, got 0/],
      ['CartPole', { force: 0 }, 'force', /must be a number > 0 and <= 1000, got 0/],
      ['Pendulum', { g: Number.NaN }, 'g', /must be a number > 0 and <= 100, got NaN/],
      ['Acrobot', { dt: 0.1 }, 'dt', /Acrobot: unknown param "dt"; valid params: max_steps/],
      ['GridWorld', { layout: 'spiral' }, 'layout', /must be one of open, four_rooms, maze, got "spiral"/],
      ['GridWorld', { size: 103 }, 'size', /must be a whole number >= 5 and <= 101, got 103/],
      ['Bandit', { arms: 1 }, 'arms', /must be a whole number >= 2 and <= 1000, got 1/],
      ['GridWorld', { goal: null }, 'goal', /must be random, fixed\(x, y\)/],
      ['MountainCar', { max_steps: 'long' }, 'max_steps', /must be a whole number >= 1 and <= 1000000, got "long"/],
    ];
    for (const [kind, params, param, message] of cases) {
      assert.throws(() => makeEnv(kind, params), paramError(param, message), `${kind} ${JSON.stringify(params)}`);
    }
  });

  it('applies given params and treats undefined as the default', () => {
    const env = makeEnv('CartPole', { max_steps: 50, gravity: undefined });
    assert.equal(env.maxSteps, 50);
    assert.equal((env.config as { gravity: number }).gravity, 9.8);
  });

  it('describes each kind: obs fields, spaces, params with defaults', () => {
    const cartPole = envInfo('CartPole');
    assert.deepEqual(cartPole.obsFields, ['x', 'x_dot', 'theta', 'theta_dot']);
    assert.deepEqual(cartPole.actionSpace, { kind: 'discrete', n: 2 });
    assert.deepEqual(
      cartPole.params.map((param) => [param.name, param.default]),
      [
        ['max_steps', 500],
        ['gravity', 9.8],
        ['cart_mass', 1],
        ['pole_mass', 0.1],
        ['pole_half_length', 0.5],
        ['force', 10],
        ['tau', 0.02],
      ],
    );
    assert.deepEqual(envInfo('Pendulum').actionSpace, { kind: 'box', shape: [1], low: [-2], high: [2] });
    const defaults = (kind: string) => Object.fromEntries(envInfo(kind).params.map((param) => [param.name, param.default]));
    assert.equal(defaults('MountainCar').max_steps, 200);
    assert.equal(defaults('MountainCar').goal_velocity, 0);
    assert.equal(defaults('Acrobot').max_steps, 500);
    assert.equal(defaults('Pendulum').g, 10);
    assert.deepEqual(defaults('GridWorld'), { layout: 'open', size: 11, goal: 'random', max_steps: 100 });
    assert.deepEqual(envInfo('GridWorld').params.find((param) => param.name === 'layout')?.values, ['open', 'four_rooms', 'maze']);
    assert.deepEqual(defaults('Bandit'), { arms: 10, reward_std: 1, max_steps: 1 });
  });

  it('uses snake_case param names and plain-JSON descriptions', () => {
    for (const kind of KINDS) {
      const info = envInfo(kind);
      for (const param of info.params) {
        assert.match(param.name, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/, `${kind}.${param.name}`);
        assert.ok(param.doc.length > 0, `${kind}.${param.name} has a doc line`);
      }
      assert.deepEqual(JSON.parse(JSON.stringify(info)), info, `${kind}: JSON round trip`);
      // Bandit's constant observation, Catch's pixels and FreeSlots' slots (as many as its setting) have no field names.
      if (kind !== 'Bandit' && kind !== 'Catch' && kind !== 'FreeSlots') assert.equal(info.obsFields.length, info.observationSpace.kind === 'box' ? info.observationSpace.shape[0] : 1);
    }
  });

  it('builds vectorised copies by kind', () => {
    const vec = makeVecEnv('MountainCar', { max_steps: 10 }, 4);
    assert.equal(vec.numEnvs, 4);
    assert.equal(vec.obs.length, 8);
    assert.ok(vec.envs.every((env) => env.maxSteps === 10));
    assert.throws(() => makeVecEnv('MountainCar', { max_steps: -1 }, 4), /MountainCar: param "max_steps" must be a whole number >= 1 and <= 1000000, got -1/);
  });
});
