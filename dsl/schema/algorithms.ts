// Built-in algorithms (docs/language.md#built-in-algorithms). Defaults follow the reference implementations
// named on each: CleanRL's single-file scripts (ppo.py, dqn.py, sac_continuous_action.py) and
// Stable-Baselines3 where CleanRL has no opinion, TRL for GRPO.
import {
  bool, choice, count, discount, file, int, learningRate, num, oneOf, option, param, probability, relabel, required,
} from './build.js';
import type { AlgorithmSpec, AlgorithmWork, ParamSpec, PlanValue } from './types.js';

type Values = Readonly<Record<string, PlanValue>>;

/** A whole-number setting's value (work() is handed every setting, defaults filled). */
const n = (p: Values, name: string): number => p[name] as number;

/** What SFT's and GRPO's files of demonstrations hold: the lines of a `dataset("...")` file. */
const DEMONSTRATIONS = 'demonstrations, one {"prompt", "target"} object a line';

type Work = Omit<AlgorithmWork, 'dataFiles'>;

/** A learner of envs of numbers: it decodes no language model's rows. */
const numericWork = (trainRows: number, what: string): Work => ({ sampleRows: 0, trainRows, referenceCopy: false, what });
import { PROMPT_LENGTH_PARAMS, SAMPLING_PARAMS } from './sampling.js';
import { TEXT_MEMORY_PARAMS } from './text-memory.js';

const gradNorm = (defaultValue: number): ParamSpec =>
  param('max_grad_norm', num({ min: 0, exclusiveMin: true }), defaultValue, 'Gradients are rescaled so their global norm is at most this.');

const batchSize = (defaultValue: number): ParamSpec =>
  param('batch_size', count({ max: 1e6 }), defaultValue, 'Samples per gradient step.');

const buffer = (defaultValue: number): ParamSpec =>
  param('buffer', count({ max: 1e8 }), defaultValue, 'Replay buffer capacity, in transitions.');

const learningStarts = (defaultValue: number): ParamSpec =>
  param('learning_starts', int({ min: 0 }), defaultValue, 'Environment steps of pure collection before the first update, with uniformly random actions (SB3\'s warm-up).');

const clip = (defaultValue: number, doc: string): ParamSpec =>
  param('clip', num({ min: 0, exclusiveMin: true, max: 10, schedule: true, suspicious: { above: 1, why: 'a clip range above 1 hardly constrains the policy update' } }), defaultValue, doc);

/** Whether a learner of discrete actions chooses only the actions the env's mask allows (runtime/algorithms/action-masking.ts). */
const actionMask = param('action_mask', choice(
  option('auto', 'Use the env\'s masks where it gives them.'),
  option('on', 'Use them; an env that gives none is an error.'),
  option('off', 'Ignore them: any action may be chosen (to compare with masking).'),
), 'auto', 'Whether only legal actions are chosen: the ones the env\'s action mask allows (`info["action_mask"]`, 1 legal and 0 not, at reset and each step), in training, evaluation and recorded rollouts. Illegal actions get probability 0 (their logits -inf) and are left out of Q-value maxima. Discrete actions only.');

