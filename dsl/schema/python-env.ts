// Gymnasium environments run by Python (`env Cart = gymnasium("CartPole-v1") { ... }`): what the
// base is called and the settings its body takes. The checker, completion and hover read them
// from here; the trainer reads the same settings from the plan (runtime/envs/python/python-env-plan.ts).
// The checker never runs Python: an id and its spaces are learnt when training starts, or
// earlier from a probe a host runs (semantics/python-env.ts).
import { count, list, num, param, string } from './build.js';
import type { ParamSpec } from './types.js';

/** The base function: `gymnasium("Id-v0")`. */
export const GYMNASIUM_BASE = 'gymnasium';

/** The plan's env kind for a gymnasium(...) env; its id is params.id. */
export const GYMNASIUM_ENV_KIND = 'gymnasium';

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
];
