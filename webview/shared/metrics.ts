// What every metric a trainer logs is called on the pages, where the dashboard puts it, and
// which learners log it: one table, so a new metric gets its title in one place. The keys are
// the names in events.jsonl (docs/run-directory.md); `episode/*` are the per-episode series,
// `eval/*` the values of evaluations. A key missing here still gets a chart, titled from its
// name (`charts/buffer_fill` -> "Buffer fill"), in the section of its prefix.

/** Dashboard sections, in page order. */
export const SECTIONS = ['Evaluation', 'Episodes', 'Training samples', 'Reward terms', 'Losses', 'Schedules and speed', 'Memory', 'More'] as const;
export type Section = (typeof SECTIONS)[number];

/**
 * Who logs a metric: the numeric learners by name, `SFT`, and `text-PG`, the policy-gradient
 * learner on text (GRPO, and REINFORCE on a text env: one learner, runtime/algorithms/grpo).
 */
export type Learner = 'PPO' | 'DQN' | 'SAC' | 'REINFORCE' | 'SFT' | 'text-PG';

/** What a chart waits for: a learner in one of the run's stages, or a single-turn text task (`TextTask`: held-out prompts, whatever the learners). */
export type WaitsFor = Learner | 'TextTask';

/** Which of a run's series a chart draws: per update, per training episode, or per evaluation. */
export type SeriesTable = 'metrics' | 'episodes' | 'evals';

export interface MetricInfo {
  title: string;
  /** The title on a text run, where evaluation means the held-out prompts or dialogues. */
  textTitle?: string;
  section: Section;
  table: SeriesTable;
  /** The y axis's title, where the chart's title does not say the unit. */
  unit?: string;
  /** Values are sizes: read in binary units (`5.5 GiB`), on the axis as in every read-out. */
  format?: 'bytes';
  /**
   * Who is sure to log it: its chart waits, titled, from a run's start when a stage trains with
   * one of these learners (or the env is a text task). Metrics logged only sometimes (a
   * dialogue env's success) are charted when they arrive.
   */
  waitsFor?: readonly WaitsFor[];
  /** Exact values (schedules, counters): averaging them would only show something untrue. */
  exact?: boolean;
  /** Lower is better (losses): the comparison's best configuration is the lowest. */
  lowerIsBetter?: boolean;
}

const PG_TEXT: readonly Learner[] = ['text-PG'];

