// Built-in environments (docs/language.md#built-in-environments). Classic-control envs follow Gymnasium 0.29's
// dynamics and constants; their parameters keep the names of the physical quantities.
import { bool, choice, count, int, num, option, param, maxSteps, probability, string } from './build.js';
import { MUJOCO_ENVS } from './mujoco-envs.js';
import type { EnvSpec, ParamSpec } from './types.js';

const positive = (max?: number) => num({ min: 0, exclusiveMin: true, max });

export const CartPole: EnvSpec = {
  declKind: 'env',
  name: 'CartPole',
  doc: 'Balance a pole on a cart by pushing it left or right (Gymnasium CartPole-v1). Reward 1 per step; the episode ends when the pole tilts past 12 degrees or the cart leaves the track.',
  obsFields: ['x', 'x_dot', 'theta', 'theta_dot'],
  action: 'discrete',
  params: [
    maxSteps(500),
    param('gravity', positive(100), 9.8, 'Gravitational acceleration (m/s^2).'),
    param('cart_mass', positive(100), 1.0, 'Mass of the cart (kg).'),
    param('pole_mass', positive(100), 0.1, 'Mass of the pole (kg).'),
    param('pole_half_length', positive(100), 0.5, 'Half the length of the pole (m).'),
    param('force', positive(1000), 10.0, 'Force of one push (N).'),
    param('tau', positive(1), 0.02, 'Seconds between steps (Euler integration).'),
  ],
};

export const CartPoleNoVel: EnvSpec = {
  ...CartPole,
  name: 'CartPoleNoVel',
  doc: 'CartPole observed without its velocities: the cart position and pole angle only (SB3-contrib\'s CartPoleNoVelEnv). Partially observed: a policy must remember earlier observations to balance it, so use a recurrent core (`core: gru(64)`).',
  obsFields: ['x', 'theta'],
};

export const MountainCar: EnvSpec = {
  declKind: 'env',
  name: 'MountainCar',
  doc: 'Drive an under-powered car up a hill by rocking back and forth (Gymnasium MountainCar-v0). Reward -1 per step until the flag at position 0.5 is reached.',
  obsFields: ['position', 'velocity'],
  action: 'discrete',
  params: [
    maxSteps(200),
    param('force', positive(1), 0.001, 'Acceleration of one push.'),
    param('gravity', positive(1), 0.0025, 'Strength of the slope.'),
    param('goal_velocity', num({ min: 0, max: 0.07 }), 0, 'Minimum velocity at the goal.'),
  ],
};

export const Acrobot: EnvSpec = {
  declKind: 'env',
  name: 'Acrobot',
  doc: 'Swing the end of a two-link pendulum above a line by torquing the middle joint (Gymnasium Acrobot-v1). Reward -1 per step until it is up.',
  obsFields: ['cos_theta1', 'sin_theta1', 'cos_theta2', 'sin_theta2', 'dtheta1', 'dtheta2'],
  action: 'discrete',
  params: [maxSteps(500)],
};

export const Pendulum: EnvSpec = {
  declKind: 'env',
  name: 'Pendulum',
  doc: 'Swing a pendulum up and keep it upright with a continuous torque in [-max_torque, max_torque] (Gymnasium Pendulum-v1). Reward is minus the cost of angle, speed and torque.',
  obsFields: ['cos_theta', 'sin_theta', 'theta_dot'],
  action: 'continuous',
  params: [
    maxSteps(200),
    param('g', positive(100), 10.0, 'Gravitational acceleration.'),
    param('max_speed', positive(100), 8.0, 'Angular speed limit.'),
    param('max_torque', positive(100), 2.0, 'Torque limit: actions are clipped to [-max_torque, max_torque].'),
  ],
};

