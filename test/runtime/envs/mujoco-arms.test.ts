// Reacher and Pusher against Gymnasium v5's env code (reacher_v5.py, pusher_v5.py): observation
// layout, each reward term (distances between bodies' xpos after the step), the randomised
// target or object at reset, episode lengths, each recomputed here from the simulator's arrays.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { makeEnv, prepareEnvKind } from '../../../runtime/envs/registry.js';
import type { FastEnv } from '../../../runtime/envs/types.js';
import type { MujocoSim } from '../../../runtime/envs/mujoco/engine.js';

type Env = FastEnv & { readonly dt: number; readonly sim: MujocoSim };
const make = (kind: string, params: Record<string, unknown> = {}) => makeEnv(kind, params) as unknown as Env;
const f32 = (values: ArrayLike<number>) => Array.from(values, Math.fround);
const sumSq = (a: ArrayLike<number>) => Array.from(a).reduce((s, v) => s + v * v, 0);
const close = (a: unknown, b: number, what: string) => assert.ok(Math.abs((a as number) - b) < 1e-12, `${what}: ${a} vs ${b}`);

/** A body's world position (get_body_com: data.body(name).xpos). */
function bodyPos(env: Env, name: string): number[] {
  const id = env.sim.bodyId(name);
  return Array.from(env.sim.xpos.slice(3 * id, 3 * id + 3));
}
const minus = (a: number[], b: number[]) => a.map((v, i) => v - b[i]);

describe('Reacher (Gymnasium Reacher-v5)', () => {
  before(async () => {
    await prepareEnvKind('Reacher');
  });

  it('observes cos, sin, the target, the joint velocities and fingertip - target', () => {
    const env = make('Reacher');
    env.reset(3);
    const step = env.step([0.4, -0.7]);
    const { qpos, qvel } = env.sim;
    const vec = minus(bodyPos(env, 'fingertip'), bodyPos(env, 'target'));
    assert.deepEqual([...step.obs], f32([Math.cos(qpos[0]), Math.cos(qpos[1]), Math.sin(qpos[0]), Math.sin(qpos[1]), qpos[2], qpos[3], qvel[0], qvel[1], vec[0], vec[1]]));
  });

  it('pays -|fingertip - target| - sum(action^2), each weighted by its setting, and never terminates', () => {
    const plain = make('Reacher');
    plain.reset(1);
    const action = [0.6, -0.9];
    const step = plain.step(action);
    const distance = Math.hypot(...minus(bodyPos(plain, 'fingertip'), bodyPos(plain, 'target')));
    assert.deepEqual(Object.keys(step.info), ['reward_dist', 'reward_ctrl']);
    close(step.info.reward_dist, -distance, 'reward_dist');
    close(step.info.reward_ctrl, -sumSq(action), 'reward_ctrl');
    close(step.reward, -distance - sumSq(action), 'reward');
    const weighted = make('Reacher', { reward_dist_weight: 3, reward_control_weight: 0.25 });
    weighted.reset(1);
    const other = weighted.step(action);
    close(other.info.reward_dist, -3 * distance, 'weighted reward_dist');
    close(other.info.reward_ctrl, -0.25 * sumSq(action), 'weighted reward_ctrl');
    // 50 steps an episode, truncated, never terminated.
    const env = make('Reacher');
    env.reset(0);
    const ends = Array.from({ length: 50 }, () => env.step([1, 1]));
    assert.ok(ends.every((s) => !s.terminated));
    assert.deepEqual(ends.map((s) => s.truncated).lastIndexOf(false), 48);
    assert.equal(ends[49].truncated, true);
    assert.ok(Math.abs(env.dt - 0.02) < 1e-12);
  });

  it('places the target uniformly in the disc of radius 0.2, the arm near its reference, the target still', () => {
    const env = make('Reacher');
    const targets: number[][] = [];
    for (let seed = 0; seed < 60; seed++) {
      env.reset(seed);
      const [q0, q1, tx, ty, v0, v1, tv0, tv1] = env.getState();
      assert.ok(Math.abs(q0) <= 0.1 && Math.abs(q1) <= 0.1, 'arm within 0.1');
      assert.ok(Math.hypot(tx, ty) < 0.2, 'target inside the disc');
      assert.ok(Math.abs(v0) <= 0.005 && Math.abs(v1) <= 0.005 && v0 !== 0, 'arm velocities U(-0.005, 0.005)');
      assert.deepEqual([tv0, tv1], [0, 0]);
      targets.push([tx, ty]);
    }
    // Spread over the disc, not stuck at its reference (0.1, -0.1).
    assert.ok(targets.some(([x]) => x < -0.1) && targets.some(([, y]) => y > 0.1));
  });
});

