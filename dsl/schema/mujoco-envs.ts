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

/** A MuJoCo env's declaration: every one is an env with continuous actions (its actuators). */
const mujocoEnv = (spec: Omit<EnvSpec, 'declKind' | 'action'>): EnvSpec => ({ declKind: 'env', action: 'continuous', ...spec });

const CHEETAH = ['rootx', 'rootz', 'rooty', 'bthigh', 'bshin', 'bfoot', 'fthigh', 'fshin', 'ffoot'];
const HOPPER = ['rootx', 'rootz', 'rooty', 'thigh', 'leg', 'foot'];
const WALKER = [...HOPPER, 'thigh_left', 'leg_left', 'foot_left'];
const SWIMMER = ['slider1', 'slider2', 'free_body_rot', 'motor1_rot', 'motor2_rot'];
const RUNNER_INFO = ['x_position', 'x_velocity', 'reward_forward', 'reward_ctrl'];
const HEALTHY_INFO = ['x_position', 'z_distance_from_origin', 'x_velocity', 'reward_forward', 'reward_ctrl', 'reward_survive'];

export const InvertedPendulum = mujocoEnv({
  name: 'InvertedPendulum',
  doc: 'Keep a pole upright on a cart by pushing the cart (Gymnasium InvertedPendulum-v5, MuJoCo). Reward 1 per step (info.reward_survive); the episode ends when the pole tilts past 0.2 rad.',
  obsFields: joints(['slider', 'hinge'], ['slider', 'hinge']),
  infoFields: ['reward_survive'],
  params: [maxSteps(1000), frameSkip(2), noise(0.01)],
});

export const InvertedDoublePendulum = mujocoEnv({
  name: 'InvertedDoublePendulum',
  doc: 'Keep two stacked poles upright on a cart (Gymnasium InvertedDoublePendulum-v5, MuJoCo). Reward healthy_reward while the tip is above y = 1 (info.reward_survive), minus its distance from the top (info.distance_penalty) and the hinges\' speed (info.velocity_penalty); the episode ends when the tip falls to y <= 1.',
  obsFields: ['slider', 'sin_hinge', 'sin_hinge2', 'cos_hinge', 'cos_hinge2', 'slider_vel', 'hinge_vel', 'hinge2_vel', 'slider_constraint'],
  infoFields: ['reward_survive', 'distance_penalty', 'velocity_penalty'],
  params: [
    maxSteps(1000), frameSkip(5),
    param('healthy_reward', weight, 10.0, 'Reward per step while the tip is above y = 1 (reward_survive).'),
    { ...noise(0.1), doc: 'Scale of the reset noise: U(-scale, scale) on each qpos, scale * N(0, 1) on each qvel.' },
  ],
});

export const HalfCheetah = mujocoEnv({
  name: 'HalfCheetah',
  doc: 'Make a planar two-legged cheetah run forward (Gymnasium HalfCheetah-v5, MuJoCo). Reward: forward velocity (info.reward_forward) minus the control cost (info.reward_ctrl); never terminates.',
  obsFields: joints(CHEETAH.slice(1), CHEETAH),
  infoFields: RUNNER_INFO,
  params: [maxSteps(1000), frameSkip(5), forward, ctrl(0.1),
    { ...noise(0.1), doc: 'Scale of the reset noise: U(-scale, scale) on each qpos, scale * N(0, 1) on each qvel.' }],
});

export const Hopper = mujocoEnv({
  name: 'Hopper',
  doc: 'Make a one-legged planar robot hop forward (Gymnasium Hopper-v5, MuJoCo). Reward: forward velocity (info.reward_forward) plus healthy_reward while healthy (info.reward_survive) minus the control cost (info.reward_ctrl); the episode ends when it falls (height, angle or state out of range).',
  obsFields: joints(HOPPER.slice(1), HOPPER),
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
});

export const Walker2d = mujocoEnv({
  name: 'Walker2d',
  doc: 'Make a two-legged planar robot walk forward (Gymnasium Walker2d-v5, MuJoCo). Reward: forward velocity (info.reward_forward) plus healthy_reward while healthy (info.reward_survive) minus the control cost (info.reward_ctrl); the episode ends when it falls (height or angle out of range).',
  obsFields: joints(WALKER.slice(1), WALKER),
  infoFields: HEALTHY_INFO,
  params: [
    maxSteps(1000), frameSkip(4), forward, ctrl(0.001), ...healthy(1.0),
    bound('healthy_z_min', 0.8, 'Healthy only while the torso\'s height (qpos[1]) is above this.'),
    bound('healthy_z_max', 2.0, 'Healthy only while the torso\'s height is below this.'),
    bound('healthy_angle_min', -1.0, 'Healthy only while the torso\'s angle (qpos[2]) is above this.'),
    bound('healthy_angle_max', 1.0, 'Healthy only while the torso\'s angle is below this.'),
    noise(0.005),
  ],
});

