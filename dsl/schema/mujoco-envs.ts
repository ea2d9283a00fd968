// Built-in MuJoCo environments (docs/mujoco.md): Gymnasium v5's locomotion and control tasks,
// simulated by MuJoCo's own WebAssembly build. Settings keep Gymnasium's keyword names and
// defaults; a tuple range of Gymnasium (healthy_z_range) is a pair of settings (healthy_z_min,
// healthy_z_max), `none` standing for an unbounded side. The reward's terms are reported as
// info values under Gymnasium's info keys, so a reward can reweight them (`info.reward_forward`).
import { bool, choice, count, num, oneOf, option, param, maxSteps } from './build.js';
import type { EnvSpec, ParamSpec } from './types.js';

const weight = num({ min: 0, max: 1e6 });
const noise = (value: number) => param('reset_noise_scale', num({ min: 0, max: 10 }), value, 'Half-width of the uniform reset noise on each qpos and qvel.');
const frameSkip = (value: number) => param('frame_skip', count({ max: 1000 }), value, 'MuJoCo steps per env step: dt = timestep * frame_skip.');
const forward = param('forward_reward_weight', weight, 1.0, 'Weight of the forward reward (reward_forward = weight * x velocity).');
const ctrl = (value: number) => param('ctrl_cost_weight', weight, value, 'Weight of the control cost (reward_ctrl = -weight * sum(action^2)).');
const bound = (name: string, value: number | 'none', doc: string): ParamSpec =>
  param(name, oneOf(choice(option('none', 'No bound on this side.')), num()), value, doc);
const healthy = (value: number) => [
  param('healthy_reward', weight, value, 'Reward per step while the body is healthy (reward_survive).'),
  param('terminate_when_unhealthy', bool, true, 'End the episode when the body stops being healthy.'),
];

/** Observation names of joints: a position by the joint's name ("_joint" dropped), a velocity with "_vel". */
function joints(positions: string[], velocities: string[]): string[] {
  return [...positions, ...velocities.map((joint) => `${joint}_vel`)];
}

const CHEETAH = ['rootx', 'rootz', 'rooty', 'bthigh', 'bshin', 'bfoot', 'fthigh', 'fshin', 'ffoot'];
const HOPPER = ['rootx', 'rootz', 'rooty', 'thigh', 'leg', 'foot'];
const WALKER = [...HOPPER, 'thigh_left', 'leg_left', 'foot_left'];
const SWIMMER = ['slider1', 'slider2', 'free_body_rot', 'motor1_rot', 'motor2_rot'];
const RUNNER_INFO = ['x_position', 'x_velocity', 'reward_forward', 'reward_ctrl'];
const HEALTHY_INFO = ['x_position', 'z_distance_from_origin', 'x_velocity', 'reward_forward', 'reward_ctrl', 'reward_survive'];

export const InvertedPendulum: EnvSpec = {
  declKind: 'env',
  name: 'InvertedPendulum',
  doc: 'Keep a pole upright on a cart by pushing the cart (Gymnasium InvertedPendulum-v5, MuJoCo). Reward 1 per step (info.reward_survive); the episode ends when the pole tilts past 0.2 rad.',
  obsFields: joints(['slider', 'hinge'], ['slider', 'hinge']),
  action: 'continuous',
  infoFields: ['reward_survive'],
  params: [maxSteps(1000), frameSkip(2), noise(0.01)],
};

export const InvertedDoublePendulum: EnvSpec = {
  declKind: 'env',
  name: 'InvertedDoublePendulum',
  doc: 'Keep two stacked poles upright on a cart (Gymnasium InvertedDoublePendulum-v5, MuJoCo). Reward healthy_reward while the tip is above y = 1 (info.reward_survive), minus its distance from the top (info.distance_penalty) and the hinges\' speed (info.velocity_penalty); the episode ends when the tip falls to y <= 1.',
  obsFields: ['slider', 'sin_hinge', 'sin_hinge2', 'cos_hinge', 'cos_hinge2', 'slider_vel', 'hinge_vel', 'hinge2_vel', 'slider_constraint'],
  action: 'continuous',
  infoFields: ['reward_survive', 'distance_penalty', 'velocity_penalty'],
  params: [
    maxSteps(1000), frameSkip(5),
    param('healthy_reward', weight, 10.0, 'Reward per step while the tip is above y = 1 (reward_survive).'),
    { ...noise(0.1), doc: 'Scale of the reset noise: U(-scale, scale) on each qpos, scale * N(0, 1) on each qvel.' },
  ],
};

