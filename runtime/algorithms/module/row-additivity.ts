// Whether a text learner module's loss is a sum over the update's rows, so that micro-batches
// (their losses and gradients summed, ../text/token-step.ts MicroBatchedRun) give the update
// the whole batch gives. A built-in learner is written so (its means are over the whole update:
// ../text/token-weights.ts); a module's buildLoss is the user's graph, which may take g.mean over
// rows. So the loss is built once more over stand-in inputs (the policy's log-probabilities fed,
// as the probe does: probe-worker.ts) and run on 2 groups of random rows and on each group alone:
// a sum over rows gives loss(both) = loss(first) + loss(second) whatever the values, a mean over
// rows half of it. The whole update's scalars (invTokens, invRows) are fed the same to all three
// runs, as the micro-batches are fed them.
//
// Metrics are combined as each one is: summed where it is a sum over rows, averaged by rows where
// it is a mean, and otherwise (a max, a ratio of sums) averaged by rows too, as an estimate.
import { Rng } from '../../../shared/random.js';
import type { BuildTextLoss, LearnerSettings } from '../../learner/text-batch.js';
import { Session, type Feed } from '../../tensor/index.js';
import { rowSlice } from '../text/token-step.js';
import { buildTextLoss, STAND_IN_POLICY, STAND_IN_VOCABULARY } from './text-loss.js';

/** How the micro-batches' values of a metric make the update's. */
export type MetricCombination = 'sum' | 'mean';

export interface RowAdditivity {
  /** The loss is a sum over rows: micro-batches leave the update unchanged. */
  readonly lossIsSum: boolean;
  /** The figures that say so: the loss of both groups, and of each alone. */
  readonly losses: { readonly both: number; readonly first: number; readonly second: number };
  /** By metric, in the order buildLoss returned them. */
  readonly metrics: readonly MetricCombination[];
}

/** Stand-in positions per row. */
const T = 5;
/** Relative agreement asked of float32 sums over a few dozen terms. */
const TOLERANCE = 1e-4;

/** Runs the module's loss on stand-in rows: `groupSize` rows twice, then each group alone. */
export async function rowAdditivity(label: string, buildLoss: BuildTextLoss, settings: LearnerSettings, groupSize: number, oldFed: boolean): Promise<RowAdditivity> {
  const built = buildTextLoss(label, buildLoss, settings, groupSize, 'T', STAND_IN_POLICY, oldFed);
  const names = Object.keys(built.metrics);
  const session = await Session.create(built.graph, { loss: built.loss, ...built.metrics });
  try {
    const rows = 2 * groupSize;
    const feeds = standInFeeds(rows, new Rng(0x5eed));
    const run = async (r0: number, m: number) => session.run(rowSlice(feeds, rows, r0, m));
    const [both, first, second] = [await run(0, rows), await run(0, groupSize), await run(groupSize, groupSize)];
    const at = (out: Record<string, Float32Array>, name: string) => out[name]![0]!;
    const isSum = (name: string) => close(at(both, name), at(first, name) + at(second, name));
    return {
      lossIsSum: isSum('loss'),
      losses: { both: at(both, 'loss'), first: at(first, 'loss'), second: at(second, 'loss') },
      metrics: names.map((name) => (isSum(name) ? 'sum' : 'mean')),
    };
  } finally {
    await session.release();
  }
}

function close(a: number, b: number): boolean {
  return Math.abs(a - b) <= TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));
}

/** Random values for every input a module's graph may read, over `rows` rows of T positions. */
function standInFeeds(rows: number, rng: Rng): Record<string, Feed> {
  const values = (n: number, draw: () => number) => Float32Array.from({ length: n }, draw);
  const logSoftmax = new Float32Array(rows * T * STAND_IN_VOCABULARY);
  for (let i = 0; i < rows * T; i++) {
    // A normalised distribution per position, so that entropies and gathers read what they would.
    const logits = Array.from({ length: STAND_IN_VOCABULARY }, () => 2 * rng.uniform());
    const norm = Math.log(logits.reduce((s, x) => s + Math.exp(x), 0));
    logits.forEach((x, v) => (logSoftmax[i * STAND_IN_VOCABULARY + v] = x - norm));
  }
  const ids = () => BigInt64Array.from({ length: rows * T }, () => BigInt(Math.floor(rng.uniform() * STAND_IN_VOCABULARY)));
  const mask = values(rows * T, () => (rng.uniform() < 0.7 ? 1 : 0));
  const tokens = mask.reduce((s, x) => s + x, 0);
  const logp = () => values(rows * T, () => -0.1 - 3 * rng.uniform());
  return {
    tokens: { data: ids(), dims: [rows, T] },
    targets: { data: ids(), dims: [rows, T] },
    mask: { data: mask, dims: [rows, T] },
    probe_logp: { data: logp(), dims: [rows, T] },
    probe_log_softmax: { data: logSoftmax, dims: [rows, T, STAND_IN_VOCABULARY] },
    old_logp: { data: logp(), dims: [rows, T] },
    ref_logp: { data: logp(), dims: [rows, T] },
    rewards: { data: values(rows, () => rng.uniform()), dims: [rows] },
    advantages: { data: values(rows, () => 2 * rng.uniform() - 1), dims: [rows] },
    // The whole batch's, fed alike to the micro-batches.
    inv_tokens: Float32Array.of(1 / Math.max(1, tokens)),
    inv_rows: Float32Array.of(1 / rows),
    inv_temperature: Float32Array.of(1),
  };
}