export const Swimmer = mujocoEnv({
  name: 'Swimmer',
  doc: 'Make a three-link swimmer move forward through a viscous fluid (Gymnasium Swimmer-v5, MuJoCo). Reward: forward velocity (info.reward_forward) minus the control cost (info.reward_ctrl); never terminates.',
  obsFields: joints(SWIMMER.slice(2), SWIMMER),
  infoFields: ['x_position', 'y_position', 'distance_from_origin', 'x_velocity', 'y_velocity', 'reward_forward', 'reward_ctrl'],
  params: [maxSteps(1000), frameSkip(4), forward, ctrl(1e-4),
    noise(0.1)],
});

// ---- 3D bodies on a free joint (Ant, Humanoid), and arms reaching for a target (Reacher, Pusher)

/** A free joint's observed positions (x and y left out, as Gymnasium's default) and velocities: linear (x, y, z) then angular (wx, wy, wz). */
const FREE_ROOT = {
  positions: ['root_z', 'root_qw', 'root_qx', 'root_qy', 'root_qz'],
  velocities: ['root_x_vel', 'root_y_vel', 'root_z_vel', 'root_wx_vel', 'root_wy_vel', 'root_wz_vel'],
};

/** One name per body and component, body by body (MuJoCo's row-major nbody x n arrays, world left out). */
function perBody(prefix: string, bodies: string[], components: string[]): string[] {
  return bodies.flatMap((body) => components.map((component) => `${prefix}_${body}_${component}`));
}

/** cfrc_ext's six components per body: torque (tx, ty, tz) then force (fx, fy, fz), as MuJoCo's spatial vectors. */
const SPATIAL_FORCE = ['tx', 'ty', 'tz', 'fx', 'fy', 'fz'];
const SPATIAL_VELOCITY = ['wx', 'wy', 'wz', 'vx', 'vy', 'vz'];
/** cinert's ten components per body: the inertia's 6 entries, the mass times the centre of mass offset, the mass. */
const INERTIA = ['ixx', 'iyy', 'izz', 'ixy', 'ixz', 'iyz', 'mcx', 'mcy', 'mcz', 'm'];
const XY_INFO = ['x_position', 'y_position', 'distance_from_origin', 'x_velocity', 'y_velocity'];
/** A uniform range setting of Gymnasium's as two settings, `none` for an unbounded side. */
const bounds = (name: string, min: number | 'none', max: number | 'none', what: string): ParamSpec[] => [
  bound(`${name}_min`, min, `Lower end of ${what}.`),
  bound(`${name}_max`, max, `Upper end of ${what}.`),
];
const contactWeight = (value: number) => param('contact_cost_weight', weight, value, 'Weight of the contact cost (reward_contact = -weight * sum(cfrc_ext^2)).');

// The bodies after the world: the ant's unnamed lower legs are foot_1 .. foot_4 (after their ankle joints).
const ANT_BODIES = ['torso', 'front_left_leg', 'aux_1', 'foot_1', 'front_right_leg', 'aux_2', 'foot_2', 'back_leg', 'aux_3', 'foot_3', 'right_back_leg', 'aux_4', 'foot_4'];
const ANT_JOINTS = ['hip_1', 'ankle_1', 'hip_2', 'ankle_2', 'hip_3', 'ankle_3', 'hip_4', 'ankle_4'];

export const Ant = mujocoEnv({
  name: 'Ant',
  doc: 'Make a four-legged 3D robot walk forward (Gymnasium Ant-v5, MuJoCo). Reward: the torso\'s x velocity (info.reward_forward) plus healthy_reward while healthy (info.reward_survive) minus the control cost (info.reward_ctrl) and the contact cost of the clipped contact forces (info.reward_contact); the episode ends when the torso\'s height leaves [healthy_z_min, healthy_z_max] or the state is not finite. Observes qpos[2:], qvel and the bodies\' clipped contact forces (cfrc_ext_BODY_tx .. _fz).',
  obsFields: [...FREE_ROOT.positions, ...ANT_JOINTS, ...FREE_ROOT.velocities, ...ANT_JOINTS.map((j) => `${j}_vel`), ...perBody('cfrc_ext', ANT_BODIES, SPATIAL_FORCE)],
  infoFields: [...XY_INFO, 'reward_forward', 'reward_ctrl', 'reward_contact', 'reward_survive'],
  params: [
    maxSteps(1000), frameSkip(5), forward, ctrl(0.5), contactWeight(5e-4), ...healthy(1.0),
    ...bounds('healthy_z', 0.2, 1.0, 'the torso height (qpos[2]) that is healthy, ends included'),
    ...bounds('contact_force', -1.0, 1.0, 'the range cfrc_ext is clipped to, in the observation and the contact cost'),
    { ...noise(0.1), doc: 'Scale of the reset noise: U(-scale, scale) on each qpos, scale * N(0, 1) on each qvel.' },
  ],
});

const HUMANOID_BODIES = ['torso', 'lwaist', 'pelvis', 'right_thigh', 'right_shin', 'right_foot', 'left_thigh', 'left_shin', 'left_foot', 'right_upper_arm', 'right_lower_arm', 'left_upper_arm', 'left_lower_arm'];
const HUMANOID_JOINTS = ['abdomen_z', 'abdomen_y', 'abdomen_x', 'right_hip_x', 'right_hip_z', 'right_hip_y', 'right_knee', 'left_hip_x', 'left_hip_z', 'left_hip_y', 'left_knee',
  'right_shoulder1', 'right_shoulder2', 'right_elbow', 'left_shoulder1', 'left_shoulder2', 'left_elbow'];

