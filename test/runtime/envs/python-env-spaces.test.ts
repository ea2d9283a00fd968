// The spaces of gymnasium(...) envs (runtime/envs/python/worker.py): observations of Box (any
// numeric dtype, unbounded too), Discrete, MultiBinary, MultiDiscrete and Dict spaces reach the
// trainer as numbers, a Dict's in Gymnasium's order and named from its keys; Discrete, float
// Box and MultiBinary actions reach step() as the env takes them; every other space is refused,
// naming it. A goal
// env (achieved_goal, desired_goal, compute_reward) is goal-conditioned, and hindsight relabeling
// asks its worker for a whole batch's rewards at once, with the rewards computeReward gives.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ReplayBuffer, type ReplayBatch } from '../../../runtime/algorithms/replay/buffer.js';
import { createStoreScratch, stepAndStore } from '../../../runtime/algorithms/replay/collect.js';
import { goalLayout } from '../../../runtime/algorithms/replay/her.js';
import { Stepper } from '../../../runtime/algorithms/stepper.js';
import { PythonEnvs, type PythonEnvOptions } from '../../../runtime/envs/python/python-env.js';
import { isGoalConditioned } from '../../../runtime/envs/types.js';
import { VecEnv } from '../../../runtime/envs/vector.js';
import { Rng } from '../../../shared/random.js';
import { testPython } from '../../helpers/python.js';

const python = testPython();
const skip = python === null ? 'python3 with numpy is not available' : false;

function options(kwargs: Record<string, unknown>, id = 'RlxSpaces-v0'): PythonEnvOptions {
  return {
    name: 'Spaces', id, kwargs, imports: ['rlx_space_envs'], maxSteps: 50, timeoutSeconds: 20, copiesPerProcess: 4,
    python: python!.python, processEnv: python!.env,
  };
}

/** The env's first copy, given to `use`; the workers end after. */
function withCopy<T>(kwargs: Record<string, unknown>, use: (envs: PythonEnvs) => T, id?: string): T {
  const envs = new PythonEnvs(options(kwargs, id));
  try {
    return use(envs);
  } finally {
    envs.close();
  }
}

describe('observation spaces of gymnasium envs', { skip }, () => {
  // name: [numbers of the reset observation, low, high]
  const taken: Record<string, [number[], number[], number[]]> = {
    box: [[0.5, -0.25, 1], [-1, -1, -1], [1, 1, 1]],
    box2d: [[1, 2, 3, 4], [-1, -1, -1, -1], [1, 1, 1, 1]],
    unbounded: [[1e6, -3.5], [-Infinity, -Infinity], [Infinity, Infinity]],
    int_box: [[0, 7, 255], [0, 0, 0], [255, 255, 255]],
    discrete: [[4], [2], [6]],
    multibinary: [[1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1]],
    multidiscrete: [[2, 1], [0, 0], [2, 3]],
  };
  for (const [name, [numbers, low, high]] of Object.entries(taken)) {
    it(`${name}: the observation's numbers as they are, named x0, x1, ...`, () => {
      withCopy({ observation: name }, (envs) => {
        const copy = envs.create();
        assert.deepEqual(copy.reset(0).obs, numbers);
        assert.equal(copy.obsDim, numbers.length);
        assert.deepEqual(copy.obsFields, numbers.map((_, k) => `x${k}`));
        const space = copy.observationSpace;
        assert.equal(space.kind, 'box');
        if (space.kind === 'box') assert.deepEqual([space.low, space.high], [low, high]);
        assert.deepEqual(copy.step(1).obs, numbers, 'step() observations too');
      });
    });
  }

  it('a Dict: its keys in Gymnasium\'s order (a plain dict sorted), one-number keys by their name, others key_0, key_1, ...', () => {
    withCopy({ observation: 'dict' }, (envs) => {
      const copy = envs.create();
      assert.deepEqual(copy.obsFields, ['angle', 'bits_0', 'bits_1', 'bits_2', 'count', 'pos_0', 'pos_1']);
      assert.deepEqual(copy.reset(0).obs, [1.5, 1, 0, 1, 3, 0.5, -0.5]);
      const space = copy.observationSpace;
      assert.ok(space.kind === 'box');
      assert.deepEqual([space.shape, space.low, space.high], [[7], [-3, 0, 0, 0, 0, -1, -1], [3, 1, 1, 1, 4, 1, 1]]);
      assert.equal(isGoalConditioned(copy), false, 'no achieved_goal and desired_goal: not a goal env');
    });
  });

  it('an OrderedDict keeps its order, and the keys of a nested Dict are joined', () => {
    withCopy({ observation: 'ordered' }, (envs) => {
      const copy = envs.create();
      assert.deepEqual(copy.obsFields, ['z', 'a_b_0', 'a_b_1']);
      assert.deepEqual(copy.reset(0).obs, [0.25, 0.5, 0.75]);
    });
  });

  const refused: Record<string, RegExp> = {
    text: /the observation space is Text\(1, 8, .*\); rlx takes Box, Discrete, MultiBinary and MultiDiscrete observations, and Dict spaces of them/,
    tuple: /the observation space is Tuple\(Discrete\(2\), Discrete\(3\)\); rlx takes Box, Discrete/,
    sequence: /the observation space is Sequence\(Discrete\(2\), stack=False\); rlx takes/,
    graph: /the observation space is Graph\(Box\(0\.0, 1\.0, \(1,\), float32\), None\); rlx takes/,
    dict_text: /the observation space's key 'name' is Text\(1, 4, .*\); rlx takes/,
    // Issue 43, items 9 and 12: sizes said before anything is built from them.
    empty: /the observation space Box\(\[\], \[\], \(0,\), float32\) holds no numbers \(shape \(0,\)\); rlx takes observation spaces of at least one number/,
    huge: /the observation space Box\(.*\) holds 2,000,000 numbers; rlx takes observation spaces of at most 1,048,576 \(an image of 591 x 591 x 3\): downscale or crop it/,
    huge_dict: /the observation space Dict\(.*\) holds 1,100,001 numbers; rlx takes observation spaces of at most 1,048,576/,
  };
  for (const [name, message] of Object.entries(refused)) {
    it(`${name}: refused when the env starts, naming the space and what rlx takes`, () => {
      assert.throws(() => new PythonEnvs(options({ observation: name })), (err: Error) => {
        assert.match(err.message, /env Spaces \(gymnasium "RlxSpaces-v0"\): Python could not make the env:\n/);
        assert.match(err.message, message);
        assert.doesNotMatch(err.message, /Traceback|worker\.py/, 'rlx\'s own refusal, without the worker\'s traceback');
        return true;
      });
    });
  }
});