export const PPO: AlgorithmSpec = {
  declKind: 'algorithm',
  name: 'PPO',
  networks: 'an actor-critic',
  recurrent: true,
  doc: 'Proximal Policy Optimization (Schulman et al. 2017) with GAE, as in CleanRL ppo.py: on-policy, clipped surrogate objective.',
  actions: ['discrete', 'continuous', 'multibinary'],
  params: [
    learningRate(2.5e-4),
    param('rollout_steps', count({ max: 1e6 }), 128, 'Steps collected per environment copy before each update.'),
    param('epochs', count({ max: 1000 }), 4, 'Passes over each rollout per update.'),
    param('minibatches', count({ max: 1e5 }), 4, 'Minibatches each rollout is split into.'),
    discount(0.99),
    param('gae_lambda', probability(), 0.95, 'Lambda of generalised advantage estimation, in [0, 1].'),
    clip(0.2, 'Clip range of the probability ratio in the surrogate objective; a number or a schedule.'),
    param('clip_value', bool, true, 'Clip value-function updates to the same range as the policy.'),
    param('entropy_coef', num({ min: 0, max: 10, schedule: true }), 0.01, 'Weight of the entropy bonus.'),
    param('value_coef', num({ min: 0, max: 100 }), 0.5, 'Weight of the value loss.'),
    gradNorm(0.5),
    param('normalize_advantages', bool, true, 'Normalise advantages to mean 0, std 1 within each minibatch.'),
    param('target_kl', oneOf(choice(option('none', 'No early stopping.')), num({ min: 0, exclusiveMin: true })), 'none',
      'Stop an update\'s epochs early when the approximate KL divergence exceeds this (or `none`).'),
    actionMask,
  ],
  // A minibatch: rollout_steps from each env copy, split into minibatches.
  work: (p, on) => numericWork(Math.max(1, Math.floor((n(p, 'rollout_steps') * on.envs) / n(p, 'minibatches'))), `PPO minibatches of ${n(p, 'rollout_steps')} steps x ${on.envs} envs / ${n(p, 'minibatches')}`),
};

export const DQN: AlgorithmSpec = {
  declKind: 'algorithm',
  name: 'DQN',
  networks: 'a Q-network',
  doc: 'Deep Q-Network (Mnih et al. 2015), as in CleanRL dqn.py: off-policy, replay buffer, target network, epsilon-greedy exploration; optional Double DQN and hindsight relabeling.',
  actions: ['discrete'],
  params: [
    learningRate(2.5e-4),
    buffer(10_000),
    batchSize(128),
    discount(0.99),
    param('target_update', count(), 500, 'Environment steps between copies of the online network into the target network (SB3\'s target_update_interval: gradient steps do not count).'),
    param('tau', num({ min: 0, exclusiveMin: true, max: 1 }), 1.0, 'Target network update rate: 1 copies, smaller values blend (Polyak averaging).'),
    param('train_every', count(), 10, 'Environment steps between updates, all env copies together (SB3\'s train_freq counts the steps of each copy: train_freq F on n copies is train_every F * n).'),
    param('gradient_steps', count({ max: 1e5 }), 1, 'Gradient steps per update, each on its own sampled batch.'),
    learningStarts(10_000),
    param('epsilon', num({ min: 0, max: 1, schedule: true }), { schedule: 'linear', from: 1, to: 0.05, over: 0.5 },
      'Probability of a random action once learning starts; usually a schedule such as `linear(1.0, 0.05, over: 0.5)` (SB3\'s exploration_fraction 0.5, exploration_final_eps 0.05).'),
    param('double', bool, false, 'Double DQN: the online network picks the next action, the target network values it.'),
    param('loss', choice(
      option('mse', 'Mean squared TD error (CleanRL).'),
      option('huber', 'Huber (smooth L1) TD error (Stable-Baselines3).'),
    ), 'mse', 'Loss on the TD error.'),
    param('max_grad_norm', oneOf(choice(option('none', 'No clipping (CleanRL).')), num({ min: 0, exclusiveMin: true })), 'none',
      'Rescale gradients so their global norm is at most this (Stable-Baselines3 uses 10), or `none`.'),
    relabel,
    actionMask,
  ],
  work: (p) => numericWork(n(p, 'batch_size'), `DQN batches of ${n(p, 'batch_size')}`),
};

