// The built-in MuJoCo envs against Gymnasium v5's env code (inverted_pendulum_v5.py,
// half_cheetah_v5.py, hopper_v5.py, walker2d_v5.py, swimmer_v5.py,
// inverted_double_pendulum_v5.py): observation layout, each reward term, termination and
// health, reset noise, seeding, and state round trips, each formula recomputed here from the
// simulator's state before and after a step.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { makeEnv, makeVecEnv, prepareEnvKind } from '../../../runtime/envs/registry.js';
import type { FastEnv } from '../../../runtime/envs/types.js';
import { mujocoVersion } from '../../../runtime/envs/mujoco/engine.js';

type Env = FastEnv & { readonly dt: number; readonly info: Float64Array };
const make = (kind: string, params: Record<string, unknown> = {}) => makeEnv(kind, params) as unknown as Env;

/** qpos and qvel of an env's state (its layout is qpos then qvel). */
function split(env: Env, nq: number): { qpos: number[]; qvel: number[] } {
  const state = env.getState();
  return { qpos: state.slice(0, nq), qvel: state.slice(nq) };
}

const f32 = (values: number[]) => values.map(Math.fround);
const sumSq = (a: number[]) => a.reduce((s, v) => s + v * v, 0);
const clip10 = (v: number) => Math.min(Math.max(v, -10), 10);