describe('action spaces of gymnasium envs', { skip }, () => {
  it('Discrete: action k is the space\'s start + k; a float Box: its numbers as float32 in the space\'s shape', () => {
    // The env's reward is the action it got (a Box action: its sum).
    withCopy({ action: 'discrete' }, (envs) => {
      const copy = envs.create();
      copy.reset(0);
      assert.equal(copy.step(2).reward, 2);
    });
    withCopy({ action: 'discrete_start' }, (envs) => {
      const copy = envs.create();
      assert.deepEqual(copy.actionSpace, { kind: 'discrete', n: 3 });
      copy.reset(0);
      assert.deepEqual([0, 1, 2].map((a) => copy.step(a).reward), [-1, 0, 1]);
    });
    withCopy({ action: 'box' }, (envs) => {
      const copy = envs.create();
      copy.reset(0);
      assert.equal(copy.step([0.25, 0.5]).reward, 0.75);
    });
  });

  it('MultiBinary: n bits, flattened; step() gets them as int8 in the space\'s shape, in order', () => {
    // The env's reward is the bits as a binary number (the first bit worth most), -1 for an
    // action that is not int8 in the space's shape.
    withCopy({ action: 'multibinary' }, (envs) => {
      const copy = envs.create();
      assert.deepEqual(copy.actionSpace, { kind: 'multibinary', n: 4 });
      assert.equal(copy.actionDim, 4);
      copy.reset(0);
      assert.equal(copy.step([1, 0, 1, 1]).reward, 0b1011);
      assert.equal(copy.step([0, 0, 0, 1]).reward, 0b0001);
    });
    withCopy({ action: 'multibinary2d' }, (envs) => {
      const copy = envs.create();
      assert.deepEqual(copy.actionSpace, { kind: 'multibinary', n: 4 });
      copy.reset(0);
      assert.equal(copy.step([0, 1, 1, 0]).reward, 0b0110, 'a 2x2 space takes the 4 bits in C order');
    });
  });

  it('MultiBinary: the vector env refuses an action that is not 0 or 1, naming the copy and the bit', () => {
    withCopy({ action: 'multibinary' }, (envs) => {
      const vec = VecEnv.create(() => envs.create(), 2);
      vec.reset(0);
      const actions = vec.createActionBuffer();
      assert.ok(actions instanceof Int32Array && actions.length === 8);
      actions.set([1, 0, 1, 1, 0, 0, 2, 0]);
      assert.throws(() => vec.step(actions), /action bit 2 for copy 1 must be 0 or 1, got 2/);
    });
  });

  const refused: Record<string, RegExp> = {
    multidiscrete: /the action space is MultiDiscrete\(\[2 3\]\); rlx takes Discrete actions, Box actions of float32\/float64 and MultiBinary actions \(a policy over MultiDiscrete actions needs a categorical head per element, which rlx does not have\): wrap the env/,
    int_box: /the action space Box\(0, 3, \(2,\), int64\) has dtype int64; rlx takes Discrete actions, Box actions of float32\/float64 and MultiBinary actions/,
    text: /the action space is Text\(1, 4, .*\); rlx takes Discrete actions, Box actions/,
    tuple: /the action space is Tuple\(Discrete\(2\)\); rlx takes Discrete actions, Box actions/,
    huge_discrete: /the action space Discrete\(1099511627776\) has 1,099,511,627,776 actions; rlx takes Discrete actions of 1 to 65,536 choices/,
    empty_box: /the action space Box\(\[\], \[\], \(0,\), float32\) holds no numbers \(shape \(0,\)\); rlx takes action spaces of at least one number/,
  };
  for (const [name, message] of Object.entries(refused)) {
    it(`${name}: refused when the env starts, naming the space and what rlx takes`, () => {
      assert.throws(() => new PythonEnvs(options({ action: name })), (err: Error) => {
        assert.match(err.message, message);
        assert.doesNotMatch(err.message, /Traceback|worker\.py/);
        return true;
      });
    });
  }
});