export const SAC: AlgorithmSpec = {
  declKind: 'algorithm',
  name: 'SAC',
  networks: 'an actor and twin Q-networks',
  doc: 'Soft Actor-Critic (Haarnoja et al. 2018), as in CleanRL sac_continuous_action.py (and its discrete-action variant): off-policy, twin Q networks, entropy regularisation with automatic temperature.',
  actions: ['discrete', 'continuous'],
  params: [
    learningRate(3e-4),
    param('critic_learning_rate', oneOf(choice(option('same', 'The actor\'s `learning_rate`.')), num({ min: 0, exclusiveMin: true, max: 10 })), 1e-3,
      'Adam step size of the twin critics and of the temperature (CleanRL\'s q_lr); `learning_rate` is the actor\'s (policy_lr).'),
    buffer(1_000_000),
    batchSize(256),
    discount(0.99),
    param('tau', num({ min: 0, exclusiveMin: true, max: 1 }), 0.005, 'Target network update rate (Polyak averaging).'),
    param('alpha', oneOf(choice(option('auto', 'Tune the temperature to reach `target_entropy`.')), num({ min: 0 })), 'auto',
      'Entropy temperature: `auto` or a fixed number.'),
    param('target_entropy', oneOf(choice(option('auto', 'Minus the action dimension (continuous) or a fraction of the maximum entropy (discrete).')), num()), 'auto',
      'Entropy the automatic temperature aims for.'),
    learningStarts(5_000),
    param('train_every', count(), 1, 'Environment steps between gradient steps.'),
    param('gradient_steps', count({ max: 1000 }), 1, 'Gradient steps on the critics each time the learner trains (SB3\'s gradient_steps).'),
    param('policy_frequency', count({ max: 1000 }), 2,
      'The actor and the temperature train after every this many critic steps, that many times (CleanRL\'s delayed policy update; 1: every step, as SB3).'),
    relabel,
    actionMask,
  ],
  work: (p) => numericWork(n(p, 'batch_size'), `SAC batches of ${n(p, 'batch_size')}`),
};

/** What the offline learners' `data` holds (shared/transitions/transitions.ts; docs/offline-rl.md). */
const TRANSITIONS = 'transitions: an .npz with D4RL\'s keys observations, actions, rewards, terminals (and optionally timeouts, next_observations), as `rlx record` writes';

/** The offline learners' dataset: a `data:` file the run keeps a copy of, as other data files. */
const offlineData = required('data', file(TRANSITIONS, 'transitions'),
  'The dataset of transitions the learner trains on: the path of an .npz file with D4RL\'s keys, relative to the .rlx file (`rlx record RUN_DIR --episodes N --to FILE.npz` writes one). Its observations and actions must have the numbers of the experiment\'s env, where the policy is evaluated. The run keeps a copy (docs/run-directory.md#data).');

const normalize = param('normalize', bool, true,
  'Normalise observations by the dataset\'s mean and standard deviation (+ 1e-3), as CORL does; the policy keeps the statistics, so it acts on the env\'s raw observations.');

/** One step of an offline learner is one gradient step: the budget counts them, not env steps. */
const offlineWork = (p: Values, name: string): Work => numericWork(n(p, 'batch_size'), `${name} batches of ${n(p, 'batch_size')} transitions`);

export const BC: AlgorithmSpec = {
  declKind: 'algorithm',
  name: 'BC',
  networks: 'a deterministic actor over normalised observations',
  doc: 'Behavioural cloning from a dataset of transitions, as CORL any_percent_bc.py: the actor regresses the dataset\'s actions (mean squared error). Offline: a step is one gradient step; the policy is evaluated in the env.',
  actions: ['continuous'],
  params: [
    offlineData,
    learningRate(3e-4),
    batchSize(256),
    normalize,
  ],
  work: (p) => offlineWork(p, 'BC'),
};

export const TD3BC: AlgorithmSpec = {
  declKind: 'algorithm',
  name: 'TD3BC',
  networks: 'a deterministic actor and twin Q-networks over normalised observations',
  doc: 'TD3+BC (Fujimoto and Gu 2021), as CORL td3_bc.py: TD3\'s twin critics and delayed actor on a dataset of transitions, the actor\'s loss -lambda Q(s, pi(s)) + (pi(s) - a)^2 with lambda = alpha / mean |Q|. Offline: a step is one gradient step; the policy is evaluated in the env.',
  actions: ['continuous'],
  params: [
    offlineData,
    learningRate(3e-4),
    batchSize(256),
    discount(0.99),
    param('tau', num({ min: 0, exclusiveMin: true, max: 1 }), 0.005, 'Target network update rate (Polyak averaging).'),
    param('alpha', num({ min: 0, max: 1000 }), 2.5, 'Weight of the Q term against the behavioural-cloning term: lambda = alpha / mean |Q| (0: behavioural cloning alone).'),
    param('policy_noise', num({ min: 0, max: 10 }), 0.2, 'Std of the noise on the target actor\'s next action, in units of half the action range (target policy smoothing).'),
    param('noise_clip', num({ min: 0, max: 10 }), 0.5, 'The target noise is clipped to +- this, in units of half the action range.'),
    param('policy_frequency', count({ max: 1000 }), 2, 'The actor and the targets update after every this many critic steps (TD3\'s delay).'),
    normalize,
  ],
  work: (p) => offlineWork(p, 'TD3BC'),
};

