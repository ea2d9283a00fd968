// Short plans of the seven learners that take gradient steps (PPO, DQN, SAC, REINFORCE on
// numbers; SFT, GRPO and RLOO on text), small enough to train in a second or two each, for
// tests that need every learner run the same way.
import type { Plan } from '../../../dsl/compile/plan.js';
import { makePlan } from '../helpers.js';

export const LEARNERS = ['PPO', 'DQN', 'SAC', 'REINFORCE', 'SFT', 'GRPO', 'RLOO'] as const;
export type Learner = (typeof LEARNERS)[number];

const TINY_TRANSFORMER = { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 16, heads: 2, context: 16 } } as const;

/** A plan training `learner` for a few updates on `env` (a numeric env; text learners ignore it). */
export function learnerPlan(learner: Learner, env: Partial<Pick<Plan, 'env'>> = {}): Plan {
  const numeric = (algorithm: string, algorithmParams: Record<string, unknown>, budget: number, envKind = 'CartPole'): Plan => {
    const plan = makePlan({ env: envKind, algorithm, algorithmParams, budget, envs: 2, policyParams: { hidden: [16, 16] } });
    return env.env ? { ...plan, env: env.env } : plan;
  };
  const text = (algorithm: string, algorithmParams: Record<string, unknown>, budget: number | null, reward: Plan['reward'] = null): Plan => {
    const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 1 }, max_tokens: 3 }, algorithm, algorithmParams, budget: budget ?? 0, reward });
    plan.policy = { ...TINY_TRANSFORMER, params: { ...TINY_TRANSFORMER.params } };
    plan.stages[0]!.budget = budget;
    return plan;
  };
  // Completions that start with a low digit score 1: about a third of an untrained model's, so groups differ.
  const lowDigit: Plan['reward'] = { name: 'R', replace_env_reward: true, terms: [{ name: 'low', expr: { call: 'regex', args: [{ ref: 'completion' }, { const: '^[0-4]' }] } }] };
  switch (learner) {
    case 'PPO':
      return numeric('PPO', { rollout_steps: 32, epochs: 2, minibatches: 2 }, 256);
    case 'DQN':
      return numeric('DQN', { learning_starts: 64, batch_size: 16, buffer: 1000, train_every: 4, target_update: 50 }, 400);
    case 'SAC':
      return numeric('SAC', { learning_starts: 64, batch_size: 16, buffer: 1000 }, 200, env.env ? undefined : 'Pendulum');
    case 'REINFORCE':
      return numeric('REINFORCE', { episodes_per_update: 4 }, 600);
    case 'SFT':
      return text('SFT', { updates: 6, batch_size: 8, learning_rate: 3e-3 }, null);
    case 'GRPO':
      return text('GRPO', { group_size: 4, prompts_per_update: 2, iterations: 2, kl_coef: 0.01 }, 48, lowDigit);
    case 'RLOO':
      return text('REINFORCE', { baseline: 'leave_one_out', episodes_per_update: 4 }, 24, lowDigit);
  }
}