export const Humanoid = mujocoEnv({
  name: 'Humanoid',
  doc: 'Make a 3D humanoid walk forward without falling (Gymnasium Humanoid-v5, MuJoCo). Reward: the x velocity of its centre of mass times forward_reward_weight (info.reward_forward) plus healthy_reward while healthy (info.reward_survive) minus the control cost (info.reward_ctrl) and the clipped contact cost (info.reward_contact); the episode ends when the torso\'s height leaves (healthy_z_min, healthy_z_max). Observes qpos[2:], qvel, the bodies\' cinert and cvel, the joints\' actuator forces and the bodies\' contact forces.',
  obsFields: [
    ...FREE_ROOT.positions, ...HUMANOID_JOINTS, ...FREE_ROOT.velocities, ...HUMANOID_JOINTS.map((j) => `${j}_vel`),
    ...perBody('cinert', HUMANOID_BODIES, INERTIA), ...perBody('cvel', HUMANOID_BODIES, SPATIAL_VELOCITY),
    ...HUMANOID_JOINTS.map((j) => `actuator_${j}`), ...perBody('cfrc_ext', HUMANOID_BODIES, SPATIAL_FORCE),
  ],
  infoFields: [...XY_INFO, 'reward_survive', 'reward_forward', 'reward_ctrl', 'reward_contact'],
  params: [
    maxSteps(1000), frameSkip(5), { ...forward, default: 1.25, doc: 'Weight of the forward reward (reward_forward = weight * x velocity of the centre of mass).' },
    ctrl(0.1), contactWeight(5e-7),
    ...bounds('contact_cost', 'none', 10.0, 'the range the contact cost is clipped to'),
    ...healthy(5.0),
    ...bounds('healthy_z', 1.0, 2.0, 'the torso height (qpos[2]) that is healthy, ends excluded'),
    noise(1e-2),
  ],
});

export const Reacher = mujocoEnv({
  name: 'Reacher',
  doc: 'Move a two-joint arm\'s fingertip to a random target (Gymnasium Reacher-v5, MuJoCo). Reward: minus the fingertip\'s distance to the target (info.reward_dist) minus the control cost (info.reward_ctrl); never terminates, 50 steps an episode.',
  obsFields: ['cos_joint0', 'cos_joint1', 'sin_joint0', 'sin_joint1', 'target_x', 'target_y', 'joint0_vel', 'joint1_vel', 'fingertip_to_target_x', 'fingertip_to_target_y'],
  infoFields: ['reward_dist', 'reward_ctrl'],
  params: [
    maxSteps(50), frameSkip(2),
    param('reward_dist_weight', weight, 1, 'Weight of the distance term (reward_dist = -weight * |fingertip - target|).'),
    param('reward_control_weight', weight, 1, 'Weight of the control cost (reward_ctrl = -weight * sum(action^2)).'),
  ],
});

const PUSHER_JOINTS = ['r_shoulder_pan', 'r_shoulder_lift', 'r_upper_arm_roll', 'r_elbow_flex', 'r_forearm_roll', 'r_wrist_flex', 'r_wrist_roll'];
const xyz = (body: string) => ['x', 'y', 'z'].map((axis) => `${body}_${axis}`);

export const Pusher = mujocoEnv({
  name: 'Pusher',
  doc: 'Push a cylinder to a goal with a seven-joint arm (Gymnasium Pusher-v5, MuJoCo). Reward: minus the object\'s distance to the goal (info.reward_dist), minus the fingertip\'s distance to the object (info.reward_near), minus the control cost (info.reward_ctrl); never terminates, 100 steps an episode.',
  obsFields: [...PUSHER_JOINTS, ...PUSHER_JOINTS.map((j) => `${j}_vel`), ...xyz('tips_arm'), ...xyz('object'), ...xyz('goal')],
  infoFields: ['reward_dist', 'reward_ctrl', 'reward_near'],
  params: [
    maxSteps(100), frameSkip(5),
    param('reward_near_weight', weight, 0.5, 'Weight of the near term (reward_near = -weight * |object - fingertip|).'),
    param('reward_dist_weight', weight, 1, 'Weight of the distance term (reward_dist = -weight * |object - goal|).'),
    param('reward_control_weight', weight, 0.1, 'Weight of the control cost (reward_ctrl = -weight * sum(action^2)).'),
  ],
});

export const MUJOCO_ENVS: EnvSpec[] = [InvertedPendulum, InvertedDoublePendulum, HalfCheetah, Hopper, Walker2d, Swimmer, Ant, Reacher, Pusher, Humanoid];

/** Whether `kind` is a built-in MuJoCo env (its copies need the MuJoCo engine loaded). */
export function isMujocoEnvKind(kind: string): boolean {
  return MUJOCO_ENVS.some((spec) => spec.name === kind);
}