export const IQL: AlgorithmSpec = {
  declKind: 'algorithm',
  name: 'IQL',
  networks: 'a deterministic actor, twin Q-networks and a value network over normalised observations',
  doc: 'Implicit Q-Learning (Kostrikov et al. 2021), as CORL iql.py with its deterministic actor: V by expectile regression on the target Q, Q on r + gamma V(s\'), the actor by advantage-weighted regression exp(temperature A) (pi(s) - a)^2. Offline: a step is one gradient step; the policy is evaluated in the env.',
  actions: ['continuous'],
  params: [
    offlineData,
    learningRate(3e-4),
    batchSize(256),
    discount(0.99),
    param('tau', num({ min: 0, exclusiveMin: true, max: 1 }), 0.005, 'Target Q-network update rate (Polyak averaging).'),
    param('expectile', num({ min: 0, exclusiveMin: true, max: 1, exclusiveMax: true }), 0.7, 'The expectile V is fitted to (0.5: the mean; near 1: the maximum over the dataset\'s actions).'),
    param('temperature', num({ min: 0, max: 1000 }), 3.0, 'Inverse temperature beta of the advantage weights exp(beta A), clipped at 100 (0: behavioural cloning).'),
    normalize,
  ],
  work: (p) => offlineWork(p, 'IQL'),
};

/** The memory settings of text learners, in the order their bodies list them (SFT samples nothing: no generation_batch). */
const textMemory = TEXT_MEMORY_PARAMS;
const [microBatch, , gradientCheckpointing] = TEXT_MEMORY_PARAMS as [ParamSpec, ParamSpec, ParamSpec];

/** Per-turn credit on dialogues (runtime/algorithms/text/turn-credit.ts), GRPO's and REINFORCE's. */
const credit = param('credit', choice(
  option('episode', 'One advantage per sample, from its whole return, on every token of it.'),
  option('turn', 'Each agent turn\'s tokens get the advantage of that turn\'s return-to-go (its reward and the later turns\'), compared with the same turn of the group\'s other dialogues (MT-GRPO, Zeng et al. 2025).'),
), 'episode', 'How a dialogue\'s reward is credited to its turns; single-turn text tasks have one turn, so `turn` changes nothing there.');

export const REINFORCE: AlgorithmSpec = {
  declKind: 'algorithm',
  name: 'REINFORCE',
  networks: 'an actor-critic',
  doc: 'Monte-Carlo policy gradient (Williams 1992) over whole episodes, with an optional baseline; `leave_one_out` is RLOO (Kool et al. 2019; Ahmadian et al. 2024).',
  actions: ['discrete', 'continuous', 'multibinary', 'text'],
  params: [
    learningRate(1e-3),
    discount(0.99),
    param('baseline', choice(
      option('none', 'Plain returns.'),
      option('mean', 'Subtract the mean return of the batch.'),
      option('leave_one_out', 'Subtract the mean return of the other episodes in the batch (RLOO).'),
    ), 'mean', 'What is subtracted from each return to reduce variance.'),
    param('episodes_per_update', int({ min: 2, max: 1e5 }), 8, 'Episodes collected per update (the group RLOO averages over).'),
    param('entropy_coef', num({ min: 0, max: 10, schedule: true }), 0, 'Weight of the entropy bonus.'),
    gradNorm(0.5),
    credit,
    ...textMemory,
  ],
  // Whole episodes: on a text env one row each (a completion or a dialogue), on an env of numbers each of its steps.
  work: (p, on) => ({
    sampleRows: on.text ? n(p, 'episodes_per_update') : 0,
    trainRows: n(p, 'episodes_per_update') * on.rowsPerEpisode,
    referenceCopy: false,
    what: `REINFORCE ${n(p, 'episodes_per_update')} episodes`,
  }),
};

