// What a text learner module is given and returns (docs/learners.md#the-rlxlearner-surface).
// rlx samples a batch of groups (group_size completions of each of prompts_per_update prompts,
// consecutive rows), scores them with the plan's reward, and feeds the graph the module built
// once at the start. Each input is made when the module first reads it, so a learner pays only
// for what it uses: reading refLogProb makes rlx keep the policy as the stage began.
import type { LossGraph, LossTensor } from './loss-graph.js';

/** A batch of B = groups * groupSize completions, each a row of T token positions. */
export interface TextBatch {
  /** Completions per prompt: rows 0..G-1 are the first prompt's, G..2G-1 the second's, and so on. */
  readonly groupSize: number;
  /** [B, T] int64: the tokens the model reads at each position (prompt, then completion). */
  readonly tokens: LossTensor;
  /** [B, T] int64: each position's next token, the one whose probability is scored. */
  readonly targets: LossTensor;
  /** [B, T] float32: 1 where the target belongs to the completion (the tokens the policy wrote), else 0. */
  readonly mask: LossTensor;
  /** [B, T] float32: log pi(target) under the policy being trained, at the sampling temperature; the gradient flows through it. */
  readonly logProb: LossTensor;
  /** [B, T] float32: the entropy of the policy's next-token distribution at each position (differentiable). */
  readonly entropy: LossTensor;
  /** [B] float32: each completion's reward (the plan's reward terms, summed). */
  readonly rewards: LossTensor;
  /** [B] float32: GRPO's advantages, (reward - group mean) / (group std + 1e-4), computed by rlx. */
  readonly advantages: LossTensor;
  /** [B, T] float32: log pi_old(target), the policy that sampled the batch (with iterations: 1 it is logProb with the gradient stopped). */
  readonly oldLogProb: LossTensor;
  /** [B, T] float32: log pi_ref(target), the policy as this stage began (kept in checkpoints). */
  readonly refLogProb: LossTensor;
  /** [] float32: 1 / (completion tokens in the batch), for a mean over all of them. */
  readonly invTokens: LossTensor;
  /** [] float32: 1 / (rows in the batch), for a mean over its completions that micro-batches keep exact (g.mul(g.sum(x), batch.invRows), not g.mean(x)). */
  readonly invRows: LossTensor;
}

/** A module's settings, as the .rlx file set them (defaults filled): numbers, true/false, or a choice's name. */
export type LearnerSettings = Readonly<Record<string, number | boolean | string>>;

/** What a text learner's buildLoss returns. */
export interface LearnerLoss {
  /** The scalar (shape []) rlx minimises. */
  readonly loss: LossTensor;
  /** Scalars to log each update, as `learner/NAME` (NAME: lower case letters, digits, '_'); averaged over iterations. */
  readonly metrics?: Readonly<Record<string, LossTensor>>;
}

/** The function a text learner module exports as `buildLoss`: called once, when the stage starts. */
export type BuildTextLoss = (g: LossGraph, batch: TextBatch, settings: LearnerSettings) => LearnerLoss;

/** What a metric's name may be: it is logged as `learner/NAME`. */
export const METRIC_NAME = /^[a-z][a-z0-9_]*$/;