export const HalfCheetah: EnvSpec = {
  declKind: 'env',
  name: 'HalfCheetah',
  doc: 'Make a planar two-legged cheetah run forward (Gymnasium HalfCheetah-v5, MuJoCo). Reward: forward velocity (info.reward_forward) minus the control cost (info.reward_ctrl); never terminates.',
  obsFields: joints(CHEETAH.slice(1), CHEETAH),
  action: 'continuous',
  infoFields: RUNNER_INFO,
  params: [maxSteps(1000), frameSkip(5), forward, ctrl(0.1),
    { ...noise(0.1), doc: 'Scale of the reset noise: U(-scale, scale) on each qpos, scale * N(0, 1) on each qvel.' }],
};

export const Hopper: EnvSpec = {
  declKind: 'env',
  name: 'Hopper',
  doc: 'Make a one-legged planar robot hop forward (Gymnasium Hopper-v5, MuJoCo). Reward: forward velocity (info.reward_forward) plus healthy_reward while healthy (info.reward_survive) minus the control cost (info.reward_ctrl); the episode ends when it falls (height, angle or state out of range).',
  obsFields: joints(HOPPER.slice(1), HOPPER),
  action: 'continuous',
  infoFields: HEALTHY_INFO,
  params: [
    maxSteps(1000), frameSkip(4), forward, ctrl(0.001), ...healthy(1.0),
    bound('healthy_state_min', -100, 'Healthy only while every qpos[2:] and qvel is above this.'),
    bound('healthy_state_max', 100, 'Healthy only while every qpos[2:] and qvel is below this.'),
    bound('healthy_z_min', 0.7, 'Healthy only while the torso\'s height (qpos[1]) is above this.'),
    bound('healthy_z_max', 'none', 'Healthy only while the torso\'s height is below this.'),
    bound('healthy_angle_min', -0.2, 'Healthy only while the torso\'s angle (qpos[2]) is above this.'),
    bound('healthy_angle_max', 0.2, 'Healthy only while the torso\'s angle is below this.'),
    noise(0.005),
  ],
};

export const Walker2d: EnvSpec = {
  declKind: 'env',
  name: 'Walker2d',
  doc: 'Make a two-legged planar robot walk forward (Gymnasium Walker2d-v5, MuJoCo). Reward: forward velocity (info.reward_forward) plus healthy_reward while healthy (info.reward_survive) minus the control cost (info.reward_ctrl); the episode ends when it falls (height or angle out of range).',
  obsFields: joints(WALKER.slice(1), WALKER),
  action: 'continuous',
  infoFields: HEALTHY_INFO,
  params: [
    maxSteps(1000), frameSkip(4), forward, ctrl(0.001), ...healthy(1.0),
    bound('healthy_z_min', 0.8, 'Healthy only while the torso\'s height (qpos[1]) is above this.'),
    bound('healthy_z_max', 2.0, 'Healthy only while the torso\'s height is below this.'),
    bound('healthy_angle_min', -1.0, 'Healthy only while the torso\'s angle (qpos[2]) is above this.'),
    bound('healthy_angle_max', 1.0, 'Healthy only while the torso\'s angle is below this.'),
    noise(0.005),
  ],
};

export const Swimmer: EnvSpec = {
  declKind: 'env',
  name: 'Swimmer',
  doc: 'Make a three-link swimmer move forward through a viscous fluid (Gymnasium Swimmer-v5, MuJoCo). Reward: forward velocity (info.reward_forward) minus the control cost (info.reward_ctrl); never terminates.',
  obsFields: joints(SWIMMER.slice(2), SWIMMER),
  action: 'continuous',
  infoFields: ['x_position', 'y_position', 'distance_from_origin', 'x_velocity', 'y_velocity', 'reward_forward', 'reward_ctrl'],
  params: [maxSteps(1000), frameSkip(4), forward, ctrl(1e-4),
    noise(0.1)],
};

export const MUJOCO_ENVS: EnvSpec[] = [InvertedPendulum, InvertedDoublePendulum, HalfCheetah, Hopper, Walker2d, Swimmer];

/** Whether `kind` is a built-in MuJoCo env (its copies need the MuJoCo engine loaded). */
export function isMujocoEnvKind(kind: string): boolean {
  return MUJOCO_ENVS.some((spec) => spec.name === kind);
}