export const GRPO: AlgorithmSpec = {
  declKind: 'algorithm',
  name: 'GRPO',
  doc: 'Group Relative Policy Optimization (Shao et al. 2024) for text tasks with verifiable rewards: several completions per prompt, advantages relative to the group, clipped ratio and a KL penalty to a reference policy.',
  actions: ['text'],
  params: [
    param('group_size', int({ min: 2, max: 1024 }), 8, 'Completions sampled per prompt.'),
    param('prompts_per_update', count({ max: 1e5 }), 16, 'Prompts per update.'),
    clip(0.2, 'Clip range of the probability ratio.'),
    param('kl_coef', num({ min: 0, max: 10 }), 0.04, 'Weight of the KL penalty to the reference policy.'),
    param('kl_estimator', choice(
      option('k3', 'exp(x) - x - 1 with x = log pi_ref - log pi: unbiased and never negative (the GRPO paper).'),
      option('k2', 'x^2 / 2: biased, never negative.'),
      option('k1', '-x, log pi - log pi_ref: unbiased, may be negative.'),
    ), 'k3', 'How the KL to the reference is estimated at each sampled token (Schulman\'s k1, k2, k3).'),
    param('kl_in_reward', bool, false,
      'Take kl_coef times each completion\'s KL, summed over its tokens, off its reward before the advantages, instead of a KL term in the loss.'),
    param('reference', choice(
      option('initial', 'The policy as it was when this stage started.'),
      option('none', 'No reference, no KL penalty.'),
    ), 'initial', 'The policy the KL penalty keeps close to.'),
    learningRate(3e-4),
    param('baseline', choice(
      option('mean', 'The group\'s mean reward.'),
      option('leave_one_out', 'The mean reward of the other completions of the group (RLOO).'),
    ), 'mean', 'What is subtracted from each completion\'s reward to make its advantage.'),
    param('normalize', choice(
      option('group_std', 'Divide advantages by the group\'s standard deviation.'),
      option('batch_std', 'Divide advantages by the standard deviation of the whole batch\'s rewards (REINFORCE++).'),
      option('none', 'Only subtract the baseline (Dr. GRPO with the mean).'),
      option('max_abs', 'Divide advantages by the group\'s largest absolute advantage, so they lie in [-1, 1].'),
    ), 'group_std', 'How advantages are scaled within a group.'),
    param('clip_high', oneOf(choice(option('none', 'The same range as `clip` on both sides.')), num({ min: 0, exclusiveMin: true, max: 10 })), 'none',
      'Upper clip range of the ratio, 1 + clip_high (DAPO\'s clip-higher), or `none` for `clip`.'),
    param('loss', choice(
      option('sequence', 'Average each completion\'s tokens, then the completions (the GRPO paper).'),
      option('token', 'Average all tokens of the batch together, so long completions weigh more (DAPO).'),
      option('constant', 'Sum each completion\'s tokens and divide by max_new_tokens, then average the completions (Dr. GRPO).'),
    ), 'sequence', 'How the per-token objective is averaged.'),
    param('entropy_top_fraction', num({ min: 0, exclusiveMin: true, max: 1 }), 1,
      'Keep only this top fraction of each batch\'s completion tokens, by the entropy of the distribution each was sampled from, in the loss '
      + '(Wang et al. 2025, "Beyond the 80/20 rule": 0.2 trains on the high-entropy "forking" tokens); the rest get weight 0 and `loss` averages over the kept ones. '
      + 'A KL term in the loss then covers the kept tokens only (kl_in_reward covers all). 1: every token.'),
    param('iterations', count({ max: 100 }), 1, 'Gradient steps on each batch of completions (GRPO\'s mu); the ratio is 1 on the first.'),
    param('max_new_tokens', count({ max: 1_048_576 }), 8, 'Longest completion sampled, in the policy\'s tokens (at most the env\'s max_tokens; with the prompt, at most a pretrained model\'s context).'),
    param('temperature', num({ min: 0, exclusiveMin: true, max: 10 }), 1.0, 'Sampling temperature.'),
    ...SAMPLING_PARAMS,
    ...PROMPT_LENGTH_PARAMS,
    param('dynamic_sampling', bool, false,
      'Drop groups whose rewards are all equal (their advantages are 0) and sample more prompts until the update holds prompts_per_update informative groups, or max_sampling_rounds are spent (DAPO\'s dynamic sampling, Yu et al. 2025). Every sampled completion counts against the budget.'),
    param('max_sampling_rounds', count({ max: 100 }), 3,
      'With dynamic_sampling: batches of prompts_per_update prompts sampled at most per update; when they are spent, the update trains on the informative groups it has (DAPO\'s max_num_gen_batches).'),
    param('overlong', choice(
      option('keep', 'Train on truncated completions like any other.'),
      option('drop', 'Leave completions that reach max_new_tokens without ending out of the loss (DAPO\'s overlong filtering).'),
      option('penalize', 'Add a penalty from 0 to -1 over the last overlong_buffer tokens of max_new_tokens to the reward (DAPO\'s soft overlong punishment).'),
    ), 'keep', 'What happens to completions that reach max_new_tokens without ending (Yu et al. 2025, DAPO). Single-turn text tasks only.'),
    param('overlong_buffer', count({ max: 4096 }), 2,
      'With overlong: penalize, the last tokens of max_new_tokens over which the penalty grows from 0 to -1 (DAPO\'s L_cache: 4096 of 20480 there, about a fifth, as 2 is of the default max_new_tokens 8).'),
    gradNorm(1.0),
    credit,
    param('sft_data', oneOf(choice(option('none', 'No demonstrations: plain GRPO.'), option('demos', 'The env\'s own demonstrations, as SFT\'s `data: demos` (never held-out prompts).')), file(DEMONSTRATIONS, 'examples')), 'none',
      'Demonstrations whose cross-entropy is added to each update\'s loss, weighted by sft_coef (CHORD, Zhang et al. 2025; LUFFY, Yan et al. 2025): `demos`, or the path of a JSONL file of {"prompt", "target"} lines, as `dataset("...")` reads it (the run keeps a copy: docs/run-directory.md#data).'),
    param('sft_coef', num({ min: 0, max: 100, schedule: true }), 0.1,
      'Weight of the demonstrations\' mean token cross-entropy in the loss (CHORD\'s mu); schedulable, e.g. linear(0.5, 0). Needs sft_data.'),
    param('sft_batch_size', count({ max: 1e5 }), 16, 'Demonstrations drawn for each update\'s cross-entropy term (with sft_data).'),
    param('sampler_correction', choice(
      option('none', 'Nothing: the sampler\'s log-probabilities are not recorded.'),
      option('log', 'Log train/sampler_kl, the mean over the learned tokens of k3 between the sampler\'s distribution and the trainer\'s (their mismatch: a GPU sampler in fp16 against the float32 step, say).'),
      option('tis', 'Log train/sampler_kl, and weight each token\'s surrogate by min(pi_old / pi_sampler, tis_cap): truncated importance sampling (Yao et al. 2025, as verl and TRL offer it).'),
    ), 'none', 'What the trainer does with the gap between the sampler\'s and the trainer\'s log-probabilities of the sampled tokens (single-turn text tasks; records each token\'s sampling statistics).'),
    param('tis_cap', num({ min: 1, max: 1000 }), 2, 'With sampler_correction: tis, the largest importance weight pi_old / pi_sampler a token gets (verl\'s tis_imp_ratio_cap).'),
    ...textMemory,
  ],
  work: (p) => {
    const rows = n(p, 'prompts_per_update') * n(p, 'group_size');
    const demos = p.sft_data !== 'none' ? n(p, 'sft_batch_size') : 0;
    return {
      sampleRows: rows,
      // sft_data's demonstrations join each update's batch (runtime/algorithms/text/demos.ts).
      trainRows: rows + demos,
      completionTokens: n(p, 'max_new_tokens'),
      referenceCopy: n(p, 'kl_coef') > 0 && p.reference !== 'none',
      what: `GRPO ${n(p, 'prompts_per_update')} prompts x ${n(p, 'group_size')} completions${demos > 0 ? ` + ${demos} demonstrations` : ''}`,
    };
  },
};

