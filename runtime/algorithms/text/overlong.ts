// Completions that reach max_new_tokens without ending (Yu et al. 2025, DAPO, section 3.4): a
// cut answer may be right in its reasoning yet scored wrong, which teaches noise. GRPO's
// `overlong` setting chooses what the learner does with them, before the filter and the advantages:
//
//   keep      train on them like any other completion (plain GRPO);
//   drop      leave them out of the loss: their mask is 0 (DAPO's overlong filtering); they still
//             take part in their group's rewards, so the other completions' advantages are unchanged;
//   penalize  DAPO's soft overlong punishment, added to every completion's reward by its length |y|
//             (tokens written, without the end) with L_max = max_new_tokens and L_cache = overlong_buffer:
//                 0                              |y| <= L_max - L_cache
//                 (L_max - L_cache - |y|) / L_cache   beyond, down to -1 for a completion cut at L_max.
//
// Single-turn tasks only: they report each completion's length (Rollouts' `completions`). A dialogue's
// agent turns are cut each at its own limit, inside one sample, and the checker refuses the setting there.
import { InputError } from '../../../shared/input-error.js';
import type { Rollouts } from '../../text/text-env.js';

export const OVERLONG = ['keep', 'drop', 'penalize'] as const;
export type Overlong = (typeof OVERLONG)[number];

export interface OverlongSetting {
  readonly mode: Overlong;
  /** L_cache of `penalize`, in tokens. */
  readonly buffer: number;
}

/** DAPO's soft overlong punishment of a completion of `length` tokens, with `max` = L_max and `buffer` = L_cache. */
export function overlongPenalty(length: number, max: number, buffer: number): number {
  const expected = max - buffer;
  if (length <= expected) return 0;
  return Math.max(-1, (expected - length) / buffer);
}

/**
 * `batch` with the setting applied: `drop` zeroes cut completions' mask (and their token
 * counts), `penalize` adds the penalty to the rewards (a copy). `keep` returns the batch as it
 * is. Metrics: the fraction of completions cut, and the mean penalty with `penalize`.
 */
export function applyOverlong(batch: Rollouts, setting: OverlongSetting, where: string): { batch: Rollouts; metrics: Record<string, number> } {
  if (setting.mode === 'keep') return { batch, metrics: {} };
  const c = batch.completions;
  // The checker refuses the setting with a dialogue env; this is the trainer's own guard.
  if (!c) throw new InputError(`${where}: overlong: ${setting.mode} needs a single-turn text task (TextTask), whose completions can be cut at max_new_tokens; use overlong: keep with this env`);
  const { rows, width: T } = batch;
  let cut = 0;
  for (let r = 0; r < rows; r++) cut += c.truncated[r]!;
  const metrics: Record<string, number> = { 'train/overlong': cut / rows };
  if (setting.mode === 'penalize') {
    const rewards = Float64Array.from(batch.rewards);
    let total = 0;
    for (let r = 0; r < rows; r++) {
      const penalty = overlongPenalty(c.lengths[r]!, c.max, setting.buffer);
      rewards[r] = rewards[r]! + penalty;
      total += penalty;
    }
    metrics['train/overlong_penalty'] = total / rows;
    return { batch: { ...batch, rewards }, metrics };
  }
  if (cut === 0) return { batch, metrics };
  const mask = Float32Array.from(batch.mask);
  const perRow = Int32Array.from(batch.perRow);
  let tokenCount = batch.tokenCount;
  for (let r = 0; r < rows; r++) {
    if (!c.truncated[r]) continue;
    mask.fill(0, r * T, (r + 1) * T);
    tokenCount -= perRow[r]!;
    perRow[r] = 0;
  }
  return { batch: { ...batch, mask, perRow, tokenCount }, metrics };
}
