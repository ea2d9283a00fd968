// Replays the reference trajectories recorded from Gymnasium 0.29 (see
// test/fixtures/gymnasium/README.md) through our classic-control
// environments: same start state, same actions, same observations (as
// float32), states, rewards and flags.
//
// Two checks per episode:
// - replay: setState(reset_state), then every action in turn, as an agent
//   would see it; errors may accumulate, so states are compared to 1e-9.
// - one step: from each recorded state, one step, so that nothing
//   accumulates: the reward and the termination flag depend only on that
//   state and the action.
//
// Rewards are compared exactly, with two documented exceptions, both about
// Python's libm rather than our arithmetic:
// - Python evaluates `x**2` on floats with the C library's pow(), which is
//   not correctly rounded in every case; we square with x * x, which is.
//   Pendulum-v1 seed 0, t=13: angle -2.941148967360059, Python's
//   angle**2 = 8.650357248203141, the correctly rounded square is
//   8.65035724820314. So one-step Pendulum rewards may differ by a few ulps.
// - The recording's numpy computed np.sin with a SIMD routine a few ulps off
//   the correctly rounded value (seed 0, step 0: 1-3 ulps high), while
//   V8's Math.sin and C's sin agree. The replayed angular velocity then
//   differs in its last bits, the difference grows to about 1e-12 over 200
//   steps, and the reward (a function of the state) inherits it: replayed
//   Pendulum rewards are compared to 1e-9.
// CartPole, MountainCar and Acrobot pay constant rewards, compared exactly.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { ACROBOT_CONSTANTS } from '../../../shared/geometry/acrobot.js';
import { CARTPOLE_CONSTANTS } from '../../../shared/geometry/cartpole.js';
import { MOUNTAIN_CAR_CONSTANTS } from '../../../shared/geometry/mountain-car.js';
import { PENDULUM_CONSTANTS } from '../../../runtime/envs/pendulum.js';
import { makeEnv } from '../../../runtime/envs/registry.js';
import { gymnasiumFixturesDir } from '../../helpers/repo.js';

interface FixtureStep {
  t: number;
  obs: number[];
  reward: number;
  terminated: boolean;
  truncated: boolean;
  state: number[];
}

interface FixtureEpisode {
  seed: number;
  reset_obs: number[];
  reset_state: number[];
  actions: (number | number[])[];
  steps: FixtureStep[];
}

interface Fixture {
  env_id: string;
  state_layout: string;
  constants: Record<string, unknown>;
  episodes: FixtureEpisode[];
}

const OBS_TOLERANCE = 1e-6;
const STATE_TOLERANCE = 1e-9;

interface FixtureTarget {
  kind: string;
  /** Our values that the fixture's constants imply; they must equal our param defaults or our fixed constants. */
  params(constants: Record<string, unknown>): Record<string, unknown>;
  /** The env's fixed constants (Gymnasium's values that the language does not make parameters). */
  constants: Readonly<Record<string, unknown>>;
  /** Tolerance on rewards during the replay, relative (see the header); exact where absent. */
  replayRewardTolerance?: number;
  /** Ulps a one-step reward may differ by (see the header); exact where absent. */
  oneStepRewardUlps?: number;
}

function pi(expression: unknown): number {
  const match = /^(\d+)\*pi$/.exec(String(expression));
  if (!match) throw new Error(`expected a constant like "4*pi", got ${String(expression)}`);
  return Number(match[1]) * Math.PI;
}

const TARGETS: Record<string, FixtureTarget> = {
  'CartPole-v1': {
    kind: 'CartPole',
    params: (c) => ({
      gravity: c.gravity,
      cart_mass: c.cart_mass,
      pole_mass: c.pole_mass,
      pole_half_length: c.pole_half_length,
      force: c.force,
      tau: c.tau,
      integrator: c.integrator,
      x_threshold: c.x_threshold,
      theta_threshold_degrees: c.theta_threshold_degrees,
      max_steps: c.max_episode_steps,
    }),
    constants: CARTPOLE_CONSTANTS,
  },
  'MountainCar-v0': {
    kind: 'MountainCar',
    params: (c) => ({
      force: c.force,
      gravity: c.gravity,
      max_speed: c.max_speed,
      min_position: c.min_position,
      max_position: c.max_position,
      goal_position: c.goal_position,
      max_steps: c.max_episode_steps,
    }),
    constants: MOUNTAIN_CAR_CONSTANTS,
  },
  'Acrobot-v1': {
    kind: 'Acrobot',
    params: (c) => {
      const [length1, length2] = c.link_lengths as number[];
      const [mass1, mass2] = c.link_masses as number[];
      const [com1, com2] = c.link_com_positions as number[];
      assert.deepEqual(c.torques, [-1, 0, 1], 'Acrobot torques are fixed at (-1, 0, 1) in our implementation');
      return {
        dt: c.dt,
        link_length_1: length1,
        link_length_2: length2,
        link_mass_1: mass1,
        link_mass_2: mass2,
        link_com_pos_1: com1,
        link_com_pos_2: com2,
        link_moi: c.link_moi,
        max_vel_1: pi(c.max_vel_1),
        max_vel_2: pi(c.max_vel_2),
        book_or_nips: c.equations,
        max_steps: c.max_episode_steps,
      };
    },
    constants: ACROBOT_CONSTANTS,
  },
  'Pendulum-v1': {
    kind: 'Pendulum',
    params: (c) => ({
      g: c.g,
      m: c.m,
      l: c.l,
      dt: c.dt,
      max_speed: c.max_speed,
      max_torque: c.max_torque,
      max_steps: c.max_episode_steps,
    }),
    constants: PENDULUM_CONSTANTS,
    replayRewardTolerance: 1e-9,
    oneStepRewardUlps: 4,
  },
};