export const SFT: AlgorithmSpec = {
  declKind: 'algorithm',
  name: 'SFT',
  doc: 'Supervised fine-tuning on demonstrations (cross-entropy on target tokens): a warm-up before RL.',
  actions: ['text'],
  lengthParam: 'updates',
  params: [
    param('data', oneOf(choice(option('demos', 'The env\'s own demonstrations: a TextTask\'s training prompts (never held-out ones) with their targets, GuessNumber\'s bisecting guesses, a module text env\'s `expert()` turns.')), file(DEMONSTRATIONS, 'examples')), 'demos',
      '`demos`, or the path of a JSONL file of {"prompt", "target"} lines, as `dataset("...")` reads it (on a TextTask env; its held-out prompts are left out). The run keeps a copy (docs/run-directory.md#data).'),
    param('updates', count({ max: 1e7 }), 1000, 'Gradient steps.'),
    batchSize(64),
    learningRate(1e-3),
    microBatch,
    gradientCheckpointing,
  ],
  work: (p) => ({ sampleRows: 0, trainRows: n(p, 'batch_size'), referenceCopy: false, what: `SFT batches of ${n(p, 'batch_size')}` }),
};

/** What DPO's `data` holds: preference pairs in TRL's formats (runtime/algorithms/dpo/pairs.ts). */
const PREFERENCE_PAIRS = 'preference pairs, one {"prompt", "chosen", "rejected"} object a line (strings, or TRL\'s conversational message lists; without "prompt", chosen and rejected share it as their common start)';