describe('MuJoCo envs (Gymnasium v5)', () => {
  before(async () => {
    await prepareEnvKind('HalfCheetah');
  });

  it('runs on MuJoCo 3.x with the action spaces of the models\' control ranges', () => {
    assert.match(mujocoVersion(), /^3\.\d+\.\d+$/);
    assert.deepEqual(make('InvertedPendulum').actionSpace, { kind: 'box', shape: [1], low: [-3], high: [3] });
    assert.deepEqual(make('HalfCheetah').actionSpace, { kind: 'box', shape: [6], low: [-1, -1, -1, -1, -1, -1], high: [1, 1, 1, 1, 1, 1] });
    assert.deepEqual(make('Hopper').actionSpace, { kind: 'box', shape: [3], low: [-1, -1, -1], high: [1, 1, 1] });
    assert.equal(make('Swimmer').actionDim, 2);
    assert.equal(make('Walker2d').actionDim, 6);
    // dt = timestep * frame_skip: Gymnasium's render_fps of 25, 20, 125 and 25.
    assert.ok(Math.abs(make('InvertedPendulum').dt - 0.04) < 1e-12);
    assert.ok(Math.abs(make('HalfCheetah').dt - 0.05) < 1e-12);
    assert.ok(Math.abs(make('Hopper').dt - 0.008) < 1e-12);
    assert.ok(Math.abs(make('Swimmer').dt - 0.04) < 1e-12);
    assert.ok(Math.abs(make('HalfCheetah', { frame_skip: 1 }).dt - 0.01) < 1e-12);
  });

  describe('InvertedPendulum', () => {
    it('observes qpos then qvel, pays 1 while the hinge is within 0.2 rad, and ends past it', () => {
      const env = make('InvertedPendulum');
      const first = env.reset(3);
      assert.deepEqual([...first.obs], f32(env.getState()));
      let step = env.step([0]);
      assert.equal(step.reward, 1);
      assert.deepEqual(step.info, { reward_survive: 1 });
      // Tilted and pushed the wrong way, it falls: the step that crosses 0.2 pays 0 and terminates.
      env.setState([0, 0.15, 0, 0.5]);
      let steps = 0;
      do {
        step = env.step([-3]);
        steps++;
        const hinge = env.getState()[1];
        assert.equal(step.terminated, Math.abs(hinge) > 0.2, `hinge ${hinge} at step ${steps}`);
        assert.equal(step.reward, step.terminated ? 0 : 1);
      } while (!step.terminated && steps < 100);
      assert.ok(step.terminated, 'it fell');
      assert.deepEqual(step.info, { reward_survive: 0 });
    });

    it('adds U(-0.01, 0.01) noise to the zero reference state at reset', () => {
      const env = make('InvertedPendulum');
      for (let seed = 0; seed < 20; seed++) {
        env.reset(seed);
        for (const v of env.getState()) assert.ok(Math.abs(v) <= 0.01 && v !== 0, `${v}`);
      }
      const still = make('InvertedPendulum', { reset_noise_scale: 0 });
      still.reset(1);
      assert.deepEqual(still.getState(), [0, 0, 0, 0]);
    });
  });

  describe('HalfCheetah', () => {
    it('observes qpos[1:] then qvel and pays forward velocity minus 0.1 * sum(action^2)', () => {
      const env = make('HalfCheetah');
      const first = env.reset(7);
      const start = split(env, 9);
      assert.deepEqual([...first.obs], f32([...start.qpos.slice(1), ...start.qvel]));
      const action = [0.5, -0.3, 0.8, -1, 0.2, 0.9];
      const step = env.step(action);
      const after = split(env, 9);
      assert.deepEqual([...step.obs], f32([...after.qpos.slice(1), ...after.qvel]));
      const velocity = (after.qpos[0] - start.qpos[0]) / 0.05;
      const ctrl = 0.1 * sumSq(action);
      assert.ok(Math.abs(step.reward - (velocity - ctrl)) < 1e-12);
      assert.deepEqual(Object.keys(step.info), ['x_position', 'x_velocity', 'reward_forward', 'reward_ctrl']);
      assert.ok(Math.abs((step.info.reward_forward as number) - velocity) < 1e-12);
      assert.ok(Math.abs((step.info.reward_ctrl as number) + ctrl) < 1e-12);
      assert.equal(step.info.x_position, after.qpos[0]);
      assert.equal(step.terminated, false);
    });

    it('weighs its terms by forward_reward_weight and ctrl_cost_weight, and truncates at 1000 steps', () => {
      const plain = make('HalfCheetah');
      const weighted = make('HalfCheetah', { forward_reward_weight: 2, ctrl_cost_weight: 0.5 });
      plain.reset(1);
      weighted.reset(1);
      const action = [1, 1, -1, 0.5, 0, -0.5];
      const a = plain.step(action);
      const b = weighted.step(action);
      assert.ok(Math.abs((b.info.reward_forward as number) - 2 * (a.info.reward_forward as number)) < 1e-12);
      assert.ok(Math.abs((b.info.reward_ctrl as number) - 5 * (a.info.reward_ctrl as number)) < 1e-12);
      const short = make('HalfCheetah', { max_steps: 3 });
      short.reset(0);
      assert.deepEqual([0, 1, 2].map(() => short.step(action).truncated), [false, false, true]);
      assert.equal(plain.maxSteps, 1000);
    });

    it('draws qpos uniformly and qvel from 0.1 * N(0, 1) around the reference pose', () => {
      const env = make('HalfCheetah');
      const velocities: number[] = [];
      for (let seed = 0; seed < 40; seed++) {
        env.reset(seed);
        const { qpos, qvel } = split(env, 9);
        for (const q of qpos) assert.ok(Math.abs(q) <= 0.1);
        velocities.push(...qvel);
      }
      // Uniform noise would never leave [-0.1, 0.1]; a Gaussian of sd 0.1 does about a third of the time.
      const outside = velocities.filter((v) => Math.abs(v) > 0.1).length / velocities.length;
      assert.ok(outside > 0.2 && outside < 0.45, `fraction outside one sd: ${outside}`);
      const sd = Math.sqrt(sumSq(velocities) / velocities.length);
      assert.ok(sd > 0.08 && sd < 0.12, `sd ${sd}`);
    });
  });

  describe('Hopper and Walker2d', () => {
    it('Hopper observes qpos[1:] and qvel clipped to [-10, 10], and pays forward + healthy - ctrl', () => {
      const env = make('Hopper');
      env.reset(0);
      const start = env.getState();
      start[6 + 3] = 40; // a fast thigh: its observation is clipped, the health check is not (|40| < 100)
      env.setState(start);
      const action = [0.3, -0.2, 0.1];
      const step = env.step(action);
      const { qpos, qvel } = split(env, 6);
      assert.deepEqual([...step.obs], f32([...qpos.slice(1), ...qvel.map(clip10)]));
      const velocity = (qpos[0] - start[0]) / 0.008;
      assert.equal(step.info.reward_survive, 1);
      assert.ok(Math.abs(step.reward - (velocity + 1 - 0.001 * sumSq(action))) < 1e-12);
      assert.ok(Math.abs((step.info.z_distance_from_origin as number) - (qpos[1] - 1.25)) < 1e-12);
      assert.equal(step.terminated, false);
    });

    it('Hopper ends the episode when its height, angle or state leaves the healthy ranges', () => {
      const at = (change: (state: number[]) => void, params: Record<string, unknown> = {}) => {
        const env = make('Hopper', params);
        env.reset(0);
        const state = env.getState();
        change(state);
        env.setState(state);
        return env.step([0, 0, 0]);
      };
      assert.equal(at(() => {}).terminated, false);
      const low = at((s) => (s[1] = 0.6));
      assert.equal(low.terminated, true);
      assert.equal(low.info.reward_survive, 0);
      assert.equal(at((s) => (s[2] = 0.3)).terminated, true, 'angle past 0.2');
      assert.equal(at((s) => (s[6 + 4] = 500)).terminated, true, 'a velocity past 100');
      assert.equal(at((s) => (s[1] = 0.6), { terminate_when_unhealthy: false }).terminated, false);
      assert.equal(at((s) => (s[1] = 0.6), { healthy_z_min: 0.5 }).terminated, false);
      assert.equal(at(() => {}, { healthy_z_max: 1.0 }).terminated, true);
    });

    it('Walker2d is healthy for z in (0.8, 2) and angle in (-1, 1), and has no state range', () => {
      const env = make('Walker2d');
      env.reset(0);
      const state = env.getState();
      // In the air and sliding at 150 m/s: a Hopper's state range (100) would end it, Walker2d has none.
      state[1] = 1.5;
      state[9] = 150;
      env.setState(state);
      assert.equal(env.step([0, 0, 0, 0, 0, 0]).terminated, false, 'no state range');
      const hopper = make('Hopper');
      hopper.setState([0, 1.5, 0, 0, 0, 0, 150, 0, 0, 0, 0, 0]);
      assert.equal(hopper.step([0, 0, 0]).terminated, true, 'the Hopper\'s state range');
      state[9] = 0;
      state[1] = 2.5;
      env.setState(state);
      assert.equal(env.step([0, 0, 0, 0, 0, 0]).terminated, true, 'above 2');
      state[1] = 1.25;
      state[2] = 1.2;
      env.setState(state);
      assert.equal(env.step([0, 0, 0, 0, 0, 0]).terminated, true, 'angle past 1');
    });
  });

  describe('Swimmer and InvertedDoublePendulum', () => {
    it('Swimmer observes qpos[2:] then qvel and pays x velocity minus 1e-4 * sum(action^2)', () => {
      const env = make('Swimmer');
      env.reset(2);
      const start = env.getState();
      const action = [1, -1];
      const step = env.step(action);
      const { qpos, qvel } = split(env, 5);
      assert.deepEqual([...step.obs], f32([...qpos.slice(2), ...qvel]));
      const vx = (qpos[0] - start[0]) / 0.04;
      assert.ok(Math.abs(step.reward - (vx - 1e-4 * 2)) < 1e-12);
      assert.ok(Math.abs((step.info.distance_from_origin as number) - Math.hypot(qpos[0], qpos[1])) < 1e-12);
    });

    it('InvertedDoublePendulum observes sin and cos of its hinges and clips velocities to [-10, 10]', () => {
      const env = make('InvertedDoublePendulum');
      env.reset(0);
      env.setState([0.1, 0.05, -0.05, 0, 30, 0]);
      const step = env.step([0]);
      const { qpos, qvel } = split(env, 3);
      const obs = [...step.obs];
      assert.deepEqual(obs.slice(0, 8), f32([qpos[0], Math.sin(qpos[1]), Math.sin(qpos[2]), Math.cos(qpos[1]), Math.cos(qpos[2]), ...qvel.map(clip10)]));
      assert.ok(Math.abs(obs[8]) <= 10);
      const [survive, distance, velocity] = [step.info.reward_survive, step.info.distance_penalty, step.info.velocity_penalty] as number[];
      assert.equal(survive, step.terminated ? 0 : 10);
      assert.ok(Math.abs(velocity + (0.001 * qvel[1] ** 2 + 0.005 * qvel[2] ** 2)) < 1e-12);
      assert.ok(Math.abs(step.reward - (survive + distance + velocity)) < 1e-12);
      env.setState([0, 1.2, 0, 0, 0, 0]); // the poles far over: the tip is below y = 1
      assert.equal(env.step([0]).terminated, true);
    });
  });

  describe('seeding and state', () => {
    const rollout = (kind: string, seed: number, steps: number) => {
      const env = make(kind);
      const obs: number[] = [...env.reset(seed).obs];
      const rewards: number[] = [];
      for (let t = 0; t < steps; t++) {
        const action = Array.from({ length: env.actionDim }, (_, i) => Math.sin(0.3 * t + i));
        const step = env.step(action);
        obs.push(...step.obs);
        rewards.push(step.reward);
        if (step.terminated) env.reset();
      }
      return { obs, rewards, state: env.getState() };
    };

    it('repeats a seeded trajectory exactly, and another seed gives another one', () => {
      for (const kind of ['HalfCheetah', 'Hopper', 'InvertedPendulum']) {
        assert.deepEqual(rollout(kind, 11, 150), rollout(kind, 11, 150), kind);
        assert.notDeepEqual(rollout(kind, 11, 20).obs, rollout(kind, 12, 20).obs, kind);
      }
    });

    it('resumes from getState() exactly as the original run goes on (checkpoints)', () => {
      const env = make('Hopper');
      env.reset(5);
      for (let t = 0; t < 10; t++) env.step([0.1, 0.2, -0.1]);
      const saved = env.getState();
      const next = env.step([0.4, -0.4, 0.2]);
      const resumed = make('Hopper');
      resumed.setState(saved);
      const again = resumed.step([0.4, -0.4, 0.2]);
      assert.deepEqual([...again.obs], [...next.obs]);
      assert.equal(again.reward, next.reward);
    });

    it('steps vectorised copies like single envs seeded as copy i of the run', () => {
      const vec = makeVecEnv('HalfCheetah', {}, 3);
      vec.reset(4);
      const action = new Float32Array(18).map((_, k) => Math.cos(k));
      for (let t = 0; t < 5; t++) vec.step(action);
      const single = make('HalfCheetah');
      single.seed(4, 1);
      const out = new Float32Array(17);
      single.resetInto(out, 0);
      for (let t = 0; t < 5; t++) single.stepInto(action, 6, out, 0);
      assert.deepEqual([...vec.obs.slice(17, 34)], [...out]);
    });

    it('reproduces a recorded HalfCheetah trajectory of MuJoCo 3.14 to 1e-9 (the same on every platform)', () => {
      // From the reference pose, no random draw: 200 steps of a fixed action sequence.
      const env = make('HalfCheetah');
      env.setState(new Array(18).fill(0));
      let sum = 0;
      for (let t = 0; t < 200; t++) sum += env.step(Array.from({ length: 6 }, (_, i) => Math.sin(0.1 * t + i))).reward;
      const [x] = env.getState();
      assert.ok(Math.abs(sum - RECORDED.returns) < 1e-9, `return ${sum}, x ${env.getState()[0]}`);
      assert.ok(Math.abs(x - RECORDED.x) < 1e-9, `x ${x}`);
    });
  });
});

/** Written down from this test's own run on MuJoCo 3.14.0's WebAssembly build (Node 20, x86-64). */
const RECORDED = { returns: -34.202667134888294, x: 1.2972533331180418 };