function assertClose(actual: ArrayLike<number>, expected: readonly number[], tolerance: number, what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    const difference = Math.abs(actual[i] - expected[i]);
    assert.ok(difference <= tolerance, `${what}[${i}]: got ${actual[i]}, expected ${expected[i]} (difference ${difference} > ${tolerance})`);
  }
}

/** Distance in units in the last place between two doubles of the same sign. */
function ulpDistance(a: number, b: number): number {
  const bits = new BigInt64Array(new Float64Array([a, b]).buffer);
  const difference = bits[0] - bits[1];
  return Number(difference < 0n ? -difference : difference);
}

function loadFixtures(): { file: string; fixture: Fixture }[] {
  const dir = gymnasiumFixturesDir();
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({ file: name, fixture: JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as Fixture }));
}

const fixtures = loadFixtures();

describe('Gymnasium 0.29 reference trajectories', () => {
  it('are present in the repository', () => {
    const dir = gymnasiumFixturesDir();
    assert.ok(
      fixtures.length > 0,
      `no Gymnasium fixtures found in ${dir} (test/fixtures/gymnasium/*.json, committed with the repository)`,
    );
  });

  for (const { file, fixture } of fixtures) {
    describe(file, () => {
      const target = TARGETS[fixture.env_id];

      it('is an env we implement, with our defaults as its constants', () => {
        assert.ok(target, `${file}: env_id ${fixture.env_id} has no matching built-in; add it to TARGETS`);
        const env = makeEnv(target.kind, {});
        const expected = target.params(fixture.constants);
        const ours: Record<string, unknown> = { ...target.constants, ...env.config };
        for (const [name, value] of Object.entries(expected)) {
          assert.equal(ours[name], value, `${target.kind} default or constant for ${name}`);
        }
        assert.equal(env.maxSteps, fixture.constants.max_episode_steps);
      });

      if (!target) return;

      for (const episode of fixture.episodes) {
        const where = `${fixture.env_id} seed ${episode.seed}`;

        it(`seed ${episode.seed}: reset observation is the float32 view of the reset state`, () => {
          const env = makeEnv(target.kind, {});
          env.setState(episode.reset_state);
          const obs = new Float32Array(env.obsDim);
          env.writeObs(obs, 0);
          assertClose(obs, episode.reset_obs, 0, `${where} reset obs`);
        });

        it(`seed ${episode.seed}: replays ${episode.steps.length} steps`, () => {
          assert.equal(episode.actions.length, episode.steps.length, `${where}: one action per step`);
          const env = makeEnv(target.kind, {});
          env.setState(episode.reset_state);
          assert.equal(env.elapsedSteps, 0);
          for (const [index, step] of episode.steps.entries()) {
            const at = `${where} t=${step.t}`;
            assert.equal(step.t, index, `${at}: steps are in order`);
            const result = env.step(episode.actions[index]);
            assertClose(Float32Array.from(result.obs), step.obs, OBS_TOLERANCE, `${at} obs`);
            assertClose(env.getState(), step.state, STATE_TOLERANCE, `${at} state`);
            const tolerance = target.replayRewardTolerance ?? 0;
            assert.ok(
              Math.abs(result.reward - step.reward) <= tolerance * Math.max(1, Math.abs(step.reward)),
              `${at} reward: got ${result.reward}, expected ${step.reward}`,
            );
            assert.equal(result.terminated, step.terminated, `${at} terminated`);
            assert.equal(result.truncated, step.truncated, `${at} truncated`);
          }
          const last = episode.steps[episode.steps.length - 1];
          assert.equal(env.elapsedSteps, last.t + 1);
        });

        it(`seed ${episode.seed}: each step from the recorded state gives the recorded reward`, () => {
          const env = makeEnv(target.kind, {});
          for (const [index, step] of episode.steps.entries()) {
            const at = `${where} t=${step.t} (one step)`;
            env.setState(index === 0 ? episode.reset_state : episode.steps[index - 1].state);
            const result = env.step(episode.actions[index]);
            const ulps = ulpDistance(result.reward, step.reward);
            assert.ok(
              ulps <= (target.oneStepRewardUlps ?? 0),
              `${at} reward: got ${result.reward}, expected ${step.reward} (${ulps} ulps apart)`,
            );
            assert.equal(result.terminated, step.terminated, `${at} terminated`);
            assertClose(env.getState(), step.state, STATE_TOLERANCE, `${at} state`);
            assertClose(Float32Array.from(result.obs), step.obs, OBS_TOLERANCE, `${at} obs`);
          }
        });
      }
    });
  }
});