describe('Pusher (Gymnasium Pusher-v5)', () => {
  before(async () => {
    await prepareEnvKind('Pusher');
  });

  it('observes the arm\'s 7 joint positions and velocities, then tips_arm, object and goal positions', () => {
    const env = make('Pusher');
    env.reset(2);
    const step = env.step([0.5, -0.5, 1, -1, 0.3, 0.2, -0.1]);
    const { qpos, qvel } = env.sim;
    assert.deepEqual([...step.obs], f32([...qpos.slice(0, 7), ...qvel.slice(0, 7), ...bodyPos(env, 'tips_arm'), ...bodyPos(env, 'object'), ...bodyPos(env, 'goal')]));
  });

  it('pays -|object - goal| - 0.5 * |object - tips_arm| - 0.1 * sum(action^2), each weighted by its setting', () => {
    const action = [1, -2, 0.5, 0, 0.3, -0.7, 2];
    const terms = (params: Record<string, unknown>) => {
      const env = make('Pusher', params);
      env.reset(4);
      const step = env.step(action);
      const object = bodyPos(env, 'object');
      return { step, dist: Math.hypot(...minus(object, bodyPos(env, 'goal'))), near: Math.hypot(...minus(object, bodyPos(env, 'tips_arm'))) };
    };
    const { step, dist, near } = terms({});
    assert.deepEqual(Object.keys(step.info), ['reward_dist', 'reward_ctrl', 'reward_near']);
    close(step.info.reward_dist, -dist, 'reward_dist');
    close(step.info.reward_near, -0.5 * near, 'reward_near');
    close(step.info.reward_ctrl, -0.1 * sumSq(action), 'reward_ctrl');
    close(step.reward, -dist - 0.5 * near - 0.1 * sumSq(action), 'reward');
    const weighted = terms({ reward_near_weight: 2, reward_dist_weight: 0.5, reward_control_weight: 1 });
    close(weighted.step.info.reward_near, -2 * near, 'weighted reward_near');
    close(weighted.step.info.reward_dist, -0.5 * dist, 'weighted reward_dist');
    close(weighted.step.info.reward_ctrl, -sumSq(action), 'weighted reward_ctrl');
    assert.equal(make('Pusher').maxSteps, 100);
    assert.ok(Math.abs(make('Pusher').dt - 0.05) < 1e-12);
    assert.deepEqual(make('Pusher').actionSpace, { kind: 'box', shape: [7], low: new Array(7).fill(-2), high: new Array(7).fill(2) });
    assert.deepEqual(make('Reacher').actionSpace, { kind: 'box', shape: [2], low: [-1, -1], high: [1, 1] });
    assert.equal(step.terminated, false);
  });

  it('resets the arm to its reference, the cylinder more than 0.17 from the goal at the origin', () => {
    const env = make('Pusher');
    for (let seed = 0; seed < 40; seed++) {
      env.reset(seed);
      const state = env.getState();
      const [qpos, qvel] = [state.slice(0, 11), state.slice(11)];
      assert.deepEqual(qpos.slice(0, 7), new Array(7).fill(0));
      const [cx, cy] = qpos.slice(7, 9);
      assert.ok(cx >= -0.3 && cx <= 0 && Math.abs(cy) <= 0.2 && Math.hypot(cx, cy) > 0.17, `cylinder ${cx}, ${cy}`);
      assert.deepEqual(qpos.slice(9), [0, 0]);
      assert.ok(qvel.slice(0, 7).every((v) => Math.abs(v) <= 0.005 && v !== 0));
      assert.deepEqual(qvel.slice(7), [0, 0, 0, 0]);
    }
  });

  it('repeats a seeded trajectory exactly', () => {
    for (const kind of ['Pusher', 'Reacher']) {
      const run = (seed: number) => {
        const env = make(kind);
        const out: number[] = [...env.reset(seed).obs];
        for (let t = 0; t < 30; t++) {
          const step = env.step(Array.from({ length: env.actionDim }, (_, i) => Math.cos(0.2 * t + i)));
          out.push(...step.obs, step.reward);
        }
        return out;
      };
      assert.deepEqual(run(7), run(7), kind);
      assert.notDeepEqual(run(7), run(8), kind);
    }
  });
});