describe('a gymnasium goal env (achieved_goal, desired_goal, compute_reward)', { skip }, () => {
  it('is goal-conditioned: goals by observation name, compute_reward and compute_terminated per pair and per batch, is_success as success', () => {
    withCopy({}, (envs) => {
      const copy = envs.create();
      assert.ok(isGoalConditioned(copy));
      assert.deepEqual(copy.obsFields, ['achieved_goal', 'desired_goal', 'observation']);
      assert.deepEqual([copy.achievedFields, copy.goalFields], [['achieved_goal'], ['desired_goal']]);
      assert.equal(copy.computeReward([3], [3]), 0);
      assert.equal(copy.computeReward([0], [3]), -1);
      assert.equal(copy.computeTerminated?.([3], [3]), true);
      assert.equal(copy.computeTerminated?.([2], [3]), false);
      const outcomes = copy.computeRewards!(Float32Array.of(0, 3, 5, 9), Float32Array.of(3, 3, 3, 9), 4, 1);
      assert.deepEqual([Array.from(outcomes.rewards), outcomes.terminated], [[-1, 0, -1, 0], [false, true, false, true]]);
      assert.throws(() => copy.computeReward([1, 2], [3, 4]), /goals of 2 numbers asked for, but the env's goals have 1/);
      assert.equal(copy.computeReward([3], [3]), 0, 'the pipe is still in step');
      // Episodes: x from 0 to the goal at 3 (terminated, with is_success).
      copy.reset(0);
      const steps = [1, 1, 1].map((a) => copy.step(a));
      assert.deepEqual(steps.map((s) => [s.reward, s.terminated]), [[-1, false], [-1, false], [0, true]]);
      assert.equal(copy.success, true);
      copy.reset(0);
      copy.step(1);
      assert.equal(copy.success, false, 'success is the last step\'s is_success');
    }, 'RlxGoal-v0');
  });

  it('a compute_reward that is not vectorised is called per row, with the same rewards; no compute_terminated: no computeTerminated', () => {
    withCopy({ vectorised: false, terminates: false }, (envs) => {
      const copy = envs.create();
      assert.ok(isGoalConditioned(copy));
      assert.equal(copy.computeTerminated, undefined, 'relabeled rows then keep their stored dones');
      const outcomes = copy.computeRewards!(Float32Array.of(0, 3, 5, 9), Float32Array.of(3, 3, 3, 9), 4, 1);
      assert.deepEqual([Array.from(outcomes.rewards), outcomes.terminated], [[-1, 0, -1, 0], null]);
    }, 'RlxGoal-v0');
  });

  it('goals of two sizes are refused, saying why', () => {
    assert.throws(() => new PythonEnvs(options({ desired_size: 2 }, 'RlxGoal-v0')),
      /the observation space's achieved_goal holds 1 number and its desired_goal 2 numbers; a goal env compares them number by number, so they must have the same shape/);
  });

  it('relabeling asks the worker once per batch, and the batch is the one a call per row gives', () => {
    withCopy({}, (envs) => {
      const vec = VecEnv.create(() => envs.create(), 2);
      const stepper = new Stepper(vec, null);
      stepper.reset(3);
      const env = vec.envs[0]!;
      assert.ok(isGoalConditioned(env));
      const batched = goalLayout(vec.obsFields, env);
      const perRow = { ...batched, computeRewards: null };
      const relabel = { strategy: 'future', k: 4 } as const;
      const make = (goals: typeof batched) => new ReplayBuffer({ capacity: 500, numEnvs: 2, obsDim: 3, actionWidth: 1, relabel, goals });
      const [a, b] = [make(batched), make(perRow)];
      const scratch = createStoreScratch(stepper);
      const actions = vec.createActionBuffer();
      const rng = new Rng(4);
      for (let t = 0; t < 200; t++) {
        for (let i = 0; i < 2; i++) actions[i] = rng.int(2) === 0 ? 1 : rng.int(2);
        stepAndStore(stepper, a, actions, scratch);
        b.add(scratch.obs, actions, stepper.rewards, scratch.nextObs, vec.terminated, vec.truncated);
      }
      const sample = (buffer: ReplayBuffer): ReplayBatch => {
        const batch = buffer.createBatch(256);
        buffer.sample(256, new Rng(8), batch);
        return batch;
      };
      const [viaBatch, viaRows] = [sample(a), sample(b)];
      assert.deepEqual(viaBatch, viaRows);
      const relabeled = Math.floor(0.8 * 256);
      const reached = Array.from(viaBatch.rewards.subarray(256 - relabeled)).filter((r) => r === 0).length;
      assert.ok(reached > 10, `relabeled goals are reached (${reached} of ${relabeled})`);
    }, 'RlxGoal-v0');
  });
});