export const GridWorld: EnvSpec = {
  declKind: 'env',
  name: 'GridWorld',
  doc: 'Move through a grid (up, down, left, right) to a goal cell. Goal-conditioned: observations include the goal, and `achieved` is the agent\'s cell, so hindsight relabeling applies. Reward 1 on reaching the goal, else 0.',
  obsFields: ['x', 'y', 'goal_x', 'goal_y'],
  action: 'discrete',
  goalConditioned: true,
  params: [
    param('layout', choice(
      option('open', 'An empty room with walls around it.'),
      option('four_rooms', 'Four rooms joined by doorways (Sutton, Precup and Singh).'),
      option('maze', 'A maze generated from the seed, every cell reachable.'),
    ), 'open', 'Arrangement of walls.'),
    param('size', int({ min: 5, max: 101 }), 11, 'Width and height of the grid in cells: coordinates run from 0 to size - 1 (odd sizes suit four_rooms and maze).'),
    param('goal', choice(
      option('random', 'A new random free cell each episode.'),
      option('fixed', 'Always the same cell.', [
        { name: 'x', type: int({ min: 0 }), required: true, doc: 'Column of the goal.' },
        { name: 'y', type: int({ min: 0 }), required: true, doc: 'Row of the goal.' },
      ]),
    ), 'random', 'Where the goal is.'),
    maxSteps(100),
  ],
};

export const Bandit: EnvSpec = {
  declKind: 'env',
  name: 'Bandit',
  doc: 'A k-armed bandit: each step pulls one arm and pays a Gaussian reward around that arm\'s hidden mean (means drawn from the seed).',
  obsFields: [],
  action: 'discrete',
  params: [
    { ...param('arms', int({ min: 2, max: 1000 }), 10, 'Number of arms.'), changesSpaces: true },
    param('reward_std', num({ min: 0, max: 100 }), 1.0, 'Standard deviation of the reward around an arm\'s mean.'),
    maxSteps(1),
  ],
};

export const FreeSlots: EnvSpec = {
  declKind: 'env',
  name: 'FreeSlots',
  doc: 'Pick a free slot in a row of slots, some taken at the start of each episode. Filling a free slot pays 1; picking a taken one is an illegal action: the episode ends with reward -penalty. It succeeds when every slot is full. The observation is the row (1 taken, 0 free), without names; the env gives the action mask (1 for each free slot), so masked learners never pick a taken slot (see `action_mask` of PPO, DQN and SAC).',
  obsFields: [],
  action: 'discrete',
  actionMask: true,
  params: [
    { ...param('slots', int({ min: 2, max: 64 }), 8, 'Number of slots (and of actions).'), changesSpaces: true },
    param('taken', probability(), 0.5, 'Probability that a slot starts taken; at least one starts free.'),
    param('penalty', num({ min: 0, max: 1000 }), 1, 'What an illegal action (a taken slot) costs: its reward is -penalty, and the episode ends.'),
  ],
};

export const Catch: EnvSpec = {
  declKind: 'env',
  name: 'Catch',
  doc: 'A pixel game (bsuite\'s catch): a ball falls from a random column of the top row, one row per step, and a paddle three pixels wide moves left, stays or moves right (actions 0, 1, 2) along the bottom row. Reward +1 for catching the ball, -1 for missing it; either ends the episode. Observations are images [1, size, size] of pixels 0 or 255, for a `cnn` policy.',
  obsFields: [],
  action: 'discrete',
  image: true,
  params: [
    { ...param('size', int({ min: 5, max: 128 }), 16, 'Width and height of the board in pixels; the ball falls size - 1 rows. The `cnn` policy\'s `nature` encoder needs at least 36.'), changesSpaces: true },
    maxSteps(1000),
  ],
};

const length = (doc: string) => param('len', count({ max: 64 }), 5, doc);