export const DPO: AlgorithmSpec = {
  declKind: 'algorithm',
  name: 'DPO',
  doc: 'Direct Preference Optimization (Rafailov et al. 2023) on preference pairs, as TRL\'s DPOTrainer: raises the policy\'s log-probability ratio to a reference on the chosen answer over the rejected one. Its variants are `loss` values: IPO, hinge (SLiC), robust DPO, and the reference-free, length-normalised SimPO. The experiment\'s env gives the held-out prompts it is evaluated on.',
  actions: ['text'],
  lengthParam: 'updates',
  params: [
    required('data', file(PREFERENCE_PAIRS),
      'The path of a JSONL file of preference pairs, relative to the .rlx file: {"prompt": "12+34=", "chosen": "46", "rejected": "47"} a line, or TRL\'s conversational form (`prompt` a list of {"role", "content"} messages, `chosen` and `rejected` lists of one assistant message), or an implicit prompt (no "prompt": chosen and rejected written out whole, their common start taken as the prompt). Pairs whose prompt is one of the env\'s held-out prompts are left out. The run keeps a copy (docs/run-directory.md#data).'),
    param('updates', count({ max: 1e7 }), 1000, 'Gradient steps.'),
    param('batch_size', count({ max: 1e5 }), 8, 'Preference pairs per gradient step (TRL\'s per_device_train_batch_size; each pair is two rows, chosen and rejected).'),
    learningRate(1e-6),
    param('beta', num({ min: 0, exclusiveMin: true, max: 100 }), 0.1,
      'The inverse temperature of the implicit reward beta log(pi / pi_ref): larger keeps the policy closer to the reference (TRL\'s beta; SimPO\'s paper uses 2 to 2.5).'),
    param('loss', choice(
      option('sigmoid', 'DPO\'s -log sigmoid(beta h), h the chosen answer\'s log-ratio minus the rejected one\'s (with label_smoothing: cDPO).'),
      option('ipo', 'IPO (Azar et al. 2023): (h - 1 / (2 beta))^2 on log-probabilities averaged over each answer\'s tokens, as TRL.'),
      option('hinge', 'SLiC\'s hinge (Zhao et al. 2023): max(0, 1 - beta h).'),
      option('robust', 'Robust DPO (Chowdhury et al. 2024): the sigmoid loss unbiased for preference labels flipped with probability label_smoothing.'),
      option('simpo', 'SimPO (Meng et al. 2024): no reference, log-probabilities averaged over each answer\'s tokens, and a target margin simpo_gamma: -log sigmoid(beta h - simpo_gamma) (TRL\'s CPOTrainer with loss_type simpo and cpo_alpha 0).'),
    ), 'sigmoid', 'The preference loss (TRL\'s loss_type).'),
    param('label_smoothing', num({ min: 0, max: 0.5, exclusiveMax: true }), 0,
      'The assumed probability that a pair\'s preference is flipped (TRL\'s label_smoothing): the sigmoid and simpo losses become conservative (cDPO), robust unbiases by it; ipo and hinge do not read it.'),
    param('reference', choice(
      option('initial', 'The policy as this stage starts: its log-probabilities of every pair are computed once, before the first update, and kept in the checkpoint.'),
      option('none', 'No reference: log pi_ref is taken as 0 (TRL\'s reference_free).'),
    ), 'initial', 'The policy the log-probability ratios are taken against; simpo has none and does not read it.'),
    param('simpo_gamma', num({ min: 0, max: 100 }), 0.5,
      'With loss: simpo, the target reward margin gamma: -log sigmoid(beta h - gamma) (TRL\'s simpo_gamma; the paper\'s gamma / beta is 0.5 to 1.6).'),
    param('rpo_alpha', num({ min: 0, max: 100 }), 0,
      'Weight of the chosen answers\' negative log-likelihood added to the loss (RPO, Pang et al. 2024: it keeps DPO from lowering the chosen answers\' probability with the rejected ones\'; TRL\'s rpo_alpha, 1.0 in the paper). 0: none.'),
    gradNorm(1.0),
    microBatch,
    gradientCheckpointing,
  ],
  // The reference's log-probabilities are computed once, before training: no copy of the model is kept.
  work: (p) => ({ sampleRows: 0, trainRows: 2 * n(p, 'batch_size'), referenceCopy: false, what: `DPO batches of ${n(p, 'batch_size')} pairs (${2 * n(p, 'batch_size')} rows)` }),
};

