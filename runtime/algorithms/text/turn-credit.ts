// Per-turn credit (`credit: turn`) for dialogues: each agent turn's tokens carry the advantage of
// that turn's return-to-go instead of the whole dialogue's return. With `credit: episode` (the
// default) every token of a sample carries the sample's one advantage (advantages.ts), as
// before. Both reach the loss as one advantage per token [B, T] (policy-gradient-loss.ts).
//
// Sample i of a group took turns 0 .. n_i - 1 with rewards r_i,0 .. r_i,n_i-1 (the env's, with or
// replaced by the reward terms, evaluated per turn: text/dialogue-reward.ts). Turn k's
// return-to-go is the sum of the rewards from that turn on (undiscounted, as a dialogue's return is):
//
//   G_i,k = r_i,k + r_i,k+1 + ... + r_i,n_i-1           (G_i,0 is the dialogue's return)
//
// and it is compared with the same turn of the group's other dialogues: S_k is the samples of the
// group that took turn k, and with the learner's baseline and normalize settings over S_k,
//
//   baseline mean:           b_i,k = mean of G_j,k over S_k
//   baseline leave_one_out:  b_i,k = mean of G_j,k over S_k without i    (0 when i is alone)
//   baseline none:           b_i,k = 0                                     (REINFORCE's `none`)
//   normalize group_std:     A_i,k = (G_i,k - b_i,k) / (std of G_j,k over S_k + eps)
//   normalize batch_std:     A_i,k = (G_i,k - b_i,k) / (std of every turn's G in the batch + eps)
//   normalize none:          A_i,k =  G_i,k - b_i,k
//   normalize max_abs:       A_i,k = (G_i,k - b_i,k) / max over S_k of |G_j,k - b_j,k|
//
// As for whole samples, a turn whose G is the same for all of S_k (a sample alone at its turn
// included) has advantage 0 under a mean or leave-one-out baseline. This is MT-GRPO's turn-level
// advantage (Zeng et al. 2025, "Reinforcing Multi-Turn Reasoning in LLM Agents via Turn-Level
// Credit Assignment", arXiv:2505.11821: each turn normalised over the group at that turn) applied
// to the return-to-go, as GTPO (Group Turn Policy Optimization, 2025) takes normalised returns as
// turn advantages; with gamma 1. At turn 0 every sample of a group reads the same opening, so S_0
// is exactly GiGPO's anchor-state group (Feng et al. 2025, arXiv:2505.10978); at later turns the
// turn index stands in for the state. A turn's later rewards count for it, its earlier ones do
// not: a dialogue that wasted turns before finding the answer credits the finding turn like one
// that found it at once, when the reward shapes turns (a cost per turn, say). With the env's
// reward only at the end every turn's G is the return, and only the baseline (over the dialogues
// still running at that turn) differs from `credit: episode`.
//
// Where the KL is taken off the reward (`kl_in_reward`), each turn's reward loses kl_coef times
// the KL summed over that turn's tokens, so the penalty lands on the turn that incurred it.
import type { Rollouts, TurnRewards } from '../../text/text-env.js';
import { ADVANTAGE_EPS, type Normalize } from './advantages.js';
import { klOf, type KlEstimator } from './kl.js';

export const CREDITS = ['episode', 'turn'] as const;
export type Credit = (typeof CREDITS)[number];

/** How turns are compared within a group: the learner's baseline and scale. */
export interface TurnCredit {
  readonly baseline: 'none' | 'mean' | 'leave_one_out';
  readonly normalize: Normalize;
}

/** The KL folded into the rewards (kl_in_reward): the sampling policy's and the reference's log-probabilities [B, T]. */
export interface RewardKl {
  readonly logp: Float32Array;
  readonly refLogp: Float32Array;
  readonly estimator: KlEstimator;
  readonly coef: number;
}

/** What the loss is fed and the rollout inspector shows. */
export interface CreditedAdvantages {
  /** Each token's advantage [B, T]. */
  readonly perToken: Float32Array;
  /** One per sample: its advantage (episode), or its first turn's (turn). */
  readonly perSample: Float32Array;
}

/** G_i,k for every row and turn [rows, K]: 0 past a row's last turn. */
export function returnsToGo(turns: Pick<TurnRewards, 'maxTurns' | 'taken'>, rewards: ArrayLike<number>): Float64Array {
  const K = turns.maxTurns;
  const out = new Float64Array(rewards.length);
  for (let r = 0; r < turns.taken.length; r++) {
    let g = 0;
    for (let k = turns.taken[r]! - 1; k >= 0; k--) {
      g += rewards[r * K + k]!;
      out[r * K + k] = g;
    }
  }
  return out;
}

