// Plans and temporary folders for the runtime tests. Plans are written as the compiler would
// write them, with only the params a test cares about (the runtime fills the rest with the
// same defaults as the registry, which the drift test checks).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PLAN_FORMAT, type Plan, type PlanExpr, type PlanReward } from '../../dsl/compile/plan.js';

export interface PlanOptions {
  env?: string;
  envParams?: Record<string, unknown>;
  envs?: number;
  budget?: number;
  algorithm?: string;
  algorithmParams?: Record<string, unknown>;
  policyParams?: Record<string, unknown>;
  seeds?: number[];
  eval?: Plan['eval'];
  stop?: PlanExpr | null;
  reward?: PlanReward | null;
  experiment?: string;
}

export function makePlan(o: PlanOptions = {}): Plan {
  return {
    rlx_plan: PLAN_FORMAT,
    language_version: '1',
    experiment: o.experiment ?? 'Test',
    source: { entry: 'test.rlx', files: ['test.rlx'], hash: 'sha256:test' },
    env: { name: 'E', kind: o.env ?? 'CartPole', params: (o.envParams ?? {}) as Plan['env']['params'] },
    policy: { name: 'P', kind: 'mlp', params: (o.policyParams ?? {}) as Plan['policy']['params'] },
    stages: [
      {
        name: 'main',
        algorithm: { name: 'A', kind: o.algorithm ?? 'PPO', params: (o.algorithmParams ?? {}) as Plan['policy']['params'] },
        budget: o.budget ?? 2048,
      },
    ],
    reward: o.reward ?? null,
    envs: o.envs ?? 4,
    seeds: o.seeds ?? [1],
    device: 'cpu',
    eval: o.eval ?? null,
    stop: o.stop ?? null,
    curriculum: null,
    sweep: null,
  };
}

/**
 * GRPO on the addition task rewarded for completions that start with "1" (about 1 in 7 at
 * first), with two steps per batch (pi_old's pass) and kl_coef (pi_ref's): the precision tests'
 * run, whose reward climbs within 1600 completions.
 */
export function startsWithOneGrpoPlan(): Plan {
  return makePlan({
    env: 'TextTask',
    envParams: { task: { kind: 'addition', digits: 2 }, max_tokens: 4 },
    algorithm: 'GRPO',
    algorithmParams: { group_size: 8, prompts_per_update: 8, learning_rate: 3e-3, kl_coef: 0.01, iterations: 2 },
    budget: 1600,
    reward: { name: 'R', replace_env_reward: true, terms: [{ name: 'one', expr: { call: 'regex', args: [{ ref: 'completion' }, { const: '^1' }] } }] },
  });
}

/** The temporary folders of this process, removed by one exit listener (one per folder tripped Node's listener limit). */
const tempDirs: string[] = [];

/** A fresh temporary folder, removed when the process exits. */
export function tempDir(prefix = 'rlx-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (tempDirs.length === 0) process.on('exit', () => tempDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  tempDirs.push(dir);
  return dir;
}

/** The rl-zoo CartPole PPO settings (examples/cartpole-zoo.rlx): the quickest learner. */
export const ZOO_PPO = {
  learning_rate: { schedule: 'linear', from: 1e-3, to: 0, over: 1 },
  rollout_steps: 32,
  epochs: 20,
  minibatches: 1,
  gamma: 0.98,
  gae_lambda: 0.8,
  clip: { schedule: 'linear', from: 0.2, to: 0, over: 1 },
  entropy_coef: 0,
};

/**
 * A module env (a corridor of 20 cells, two actions, written into a temporary folder) whose
 * observation's x or reward becomes the JS expression `bad` (it may read `action`) from its
 * `after`-th step on, counted over every env copy.
 */
export function brokenCorridor(what: 'obs' | 'reward', bad: string, after: number): { env: Plan['env']; envModule: string } {
  const envModule = path.join(tempDir(), 'corridor.js');
  fs.writeFileSync(envModule, `let steps = 0;
export default class Corridor {
  observationSpace = { kind: 'box', shape: [2], low: [0, 0], high: [1, 1] };
  actionSpace = { kind: 'discrete', n: 2 };
  obsFields = ['x', 'y'];
  maxSteps = 20;
  reset() { return { obs: [0, 0], info: {} }; }
  step(action) {
    const broken = ++steps >= ${after};
    return { obs: [${what === 'obs' ? `broken ? ${bad} : action` : 'action'}, 0], reward: ${what === 'reward' ? `broken ? ${bad} : 1` : '1'}, terminated: false, truncated: false, info: {} };
  }
}
`);
  return { env: { name: 'Corridor', kind: 'module', module: 'corridor.js', params: {} }, envModule };
}
