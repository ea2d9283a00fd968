// Ant and Humanoid against Gymnasium v5's env code (ant_v5.py, humanoid_v5.py): observation
// layout with the contact forces (cfrc_ext, which MuJoCo's WebAssembly build fills through
// mj_rnePostConstraint), each reward term, health and termination, reset noise, each formula
// recomputed here from the simulator's arrays before and after a step.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { makeEnv, prepareEnvKind } from '../../../runtime/envs/registry.js';
import type { FastEnv } from '../../../runtime/envs/types.js';
import type { MujocoSim } from '../../../runtime/envs/mujoco/engine.js';

type Env = FastEnv & { readonly dt: number; readonly sim: MujocoSim };
const make = (kind: string, params: Record<string, unknown> = {}) => makeEnv(kind, params) as unknown as Env;
const f32 = (values: ArrayLike<number>) => Array.from(values, Math.fround);
const sumSq = (a: ArrayLike<number>) => Array.from(a).reduce((s, v) => s + v * v, 0);
const clip1 = (v: number) => Math.min(Math.max(v, -1), 1);
const close = (a: unknown, b: number, what: string) => assert.ok(Math.abs((a as number) - b) < 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);
const wave = (t: number, n: number, scale = 1) => Array.from({ length: n }, (_, i) => scale * Math.sin(0.3 * t + i));

/** An env reset with `seed` and stepped `steps` times with a fixed wave of actions (contacts by then). */
function settled(kind: string, params: Record<string, unknown>, seed: number, steps: number, scale = 1): Env {
  const env = make(kind, params);
  env.reset(seed);
  for (let t = 0; t < steps; t++) env.step(wave(t, env.actionDim, scale));
  return env;
}