/** Each turn's reward less kl_coef times the KL summed over the tokens the agent wrote in it. */
export function turnRewardsLessKl(turns: TurnRewards, width: number, kl: RewardKl): Float64Array {
  const out = Float64Array.from(turns.rewards);
  for (let r = 0; r < turns.taken.length; r++) {
    for (let t = r * width; t < (r + 1) * width; t++) {
      const k = turns.tokenTurn[t]!;
      if (k >= 0) out[r * turns.maxTurns + k]! -= kl.coef * klOf(kl.refLogp[t]! - kl.logp[t]!, kl.estimator);
    }
  }
  return out;
}

function stdOf(xs: readonly number[]): number {
  const mean = xs.reduce((a, x) => a + x / xs.length, 0);
  return Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / Math.max(1, xs.length - 1));
}

/** A_i,k for every row and turn [rows, K] (groups of `groupSize` consecutive rows), from the returns-to-go; 0 past a row's last turn. */
export function turnAdvantages(turns: Pick<TurnRewards, 'maxTurns' | 'taken'>, toGo: Float64Array, groupSize: number, credit: TurnCredit): Float64Array {
  const K = turns.maxTurns;
  const rows = turns.taken.length;
  const out = new Float64Array(rows * K);
  const all: number[] = [];
  for (let r = 0; r < rows; r++) for (let k = 0; k < turns.taken[r]!; k++) all.push(toGo[r * K + k]!);
  const batchScale = credit.normalize === 'batch_std' ? stdOf(all) + ADVANTAGE_EPS : 1;
  for (let start = 0; start < rows; start += groupSize) {
    for (let k = 0; k < K; k++) {
      const members: number[] = [];
      for (let r = start; r < start + groupSize; r++) if (turns.taken[r]! > k) members.push(r);
      if (members.length === 0) continue;
      const values = members.map((r) => toGo[r * K + k]!);
      const same = values.every((v) => v === values[0]);
      if (credit.baseline !== 'none' && same) continue; // all 0: nothing to compare
      const sum = values.reduce((a, v) => a + v, 0);
      const n = values.length;
      const centred = values.map((v) => v - (credit.baseline === 'none' ? 0 : credit.baseline === 'mean' ? sum / n : (sum - v) / (n - 1)));
      const scale = credit.normalize === 'group_std' ? stdOf(values) + ADVANTAGE_EPS
        : credit.normalize === 'max_abs' ? Math.max(...centred.map(Math.abs))
          : batchScale;
      // A zero scale (max_abs of all-zero returns with no baseline) leaves nothing to credit.
      members.forEach((r, m) => (out[r * K + k] = scale === 0 ? 0 : centred[m]! / scale));
    }
  }
  return out;
}

/** Every position of row r carries perSample[r] (policy-gradient-loss.ts's [B, T] input, as the [B] one broadcast). */
export function broadcastAdvantages(perSample: Float32Array, width: number): Float32Array {
  const out = new Float32Array(perSample.length * width);
  for (let r = 0; r < perSample.length; r++) out.fill(perSample[r]!, r * width, (r + 1) * width);
  return out;
}

/**
 * The advantages fed to the loss: `perSample` on every token (credit episode, or a batch
 * without turns: a single-turn task), else each learned token its turn's advantage.
 */
export function creditedAdvantages(batch: Rollouts, groupSize: number, perSample: Float32Array, credit: TurnCredit | undefined, kl?: RewardKl): CreditedAdvantages {
  const turns = batch.turnRewards;
  if (!credit || !turns) return { perToken: broadcastAdvantages(perSample, batch.width), perSample };
  const rewards = kl ? turnRewardsLessKl(turns, batch.width, kl) : turns.rewards;
  const byTurn = turnAdvantages(turns, returnsToGo(turns, rewards), groupSize, credit);
  const perToken = new Float32Array(batch.rows * batch.width);
  turns.tokenTurn.forEach((k, t) => {
    if (k >= 0) perToken[t] = byTurn[Math.floor(t / batch.width) * turns.maxTurns + k]!;
  });
  const firstTurn = Float32Array.from({ length: batch.rows }, (_, r) => byTurn[r * turns.maxTurns]!);
  return { perToken, perSample: firstTurn };
}
