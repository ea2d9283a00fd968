// Behaviour of the classic-control envs beyond the reference trajectories:
// reset distributions, seeding, float32 observations, time limits, action
// checks and the edge cases of each env's rules.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Acrobot } from '../../../runtime/envs/acrobot.js';
import type { BaseEnv } from '../../../runtime/envs/base.js';
import { CartPole } from '../../../runtime/envs/cartpole.js';
import { MountainCar } from '../../../runtime/envs/mountain-car.js';
import { normalizeAngle, Pendulum } from '../../../runtime/envs/pendulum.js';

interface ResetCheck {
  make: (params?: { max_steps?: number }) => BaseEnv;
  /** Checks one initial state; returns a complaint or undefined. */
  check: (state: number[]) => string | undefined;
  obsFields: string[];
}

const within = (value: number, low: number, high: number): boolean => value >= low && value <= high;

const CLASSIC: Record<string, ResetCheck> = {
  CartPole: {
    make: (params) => new CartPole(params),
    check: (s) => (s.every((value) => within(value, -0.05, 0.05)) ? undefined : 'each value in [-0.05, 0.05]'),
    obsFields: ['x', 'x_dot', 'theta', 'theta_dot'],
  },
  MountainCar: {
    make: (params) => new MountainCar(params),
    check: ([position, velocity]) => (within(position, -0.6, -0.4) && velocity === 0 ? undefined : 'position in [-0.6, -0.4], velocity 0'),
    obsFields: ['position', 'velocity'],
  },
  Acrobot: {
    make: (params) => new Acrobot(params),
    check: (s) =>
      s.every((value) => within(value, -0.1, 0.1) && Math.fround(value) === value) ? undefined : 'each value in [-0.1, 0.1], a float32',
    obsFields: ['cos_theta1', 'sin_theta1', 'cos_theta2', 'sin_theta2', 'dtheta1', 'dtheta2'],
  },
  Pendulum: {
    make: (params) => new Pendulum(params),
    check: ([theta, thetaDot]) => (within(theta, -Math.PI, Math.PI) && within(thetaDot, -1, 1) ? undefined : 'theta in [-pi, pi], theta_dot in [-1, 1]'),
    obsFields: ['cos_theta', 'sin_theta', 'theta_dot'],
  },
};

/** A valid action for the env, varying with t. */
function someAction(env: BaseEnv, t: number): number | number[] {
  const space = env.actionSpace;
  return space.kind === 'discrete' ? t % space.n : [Math.sin(t) * 2];
}

