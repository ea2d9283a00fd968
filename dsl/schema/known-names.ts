// Property names users bring from Stable-Baselines3, CleanRL and TRL, and the rlx property each
// means. Edit distance cannot find these (`ent_coef` is far from `entropy_coef`, `n_steps` from
// `rollout_steps`), so an unknown property is looked up here before the typo suggestions.

export interface KnownName {
  /** rlx's property, where the body has it. */
  rlx: string;
  /** Where the name comes from, as the message says it. */
  from: string;
  /** What differs beyond the name, when something does. */
  note?: string;
}

/** Name as written -> the rlx properties it may mean, the first one the body has wins. */
const KNOWN_NAMES: Record<string, KnownName[]> = {
  policy_lr: [{ rlx: 'learning_rate', from: "CleanRL's" }],
  q_lr: [{ rlx: 'critic_learning_rate', from: "CleanRL's" }],
  buffer_size: [{ rlx: 'buffer', from: "SB3/CleanRL's" }],
  n_steps: [{ rlx: 'rollout_steps', from: "SB3's" }],
  num_steps: [{ rlx: 'rollout_steps', from: "CleanRL's" }],
  n_epochs: [{ rlx: 'epochs', from: "SB3's" }],
  update_epochs: [{ rlx: 'epochs', from: "CleanRL's" }],
  num_minibatches: [{ rlx: 'minibatches', from: "CleanRL's" }],
  // SB3's PPO batch_size is the size of a minibatch; rlx states how many there are.
  batch_size: [{ rlx: 'minibatches', from: "SB3's PPO", note: 'rlx sets the number of minibatches per rollout, not their size' }],
  ent_coef: [{ rlx: 'entropy_coef', from: "SB3/CleanRL's" }],
  vf_coef: [{ rlx: 'value_coef', from: "SB3/CleanRL's" }],
  clip_range: [{ rlx: 'clip', from: "SB3's" }],
  clip_coef: [{ rlx: 'clip', from: "CleanRL's" }],
  clip_vloss: [{ rlx: 'clip_value', from: "CleanRL's" }],
  norm_adv: [{ rlx: 'normalize_advantages', from: "CleanRL's" }],
  normalize_advantage: [{ rlx: 'normalize_advantages', from: "SB3's" }],
  target_update_interval: [{ rlx: 'target_update', from: "SB3's" }],
  target_network_frequency: [{ rlx: 'target_update', from: "CleanRL's" }],
  train_freq: [{ rlx: 'train_every', from: "SB3's" }],
  train_frequency: [{ rlx: 'train_every', from: "CleanRL's" }],
  exploration_fraction: [{ rlx: 'epsilon', from: "SB3's", note: 'write the exploration schedule as epsilon: linear(1.0, 0.05, over: 0.1)' }],
  exploration_initial_eps: [{ rlx: 'epsilon', from: "SB3's", note: 'write the exploration schedule as epsilon: linear(1.0, 0.05, over: 0.1)' }],
  exploration_final_eps: [{ rlx: 'epsilon', from: "SB3's", note: 'write the exploration schedule as epsilon: linear(1.0, 0.05, over: 0.1)' }],
  start_e: [{ rlx: 'epsilon', from: "CleanRL's", note: 'write the exploration schedule as epsilon: linear(1.0, 0.05, over: 0.5)' }],
  end_e: [{ rlx: 'epsilon', from: "CleanRL's", note: 'write the exploration schedule as epsilon: linear(1.0, 0.05, over: 0.5)' }],
  autotune: [{ rlx: 'alpha', from: "CleanRL's", note: "alpha: auto tunes the temperature" }],
  ent_coef_auto: [{ rlx: 'alpha', from: "SB3's" }],
  num_generations: [{ rlx: 'group_size', from: "TRL's" }],
  beta: [{ rlx: 'kl_coef', from: "TRL's" }],
  max_completion_length: [{ rlx: 'max_new_tokens', from: "TRL's" }],
  per_device_train_batch_size: [{ rlx: 'micro_batch', from: "TRL's", note: 'rows per forward/backward; the update is all of prompts_per_update x group_size rows, their gradients summed' }],
  gradient_accumulation_steps: [{ rlx: 'micro_batch', from: "TRL's", note: 'rlx accumulates over the whole update: set micro_batch to its rows divided by the steps' }],
  generation_batch_size: [{ rlx: 'generation_batch', from: "TRL's" }],
  truncation_side: [{ rlx: 'truncation', from: "TRL/transformers'" }],
  stop_strings: [{ rlx: 'stop', from: "transformers' generate" }],
  epsilon: [{ rlx: 'clip', from: "TRL's" }],
  total_timesteps: [{ rlx: 'budget', from: "SB3/CleanRL's" }],
  n_envs: [{ rlx: 'envs', from: "SB3's" }],
  num_envs: [{ rlx: 'envs', from: "CleanRL's" }],
  seed: [{ rlx: 'seeds', from: "SB3/CleanRL's", note: 'seeds takes a list: seeds: [1, 2, 3]' }],
};

/** The rlx property an unknown name means in a body with these properties, when it is a known name from elsewhere. */
export function knownName(name: string, valid: readonly string[]): KnownName | undefined {
  const candidates = Object.hasOwn(KNOWN_NAMES, name) ? KNOWN_NAMES[name] : [];
  return candidates.find((k) => valid.includes(k.rlx));
}