/** In page order within each section; keys not listed follow in key order. */
export const METRICS: Readonly<Record<string, MetricInfo>> = {
  'eval/accuracy': { title: 'Evaluation accuracy', textTitle: 'Held-out accuracy', section: 'Evaluation', unit: 'fraction of prompts', table: 'evals', waitsFor: ['TextTask'] },
  'eval/success': { title: 'Evaluation success rate', textTitle: 'Held-out success rate', section: 'Evaluation', unit: 'fraction', table: 'evals' },
  'eval/mean_reward': { title: 'Evaluation mean reward', textTitle: 'Held-out mean reward', section: 'Evaluation', table: 'evals' },
  'eval/mean_return': { title: 'Evaluation mean return', textTitle: 'Held-out mean return', section: 'Evaluation', table: 'evals' },
  'eval/std_return': { title: 'Evaluation return, std', section: 'Evaluation', table: 'evals' },
  'eval/mean_length': { title: 'Evaluation mean length', section: 'Evaluation', table: 'evals' },

  'episode/return': { title: 'Episode return', section: 'Episodes', unit: 'return', table: 'episodes', waitsFor: ['PPO', 'DQN', 'SAC', 'REINFORCE'] },
  'episode/length': { title: 'Episode length', section: 'Episodes', unit: 'steps', table: 'episodes', waitsFor: ['PPO', 'DQN', 'SAC', 'REINFORCE'] },
  'train/mean_return': { title: 'Mean return (last 20 episodes)', section: 'Episodes', unit: 'return', table: 'metrics' },
  'train/mean_length': { title: 'Mean length (last 20 episodes)', section: 'Episodes', unit: 'steps', table: 'metrics' },
  'train/success': { title: 'Success rate (last 20 episodes)', section: 'Episodes', unit: 'fraction', table: 'metrics' },
  'charts/episodes': { title: 'Episodes per update', section: 'Episodes', table: 'metrics', exact: true },

  'train/accuracy': { title: 'Accuracy (sampled)', section: 'Training samples', unit: 'fraction', table: 'metrics' },
  'train/batch_success': { title: 'Success rate (sampled)', section: 'Training samples', unit: 'fraction', table: 'metrics' },
  'train/mean_reward': { title: 'Mean reward (sampled)', section: 'Training samples', table: 'metrics' },
  // DPO's pairs, TRL's names under train/ (runtime/algorithms/dpo/preference-loss.ts).
  'train/rewards/accuracies': { title: 'Pairs ranked right (chosen reward higher)', section: 'Training samples', unit: 'fraction', table: 'metrics' },
  'train/rewards/margins': { title: 'Reward margin, chosen - rejected', section: 'Training samples', table: 'metrics' },
  'train/rewards/chosen': { title: 'Implicit reward of the chosen answers', section: 'Training samples', unit: 'beta log(pi / pi_ref)', table: 'metrics' },
  'train/rewards/rejected': { title: 'Implicit reward of the rejected answers', section: 'Training samples', unit: 'beta log(pi / pi_ref)', table: 'metrics' },
  'train/logps/chosen': { title: 'Log-probability of the chosen answers', section: 'Training samples', unit: 'nats', table: 'metrics' },
  'train/logps/rejected': { title: 'Log-probability of the rejected answers', section: 'Training samples', unit: 'nats', table: 'metrics' },
  'train/completion_length': { title: 'Completion length', section: 'Training samples', table: 'metrics' },
  'train/turns': { title: 'Agent turns per dialogue', section: 'Training samples', table: 'metrics' },
  'charts/zero_advantage_groups': { title: 'Groups with zero advantages', section: 'Training samples', unit: 'fraction', table: 'metrics' },
  'charts/completions': { title: 'Completions per update', section: 'Training samples', table: 'metrics', exact: true },
  'charts/dialogues': { title: 'Dialogues per update', section: 'Training samples', table: 'metrics', exact: true },
  'train/token_accuracy': { title: 'Token accuracy (SFT)', section: 'Training samples', unit: 'fraction', table: 'metrics', waitsFor: ['SFT'] },
  'charts/tokens': { title: 'Target tokens per update', section: 'Training samples', table: 'metrics', exact: true },

  'rewards/total': { title: 'Training return (all terms)', section: 'Reward terms', unit: 'return', table: 'metrics' },

  'losses/policy_loss': { title: 'Policy loss', section: 'Losses', table: 'metrics', waitsFor: ['PPO', 'REINFORCE', 'text-PG'], lowerIsBetter: true },
  'losses/value_loss': { title: 'Value loss', section: 'Losses', table: 'metrics', waitsFor: ['PPO'], lowerIsBetter: true },
  'losses/sft_loss': { title: 'SFT loss (cross-entropy)', section: 'Losses', unit: 'nats per token', table: 'metrics', waitsFor: ['SFT'], lowerIsBetter: true },
  'losses/dpo_loss': { title: 'Preference loss (DPO)', section: 'Losses', table: 'metrics', lowerIsBetter: true },
  'losses/nll_loss': { title: 'Chosen answers\' NLL (RPO)', section: 'Losses', unit: 'nats per token', table: 'metrics', lowerIsBetter: true },
  'losses/td_loss': { title: 'TD loss', section: 'Losses', table: 'metrics', waitsFor: ['DQN'], lowerIsBetter: true },
  'losses/q_values': { title: 'Q values', section: 'Losses', table: 'metrics', waitsFor: ['DQN'] },
  'losses/actor_loss': { title: 'Actor loss', section: 'Losses', table: 'metrics', waitsFor: ['SAC'], lowerIsBetter: true },
  'losses/qf_values': { title: 'Q values (mean of the critics)', section: 'Losses', table: 'metrics', waitsFor: ['SAC'] },
  'losses/qf1_loss': { title: 'Critic 1 loss', section: 'Losses', table: 'metrics', lowerIsBetter: true },
  'losses/qf2_loss': { title: 'Critic 2 loss', section: 'Losses', table: 'metrics', lowerIsBetter: true },
  'losses/qf1_values': { title: 'Critic 1 Q values', section: 'Losses', table: 'metrics' },
  'losses/qf2_values': { title: 'Critic 2 Q values', section: 'Losses', table: 'metrics' },
  'losses/alpha': { title: 'Temperature (alpha)', section: 'Losses', table: 'metrics', waitsFor: ['SAC'] },
  'losses/alpha_loss': { title: 'Temperature loss', section: 'Losses', table: 'metrics', lowerIsBetter: true },
  'losses/entropy': { title: 'Entropy', section: 'Losses', unit: 'nats', table: 'metrics', waitsFor: ['PPO', 'REINFORCE', 'text-PG'] },
  'losses/kl': { title: 'KL to the reference', section: 'Losses', table: 'metrics', waitsFor: PG_TEXT },
  'losses/approx_kl': { title: 'Approx. KL', section: 'Losses', table: 'metrics', waitsFor: ['PPO'] },
  'losses/old_approx_kl': { title: 'Approx. KL (old estimator)', section: 'Losses', table: 'metrics' },
  'losses/clipfrac': { title: 'Clip fraction', section: 'Losses', unit: 'fraction', table: 'metrics', waitsFor: ['PPO'] },
  'losses/clip_fraction': { title: 'Clip fraction', section: 'Losses', unit: 'fraction', table: 'metrics', waitsFor: PG_TEXT },
  'losses/explained_variance': { title: 'Explained variance', section: 'Losses', table: 'metrics' },
  'losses/grad_norm': { title: 'Gradient norm', section: 'Losses', table: 'metrics' },
  'losses/gradient_steps': { title: 'Gradient steps per update', section: 'More', table: 'metrics', exact: true },

  'charts/learning_rate': { title: 'Learning rate', section: 'Schedules and speed', table: 'metrics', waitsFor: ['PPO', 'DQN', 'SAC', 'REINFORCE', 'SFT', 'text-PG'], exact: true },
  'charts/clip': { title: 'Clip coefficient', section: 'Schedules and speed', table: 'metrics', exact: true },
  'charts/entropy_coef': { title: 'Entropy coefficient', section: 'Schedules and speed', table: 'metrics', exact: true },
  'charts/epsilon': { title: 'Exploration rate (epsilon)', section: 'Schedules and speed', table: 'metrics', exact: true },
  'charts/sps': { title: 'Steps per second', section: 'Schedules and speed', unit: 'steps/s', table: 'metrics' },

  'memory/peak_rss_bytes': { title: 'Peak memory (resident)', section: 'Memory', table: 'metrics', format: 'bytes', exact: true },

  'charts/buffer_size': { title: 'Replay buffer size', section: 'More', table: 'metrics', exact: true },
  'charts/group_episodes': { title: 'Episodes per update', section: 'More', table: 'metrics', exact: true },
  'charts/group_return': { title: 'Mean return of the update’s episodes', section: 'More', table: 'metrics' },
  'charts/group_steps': { title: 'Steps per update', section: 'More', table: 'metrics', exact: true },
};