describe('classic-control envs', () => {
  for (const [kind, spec] of Object.entries(CLASSIC)) {
    describe(kind, () => {
      it('names its observation fields and sizes its spaces to match', () => {
        const env = spec.make();
        assert.equal(env.kind, kind);
        assert.deepEqual(env.obsFields, spec.obsFields);
        assert.equal(env.observationSpace.kind, 'box');
        if (env.observationSpace.kind === 'box') {
          assert.deepEqual(env.observationSpace.shape, [spec.obsFields.length]);
          assert.equal(env.observationSpace.low.length, spec.obsFields.length);
        }
      });

      it('draws initial states from Gymnasium\'s reset distribution', () => {
        const env = spec.make();
        const seen = new Set<string>();
        for (let seed = 0; seed < 300; seed++) {
          env.reset(seed);
          const state = env.getState();
          const complaint = spec.check(state);
          assert.equal(complaint, undefined, `seed ${seed}: state [${state.join(', ')}] breaks "${complaint}"`);
          seen.add(state.join(','));
        }
        assert.equal(seen.size, 300, 'different seeds give different starts');
      });

      it('is deterministic for a seed, and an unseeded reset continues the stream', () => {
        const run = (env: BaseEnv) => {
          const trace = [Array.from(env.reset(123).obs)];
          for (let t = 0; t < 30; t++) trace.push(Array.from(env.step(someAction(env, t)).obs));
          trace.push(Array.from(env.reset().obs));
          return trace;
        };
        assert.deepEqual(run(spec.make()), run(spec.make()));
        const env = spec.make();
        const first = Array.from(env.reset(123).obs);
        assert.notDeepEqual(Array.from(env.reset().obs), first);
        assert.doesNotThrow(() => spec.make().reset(), 'a never-seeded env still resets');
      });

      it('returns observations rounded to float32 while the state stays float64', () => {
        const env = spec.make();
        env.reset(4);
        let stateHasMoreThanFloat32 = false;
        for (let t = 0; t < 20; t++) {
          const { obs } = env.step(someAction(env, t));
          assert.ok(obs instanceof Float64Array);
          for (const value of obs) assert.equal(Math.fround(value), value);
          if (env.getState().some((value) => Math.fround(value) !== value)) stateHasMoreThanFloat32 = true;
        }
        assert.ok(stateHasMoreThanFloat32);
      });

      it('refuses to step before reset or setState', () => {
        const env = spec.make();
        assert.throws(() => env.step(someAction(env, 0)), new RegExp(`^Error: ${kind}: step before reset; call reset\\(\\) or setState\\(\\) first`));
      });

      it('truncates at max_steps and counts elapsed steps', () => {
        const env = spec.make({ max_steps: 10 });
        assert.equal(env.maxSteps, 10);
        // Start at rest in the middle, where ten steps cannot end any of these tasks.
        env.setState(env.stateLayout.map(() => 0));
        for (let t = 1; t <= 10; t++) {
          const result = env.step(someAction(env, t));
          assert.equal(env.elapsedSteps, t);
          assert.equal(result.terminated, false, `t=${t}`);
          assert.equal(result.truncated, t === 10, `t=${t}`);
        }
        assert.equal(spec.make().maxSteps, { CartPole: 500, MountainCar: 200, Acrobot: 500, Pendulum: 200 }[kind]);
      });

      it('rejects a state of the wrong length', () => {
        const env = spec.make();
        assert.throws(() => env.setState([0]), new RegExp(`${kind}: setState expects ${env.stateLayout.length} finite numbers`));
        assert.throws(() => env.setState(env.stateLayout.map(() => Number.NaN)), /finite numbers/);
      });
    });
  }

  describe('CartPole', () => {
    it('terminates when the pole passes 12 degrees, paying 1 for that step and 0 for steps after it', () => {
      const env = new CartPole();
      const threshold = (12 * 2 * Math.PI) / 360;
      env.setState([0, 0, threshold - 1e-6, 1]);
      const fall = env.step(1);
      assert.equal(fall.terminated, true);
      assert.equal(fall.reward, 1);
      const after = env.step(1);
      assert.equal(after.reward, 0, 'Gymnasium pays 0 once the episode is over');
      env.setState([0, 0, 0, 0]);
      assert.equal(env.step(1).reward, 1, 'setState starts a new episode');
    });

    it('terminates when the cart leaves |x| <= 2.4', () => {
      const env = new CartPole();
      env.setState([2.4 - 1e-4, 1, 0, 0]);
      assert.equal(env.step(1).terminated, true);
      env.setState([-2.3, 0, 0, 0]);
      assert.equal(env.step(0).terminated, false);
    });

    it('can truncate and terminate on the same step', () => {
      const env = new CartPole({ max_steps: 1 });
      env.setState([0, 0, 0.2094, 2]);
      const result = env.step(1);
      assert.equal(result.terminated, true);
      assert.equal(result.truncated, true);
    });

    it('applies its physical params', () => {
      const stepFrom = (params: ConstructorParameters<typeof CartPole>[0]) => {
        const env = new CartPole(params);
        env.setState([0, 0.5, 0.05, 0.5]);
        env.step(1);
        return env.getState();
      };
      const base = stepFrom({});
      assert.notDeepEqual(stepFrom({ gravity: 20 }), base);
      assert.notDeepEqual(stepFrom({ force: 20 }), base);
      // Euler moves x by the old velocity: x' = 0 + 0.02 * 0.5.
      assert.equal(base[0], 0.02 * 0.5);
    });

    it('rejects actions other than 0 and 1', () => {
      const env = new CartPole();
      env.reset(0);
      for (const action of [2, -1, 0.5]) assert.throws(() => env.step(action), /CartPole: action must be an integer in \[0, 1\]/);
      assert.throws(() => env.step([0, 1]), /CartPole: action must have 1 number\(s\), got 2/);
      assert.doesNotThrow(() => env.step([1]));
    });
  });

  describe('MountainCar', () => {
    it('stops the car dead against the left wall', () => {
      const env = new MountainCar();
      env.setState([-1.19, -0.05]);
      env.step(0);
      assert.deepEqual(env.getState(), [-1.2, 0]);
    });

    it('clips the velocity to max_speed', () => {
      const env = new MountainCar();
      env.setState([-0.5, 0.07]);
      env.step(2);
      assert.equal(env.getState()[1], 0.07);
    });

    it('terminates at the flag, still paying -1', () => {
      const env = new MountainCar();
      env.setState([0.49, 0.02]);
      const result = env.step(2);
      assert.equal(result.terminated, true);
      assert.equal(result.reward, -1);
      const slow = new MountainCar({ goal_velocity: 0.05 });
      slow.setState([0.49, 0.02]);
      assert.equal(slow.step(2).terminated, false, 'goal_velocity raises the bar');
    });
  });

  describe('Acrobot', () => {
    it('terminates, paying 0, once the tip is above the line', () => {
      const env = new Acrobot();
      env.setState([Math.PI, 0, 0, 0]); // fully upright
      const result = env.step(1);
      assert.equal(result.terminated, true);
      assert.equal(result.reward, 0);
      env.setState([0, 0, 0, 0]); // hanging down
      const hanging = env.step(1);
      assert.equal(hanging.terminated, false);
      assert.equal(hanging.reward, -1);
    });

    it('wraps angles into [-pi, pi] and clips velocities to 4 pi and 9 pi', () => {
      const env = new Acrobot();
      env.setState([3.1, -3.1, 50, -50]);
      env.step(2);
      const [theta1, theta2, velocity1, velocity2] = env.getState();
      assert.ok(within(theta1, -Math.PI, Math.PI) && within(theta2, -Math.PI, Math.PI));
      // From such speeds the integrator overshoots both limits; the clip holds them at the bounds.
      assert.equal(Math.abs(velocity1), 4 * Math.PI);
      assert.equal(Math.abs(velocity2), 9 * Math.PI);
    });
  });

  describe('Pendulum', () => {
    it('clips the torque to max_torque and never terminates', () => {
      const strong = new Pendulum();
      strong.setState([1, 0]);
      const clipped = strong.step([5]);
      const limit = new Pendulum();
      limit.setState([1, 0]);
      const atLimit = limit.step(2);
      assert.deepEqual(strong.getState(), limit.getState());
      assert.equal(clipped.reward, atLimit.reward);
      assert.deepEqual(clipped.info, { torque: 2 });
      assert.equal(clipped.terminated, false);
    });

    it('pays 0 upright at rest with no torque, and about -pi^2 hanging down', () => {
      const env = new Pendulum();
      env.setState([0, 0]);
      assert.equal(env.step([0]).reward, -0);
      env.setState([Math.PI, 0]);
      assert.ok(Math.abs(env.step([0]).reward + Math.PI ** 2) < 1e-9);
    });

    it('accepts a number or a one-element array as the action, nothing else', () => {
      const env = new Pendulum();
      env.reset(0);
      assert.doesNotThrow(() => env.step(0.5));
      assert.doesNotThrow(() => env.step(new Float32Array([0.5])));
      assert.throws(() => env.step([0.5, 1]), /Pendulum: action must have 1 number\(s\), got 2/);
      assert.throws(() => env.step([Number.NaN]), /Pendulum: action element 0 must be a number/);
    });

    it('normalises angles like Python\'s floored modulo', () => {
      assert.ok(Math.abs(normalizeAngle(-Math.PI - 0.1) - (Math.PI - 0.1)) < 1e-12);
      assert.ok(Math.abs(normalizeAngle(2 * Math.PI + 0.3) - 0.3) < 1e-12);
      assert.equal(normalizeAngle(0), 0);
      assert.ok(Math.abs(normalizeAngle(-7) - (-7 + 2 * Math.PI)) < 1e-12);
    });
  });
});