describe('Ant (Gymnasium Ant-v5)', () => {
  before(async () => {
    await prepareEnvKind('Ant');
  });

  it('observes qpos[2:], qvel and the clipped cfrc_ext of the 13 bodies (105 numbers)', () => {
    const env = settled('Ant', {}, 3, 30);
    const step = env.step(wave(30, 8));
    const { qpos, qvel, cfrcExt } = env.sim;
    assert.equal(step.obs.length, 105);
    assert.equal(env.obsFields.length, 105);
    assert.deepEqual([...step.obs], f32([...qpos.slice(2), ...qvel, ...Array.from(cfrcExt.slice(6), clip1)]));
    // The feet touch the floor: contact forces are there, some beyond the clip range of 1.
    assert.ok(Array.from(cfrcExt).some((f) => Math.abs(f) > 1), 'raw contact forces beyond 1');
    assert.deepEqual(env.obsFields.slice(0, 6), ['root_z', 'root_qw', 'root_qx', 'root_qy', 'root_qz', 'hip_1']);
    assert.equal(env.obsFields[27], 'cfrc_ext_torso_tx');
    assert.equal(env.obsFields[104], 'cfrc_ext_foot_4_fz');
  });

  it('pays torso x velocity + 1 while healthy - 0.5 * sum(action^2) - 5e-4 * sum(clip(cfrc_ext)^2)', () => {
    const env = settled('Ant', {}, 1, 25, 0.3);
    const torso = env.sim.bodyId('torso');
    const before = Float64Array.from(env.sim.xpos.slice(3 * torso, 3 * torso + 2));
    const action = wave(25, 8, 0.3); // a step with the feet on the floor
    const step = env.step(action);
    const { xpos, cfrcExt, qpos } = env.sim;
    const vx = (xpos[3 * torso] - before[0]) / env.dt;
    const vy = (xpos[3 * torso + 1] - before[1]) / env.dt;
    const ctrl = 0.5 * sumSq(action);
    const contact = 5e-4 * sumSq(Array.from(cfrcExt, clip1));
    assert.ok(contact > 0, 'the feet are in contact');
    assert.deepEqual(Object.keys(step.info), ['x_position', 'y_position', 'distance_from_origin', 'x_velocity', 'y_velocity', 'reward_forward', 'reward_ctrl', 'reward_contact', 'reward_survive']);
    close(step.info.x_velocity, vx, 'x_velocity');
    close(step.info.y_velocity, vy, 'y_velocity');
    close(step.info.reward_forward, vx, 'reward_forward');
    close(step.info.reward_ctrl, -ctrl, 'reward_ctrl');
    close(step.info.reward_contact, -contact, 'reward_contact');
    assert.equal(step.info.reward_survive, 1);
    close(step.info.distance_from_origin, Math.hypot(qpos[0], qpos[1]), 'distance_from_origin');
    close(step.reward, vx + 1 - ctrl - contact, 'reward');
    assert.equal(env.maxSteps, 1000);
  });

  it('weighs its terms and clips contact forces by its settings', () => {
    const params = { forward_reward_weight: 2, ctrl_cost_weight: 0.1, contact_cost_weight: 1, healthy_reward: 3, contact_force_min: -0.5, contact_force_max: 0.5 };
    const env = settled('Ant', params, 1, 25);
    const step = env.step(wave(25, 8));
    const { cfrcExt } = env.sim;
    const clipHalf = (v: number) => Math.min(Math.max(v, -0.5), 0.5);
    close(step.info.reward_contact, -sumSq(Array.from(cfrcExt, clipHalf)), 'reward_contact');
    close(step.info.reward_ctrl, -0.1 * sumSq(wave(25, 8)), 'reward_ctrl');
    close(step.info.reward_forward, 2 * (step.info.x_velocity as number), 'reward_forward');
    assert.equal(step.info.reward_survive, 3);
    assert.deepEqual([...step.obs.slice(27)], f32(Array.from(cfrcExt.slice(6), clipHalf)));
  });

  it('ends the episode when the torso height leaves [0.2, 1.0], ends included', () => {
    const lifted = make('Ant');
    lifted.reset(0);
    const state = lifted.getState();
    state[2] = 1.5; // in the air: above 1.0
    lifted.setState(state);
    const step = lifted.step(new Array(8).fill(0));
    assert.equal(step.terminated, true);
    assert.equal(step.info.reward_survive, 0);
    for (const params of [{ healthy_z_max: 'none' }, { terminate_when_unhealthy: false }]) {
      const env = make('Ant', params);
      env.setState(state);
      assert.equal(env.step(new Array(8).fill(0)).terminated, false, JSON.stringify(params));
    }
    // The height after one step, by a twin run: a healthy_z_min of exactly that is still healthy.
    const twin = make('Ant');
    twin.reset(4);
    twin.step(new Array(8).fill(0));
    const z = twin.getState()[2];
    const edge = make('Ant', { healthy_z_min: z });
    edge.reset(4);
    assert.equal(edge.step(new Array(8).fill(0)).terminated, false, 'min <= z');
    const past = make('Ant', { healthy_z_min: z + 1e-9 });
    past.reset(4);
    assert.equal(past.step(new Array(8).fill(0)).terminated, true, 'z < min');
  });

  it('draws qpos from U(-0.1, 0.1) and qvel from 0.1 * N(0, 1) around the reference pose', () => {
    const env = make('Ant');
    const velocities: number[] = [];
    for (let seed = 0; seed < 30; seed++) {
      env.reset(seed);
      const state = env.getState();
      const reference = [0, 0, 0.75, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
      state.slice(0, 15).forEach((q, i) => assert.ok(Math.abs(q - reference[i]) <= 0.1 && q !== reference[i], `qpos ${i}`));
      velocities.push(...state.slice(15));
    }
    const outside = velocities.filter((v) => Math.abs(v) > 0.1).length / velocities.length;
    assert.ok(outside > 0.2 && outside < 0.45, `fraction outside one sd: ${outside}`);
  });
});

describe('Humanoid (Gymnasium Humanoid-v5)', () => {
  before(async () => {
    await prepareEnvKind('Humanoid');
  });

  it('observes qpos[2:], qvel, cinert, cvel, qfrc_actuator[6:] and cfrc_ext (348 numbers)', () => {
    const env = settled('Humanoid', { terminate_when_unhealthy: false }, 2, 40, 0.4);
    const step = env.step(wave(40, 17, 0.4));
    const { qpos, qvel, cinert, cvel, qfrcActuator, cfrcExt } = env.sim;
    assert.equal(step.obs.length, 348);
    assert.equal(env.obsFields.length, 348);
    assert.deepEqual([...step.obs], f32([...qpos.slice(2), ...qvel, ...cinert.slice(10), ...cvel.slice(6), ...qfrcActuator.slice(6), ...cfrcExt.slice(6)]));
    assert.ok(Array.from(cfrcExt).some((f) => f !== 0), 'it lies on the floor: contact forces');
    assert.equal(env.obsFields[45], 'cinert_torso_ixx');
    assert.equal(env.obsFields[175], 'cvel_torso_wx');
    assert.equal(env.obsFields[253], 'actuator_abdomen_z');
    assert.equal(env.obsFields[270], 'cfrc_ext_torso_tx');
  });

  it('pays 1.25 * the centre of mass x velocity + 5 while healthy - 0.1 * sum(ctrl^2) - min(5e-7 * sum(cfrc_ext^2), 10)', () => {
    const env = make('Humanoid');
    env.reset(5);
    const massCenter = () => {
      const { xipos, bodyMass } = env.sim;
      const total = bodyMass.reduce((s, m) => s + m, 0);
      let [x, y] = [0, 0];
      for (let b = 0; b < bodyMass.length; b++) [x, y] = [x + bodyMass[b] * xipos[3 * b], y + bodyMass[b] * xipos[3 * b + 1]];
      return [x / total, y / total];
    };
    const before = massCenter();
    const action = wave(1, 17, 0.4);
    const step = env.step(action);
    const after = massCenter();
    const vx = (after[0] - before[0]) / env.dt;
    assert.deepEqual(Object.keys(step.info), ['x_position', 'y_position', 'distance_from_origin', 'x_velocity', 'y_velocity', 'reward_survive', 'reward_forward', 'reward_ctrl', 'reward_contact']);
    close(step.info.x_velocity, vx, 'x_velocity');
    close(step.info.y_velocity, (after[1] - before[1]) / env.dt, 'y_velocity');
    close(step.info.reward_forward, 1.25 * vx, 'reward_forward');
    close(step.info.reward_ctrl, -0.1 * sumSq(action), 'reward_ctrl');
    close(step.info.reward_contact, -Math.min(5e-7 * sumSq(env.sim.cfrcExt), 10), 'reward_contact');
    assert.equal(step.info.reward_survive, 5);
    close(step.reward, 1.25 * vx + 5 - 0.1 * sumSq(action) + (step.info.reward_contact as number), 'reward');
  });

  it('clips the contact cost to contact_cost_max', () => {
    const env = settled('Humanoid', { terminate_when_unhealthy: false, contact_cost_max: 1e-6 }, 2, 40, 0.4);
    const step = env.step(wave(40, 17, 0.4));
    assert.ok(5e-7 * sumSq(env.sim.cfrcExt) > 1e-6, 'the raw cost is above the clip');
    assert.equal(step.info.reward_contact, -1e-6);
  });

  it('ends the episode when the torso height leaves (1, 2), ends excluded, and falls within a few dozen steps', () => {
    const twin = make('Humanoid');
    twin.reset(4);
    twin.step(new Array(17).fill(0));
    const z = twin.getState()[2];
    const edge = make('Humanoid', { healthy_z_max: z });
    edge.reset(4);
    assert.equal(edge.step(new Array(17).fill(0)).terminated, true, 'z = max is unhealthy');
    const inside = make('Humanoid', { healthy_z_max: z + 1e-9 });
    inside.reset(4);
    assert.equal(inside.step(new Array(17).fill(0)).terminated, false);
    const env = make('Humanoid');
    env.reset(0);
    let steps = 0;
    let step;
    do {
      step = env.step(new Array(17).fill(0));
      steps++;
      assert.equal(step.terminated, !(env.getState()[2] > 1 && env.getState()[2] < 2), `step ${steps}`);
    } while (!step.terminated && steps < 200);
    assert.ok(step.terminated && steps < 100, `fell after ${steps} steps`);
    assert.equal(step.info.reward_survive, 0);
  });

  it('draws qpos and qvel from U(-0.01, 0.01) around the reference pose', () => {
    const env = make('Humanoid');
    for (let seed = 0; seed < 10; seed++) {
      env.reset(seed);
      const state = env.getState();
      const reference = [0, 0, 1.4, 1, ...new Array(20).fill(0), ...new Array(23).fill(0)];
      state.forEach((v, i) => assert.ok(Math.abs(v - reference[i]) <= 0.01 && v !== reference[i], `state ${i}: ${v}`));
    }
  });
});

describe('Ant and Humanoid spaces', () => {
  it('act within the actuators\' control ranges, one env step being frame_skip (5) MuJoCo steps', async () => {
    await prepareEnvKind('Ant');
    const box = (n: number, high: number) => ({ kind: 'box', shape: [n], low: new Array(n).fill(-high), high: new Array(n).fill(Math.fround(high)) });
    assert.deepEqual(make('Ant').actionSpace, box(8, 1));
    assert.deepEqual(make('Humanoid').actionSpace, { ...box(17, 0.4), low: new Array(17).fill(Math.fround(-0.4)) });
    // dt = timestep * frame_skip: Gymnasium's render_fps of 20 and 67.
    assert.ok(Math.abs(make('Ant').dt - 0.05) < 1e-12);
    assert.ok(Math.abs(make('Humanoid').dt - 0.015) < 1e-12);
    assert.ok(Math.abs(make('Ant', { frame_skip: 2 }).dt - 0.02) < 1e-12);
    assert.equal(make('Humanoid').maxSteps, 1000);
  });
});

describe('Ant and Humanoid trajectories', () => {
  it('repeat exactly for a seed, and resume from getState()', async () => {
    await prepareEnvKind('Ant');
    for (const kind of ['Ant', 'Humanoid']) {
      const run = (seed: number) => {
        const env = make(kind, { terminate_when_unhealthy: false });
        const obs: number[] = [...env.reset(seed).obs];
        for (let t = 0; t < 40; t++) obs.push(...env.step(wave(t, env.actionDim, 0.4)).obs);
        return obs;
      };
      assert.deepEqual(run(9), run(9), kind);
      assert.notDeepEqual(run(9), run(10), kind);
    }
    const env = settled('Ant', {}, 6, 10);
    const saved = env.getState();
    const next = env.step(wave(10, 8));
    const resumed = make('Ant');
    resumed.setState(saved);
    const again = resumed.step(wave(10, 8));
    assert.deepEqual([...again.obs], [...next.obs]);
    assert.deepEqual([again.info.reward_ctrl, again.info.reward_contact, again.info.reward_survive], [next.info.reward_ctrl, next.info.reward_contact, next.info.reward_survive]);
    // Not the forward term, as in Gymnasium: the torso's xpos "before" is MuJoCo's, computed at
    // the start of the last MuJoCo step, while setState's mj_forward recomputes it from qpos.
    assert.ok(Math.abs((again.info.reward_forward as number) - (next.info.reward_forward as number)) < 0.5);
  });

  it('reproduce a recorded Ant trajectory of MuJoCo 3.14 to 1e-9', async () => {
    await prepareEnvKind('Ant');
    const env = make('Ant', { terminate_when_unhealthy: false });
    env.setState([0, 0, 0.75, 1, ...new Array(11).fill(0), ...new Array(14).fill(0)]);
    let sum = 0;
    for (let t = 0; t < 200; t++) sum += env.step(wave(t, 8)).reward;
    const [x] = env.getState();
    assert.ok(Math.abs(sum - RECORDED.returns) < 1e-9, `return ${sum}, x ${x}`);
    assert.ok(Math.abs(x - RECORDED.x) < 1e-9, `x ${x}`);
  });
});

/** Written down from this test's own run on MuJoCo 3.14.0's WebAssembly build (Node 20, x86-64). */
const RECORDED = { returns: -257.65134866561715, x: -0.18374380018664926 };