/**
 * Never charted on their own: per-update means of what the episode charts show one point per
 * episode of, and the evaluation's return and length, marked on those charts (a text task's
 * mean return is its mean reward, charted as such).
 */
export const NOT_CHARTED: ReadonlySet<string> = new Set(['charts/episodic_return', 'charts/episodic_length', 'eval/mean_return', 'eval/std_return', 'eval/mean_length']);

const KEY_ORDER = new Map(Object.keys(METRICS).map((key, i) => [key, i]));

/** A key's place in page order: listed keys first, in the table's order. */
export function metricRank(key: string): number {
  return KEY_ORDER.get(key) ?? KEY_ORDER.size;
}

/** "Buffer fill" for `charts/buffer_fill`: a readable title for a key the table does not list. */
function titleFromKey(key: string): string {
  const name = key.slice(key.indexOf('/') + 1).replace(/_/g, ' ');
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** What a metric is called; `text`: on a run whose env is text (held-out prompts). */
export function metricTitle(key: string, text = false): string {
  const info = METRICS[key];
  if (info) return (text && info.textTitle) || info.title;
  const term = /^rewards\/(.+)$/.exec(key)?.[1];
  if (term) return `Reward term: ${term}`;
  return titleFromKey(key);
}

/** Everything the pages need of a metric, for keys the table does not list too. */
export function metricInfo(key: string): MetricInfo {
  const info = METRICS[key];
  if (info) return info;
  const table: SeriesTable = key.startsWith('eval/') ? 'evals' : key.startsWith('episode/') ? 'episodes' : 'metrics';
  const section: Section = key.startsWith('rewards/') ? 'Reward terms' : key.startsWith('losses/') ? 'Losses' : key.startsWith('memory/') ? 'Memory' : table === 'evals' ? 'Evaluation' : 'More';
  return { title: metricTitle(key), section, table, ...(key.startsWith('losses/') ? { lowerIsBetter: true } : {}), ...(key.endsWith('_bytes') ? { format: 'bytes' as const } : {}) };
}

/** The env kinds whose actions are text (runtime/text/env.ts TEXT_ENVS; a text module env is told by its transformer policy). */
const TEXT_ENV_KINDS = new Set(['TextTask', 'GuessNumber']);

interface PlanShape {
  env?: { kind?: unknown } | null;
  policy?: { kind?: unknown } | null;
  stages?: ({ algorithm?: { kind?: unknown } | null } | null)[];
}

/** Whether a plan (plan.json, any shape) trains on text: a text env, or a token model. */
export function isTextPlan(plan: unknown): boolean {
  const p = plan as PlanShape | undefined;
  return TEXT_ENV_KINDS.has(String(p?.env?.kind)) || p?.policy?.kind === 'transformer';
}

/** The learners a plan's stages train with (read defensively: the plan is a file on disk). */
export function learnersOf(plan: unknown): Learner[] {
  const p = plan as PlanShape | undefined;
  const stages = Array.isArray(p?.stages) ? p.stages : [];
  const text = isTextPlan(plan);
  const out = new Set<Learner>();
  for (const stage of stages) {
    const kind = stage?.algorithm?.kind;
    if (kind === 'SFT') out.add('SFT');
    else if (text && (kind === 'GRPO' || kind === 'REINFORCE')) out.add('text-PG');
    else if (kind === 'PPO' || kind === 'DQN' || kind === 'SAC' || kind === 'REINFORCE') out.add(kind);
  }
  return [...out];
}

/** The metrics whose charts wait from a run's start for what its learners log. */
export function waitingMetrics(plan: unknown): string[] {
  const learners = new Set<WaitsFor>(learnersOf(plan));
  if ((plan as PlanShape | undefined)?.env?.kind === 'TextTask') learners.add('TextTask');
  return Object.entries(METRICS)
    .filter(([, info]) => info.waitsFor?.some((l) => learners.has(l)))
    .map(([key]) => key);
}