export const ALGORITHMS: AlgorithmSpec[] = [PPO, DQN, SAC, REINFORCE, GRPO, SFT, DPO, BC, TD3BC, IQL];

/**
 * Why stage `next` cannot follow stage `previous` on an env of numbers (undefined when it can):
 * a stage starts from the networks the stage before it trained, so both must train the same
 * ones. The checker reports it at the stage (incompatible-stages), `rlx train` refuses it.
 */
/** The networks an algorithm trains: a built-in's, or a learner module's (`module` in a plan, `module("./x.ts")` in the checker). */
function networksOf(algorithm: string): string | undefined {
  if (algorithm === 'module' || algorithm.startsWith('module(')) return LEARNER_MODULE_NETWORKS;
  return ALGORITHMS.find((a) => a.name === algorithm)?.networks;
}

/** What a numeric learner module trains (runtime/algorithms/module/numeric-networks.ts). */
const LEARNER_MODULE_NETWORKS = 'a deterministic actor and twin Q-networks of its own';

export function stageHandoverProblem(previous: { name: string; algorithm: string }, next: { name: string; algorithm: string }): string | undefined {
  const from = networksOf(previous.algorithm);
  const to = networksOf(next.algorithm);
  if (from === undefined || to === undefined || from === to) return undefined;
  const families = ALGORITHMS.filter((a) => a.networks !== undefined).map((a) => `${a.name} ${a.networks}`).join(', ');
  return `stage ${next.name} (${next.algorithm}) cannot start from the weights of stage ${previous.name} (${previous.algorithm}): ${previous.algorithm} trains ${from}, ${next.algorithm} ${to}. `
    + `Each stage starts from the networks the one before it trained, so consecutive stages on an env of numbers train the same ones (${families}, a learner module ${LEARNER_MODULE_NETWORKS})`;
}
