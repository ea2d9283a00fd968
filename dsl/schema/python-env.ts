// Gymnasium environments run by Python (`env Cart = gymnasium("CartPole-v1") { ... }`, or a class
// in a file: `env Mine = python("./envs/reacher.py:Reacher") { ... }`): what the bases are called
// and the settings and blocks their bodies take. The checker, completion and hover read them
// from here; the trainer reads the same settings from the plan (runtime/envs/python/python-env-plan.ts).
// The checker never runs Python: an id and its spaces are learnt when training starts, or
// earlier from a probe a host runs (semantics/python-env.ts).
import { count, list, literal, num, param, string } from './build.js';
import type { BlockSpec, ParamSpec } from './types.js';

/** The base function: `gymnasium("Id-v0")`. */
export const GYMNASIUM_BASE = 'gymnasium';

/** The base function of a Gymnasium Env class in a file: `python("./envs/reacher.py:Reacher")`. */
export const PYTHON_BASE = 'python';

/**
 * The plan's env kind for both bases: a gymnasium(...) env's id is params.id; a python(...) env's
 * file (relative to the .rlx file that compiled it) and class are params.file and params.class.
 */
export const GYMNASIUM_ENV_KIND = 'gymnasium';

/**
 * What makes a Python env a goal env (worker.py goal_of()), for refusals of `relabel:` on one that
 * is not: the checker's, when a probe answered, and the trainer's.
 */
export const PYTHON_GOAL_ENV =
  'a Python env is a goal env when its observation is a Dict with achieved_goal and desired_goal and env.unwrapped has ' +
  'compute_reward(achieved_goal, desired_goal, info) (docs/python-envs.md#goal-envs-and-hindsight-relabeling)';

/** A Python identifier (ASCII): a class name, an observation name. */
export const PYTHON_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `./envs/reacher.py:Reacher` as written: the file and the class; undefined when it is not of that form. */
export function pythonClassTarget(written: string): { file: string; className: string } | undefined {
  const colon = written.lastIndexOf(':');
  if (colon <= 0) return undefined;
  return { file: written.slice(0, colon), className: written.slice(colon + 1) };
}

/** A Gymnasium id as gymnasium.make takes it: `[namespace/]Name[-vN]`. */
export const GYMNASIUM_ID = /^(?:[\w.:-]+\/)?[A-Za-z][\w.:-]*$/;

export const GYMNASIUM_ENV_PARAMS: ParamSpec[] = [
  param('max_steps', count({ max: 1e7 }), undefined,
    'Episode length limit (gymnasium.make\'s max_episode_steps); the id\'s registered limit when left out.'),
  param('imports', list(string), [],
    'Python modules imported before gymnasium.make, for ids that a package registers when imported: `imports: ["my_package"]`.'),
  param('python', string, '',
    'The Python interpreter to run the env with; RLX_PYTHON, or python3 on PATH, when left out. It needs numpy and gymnasium.'),
  param('env_timeout', num({ min: 0, exclusiveMin: true, max: 86400 }), 30,
    'Seconds one reset() or step() may take before the run fails with "did not return within N s" (starting a worker may take 60 s or this, whichever is longer).'),
  param('copies_per_process', count({ max: 4096 }), 8,
    'Env copies each Python worker process holds; the copies the algorithm asks for (its num_envs) are spread over as many processes as this needs, stepped in parallel.'),
  param('observations', list(string), [],
    'Names of the observation numbers, in order, for `obs.NAME` in reward terms: `observations: ["x", "x_dot", "theta", "theta_dot"]`. Checked against the env\'s observation size when training starts; without it the names come from the env (a Dict space\'s keys) or are x0, x1, ...'),
];

/** The blocks a gymnasium(...) or python(...) env's body takes. */
export const GYMNASIUM_ENV_BLOCKS: BlockSpec[] = [
  {
    name: 'kwargs',
    doc: 'Keyword arguments of the env: passed to gymnasium.make (a gymnasium(...) env) or to the class (a python(...) env), as written: `kwargs { gravity: 9.8, render_mode: "rgb_array" }`.',
    params: [],
    otherKeys: { type: literal, doc: 'Any key is passed as a keyword argument; its value is a number, a string, true/false, none (Python\'s None) or a list of these.' },
  },
];