export const TextTask: EnvSpec = {
  declKind: 'env',
  name: 'TextTask',
  doc: 'A text task with a checkable answer: the policy reads a prompt and writes a completion, which a verifier compares with the target. Single-turn.',
  obsFields: [],
  action: 'text',
  params: [
    param('task', choice(
      option('addition', 'Add two numbers: "12+34=" -> "46".', [
        param('digits', count({ max: 8 }), 2, 'Digits per operand.'),
        param('pad', bool, false, 'Write every number at a fixed width with leading zeros, the operands at `digits` and the sum at `digits + 1`: "05+37=" -> "042". Each digit then has one place in every prompt and answer, which makes the task much easier for a small model.'),
      ]),
      option('reverse', 'Reverse a string of letters: "abcde" -> "edcba".', [length('Length of the string.')]),
      option('sort', 'Sort a string of digits: "31415" -> "11345".', [length('Length of the string.')]),
      option('dataset', 'Your own prompts and targets: a JSONL file with one {"prompt": ..., "target": ...} object per line, or TRL\'s conversational rows ({"prompt": [messages], "target": ...}, {"messages": [..., assistant answer]}). Every other field of a row is `row.NAME` in reward terms and a keyword argument of Python reward functions. A fixed hash of each prompt holds out a tenth of them for evaluation.', [
        param('path', string, undefined, 'The JSONL file, relative to the .rlx file and inside its folder (a path out of it is refused: copy or link the file there). Lines end with \\n, \\r\\n or \\r; a regular file of at most 512 MiB; bytes that are not UTF-8 are read as U+FFFD, with a warning naming the line. The run keeps a copy (source/dataset.jsonl).'),
      ]),
    ), { kind: 'addition', digits: 2 }, 'Which task generates prompts and targets.'),
    param('max_tokens', count({ max: 1_048_576 }), 8, 'Longest completion, in the policy\'s tokens: characters for the character-level transformer, the model\'s own tokens for a pretrained one, where the prompt and the completion together must fit the model\'s context (rlx check says so at this setting).'),
    param('python', string, '', 'The Python interpreter that runs the reward\'s `python("./file.py:function")` terms; RLX_PYTHON, or python3 on PATH, when left out. Only read when the reward has such a term.'),
    param('reward_timeout', num({ min: 0, exclusiveMin: true, max: 86400 }), 60, 'Seconds one call of a Python reward function (one batch of completions) may take before the run fails with "did not return within N s" (starting Python and importing the reward files may take 30 s or this, whichever is longer).'),
    param('code_timeout', num({ min: 0, exclusiveMin: true, max: 600 }), 5, 'Seconds the code of one completion may run against its tests in `passes(...)` (its own process, killed past it: the tests it had not passed by then count as failed).'),
    param('code_memory', count({ min: 32, max: 65_536 }), 512, 'MiB of address space the code of one completion may take in `passes(...)`; past it the code fails with a MemoryError (its later tests count as failed).'),
  ],
};

export const GuessNumber: EnvSpec = {
  declKind: 'env',
  name: 'GuessNumber',
  doc: 'A multi-turn text dialogue: the agent guesses a hidden whole number and the env answers "higher", "lower" or "correct". Reward 1 for finding it. Each turn reports `info.turns` (guesses so far, this one included) and `info.hidden` (the hidden number) to reward terms.',
  obsFields: [],
  action: 'text',
  infoFields: ['turns', 'hidden'],
  dialogue: true,
  params: [
    param('low', int(), 1, 'Smallest possible number.'),
    param('high', int(), 100, 'Largest possible number.'),
    param('max_turns', count({ max: 1000 }), 7, 'Guesses allowed before the episode ends.'),
  ],
};

export const ENVS: EnvSpec[] = [CartPole, CartPoleNoVel, MountainCar, Acrobot, Pendulum, GridWorld, Bandit, FreeSlots, Catch, ...MUJOCO_ENVS, TextTask, GuessNumber];

/**
 * What rlx itself reads from a user environment's body (`env X = module("./file.ts") { ... }`);
 * every other property goes to the module as written. The module runs in a worker thread, so a
 * reset() or step() that never returns fails the run instead of hanging it.
 */
export const MODULE_ENV_PARAMS: ParamSpec[] = [
  param('env_timeout', positive(86400), 30,
    'Seconds one reset() or step() of a user environment may take before the run fails with "did not return within N s".'),
];
