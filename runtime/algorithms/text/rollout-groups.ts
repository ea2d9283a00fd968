// Rollouts (../../text/text-env.ts) cut and joined by whole groups, for dynamic sampling
// (collect.ts): the groups a filter keeps out of each sampled batch, joined into the batch an
// update trains on. Rows stay in groups of `groupSize` consecutive rows, as the advantages expect.
//
// - Token rows, rewards, samples and completion lengths follow the rows kept; the model's own
//   feeds (a pretrained model's positions and attention mask, one slice per row), dialogues'
//   per-turn rewards and the tokens' sampling entropies too.
// - `steps`, `metrics` and `episodes` describe what was sampled, kept or not: the budget counts
//   every sample, and the metrics (means over the samples, counts under charts/ summed) and the
//   dialogues that ended describe the policy, not the filter.
// - Batches of different widths (a pretrained model's rows are as wide as each batch needs) are
//   right-padded to the widest, masked, with the model's feeds rebuilt by `refeed` from each
//   row's start (its left padding, which right padding leaves where it is).
import type { Feed, HostArray } from '../../tensor/index.js';
import type { CompletionLengths, Rollouts, TurnRewards } from '../../text/text-env.js';

/** A model's feeds for rows starting at `starts`, `width` wide (PretrainedPolicy.rowFeeds). */
export type Refeed = (starts: Int32Array, width: number) => Readonly<Record<string, Feed>>;

type RowArray = BigInt64Array | Float64Array | Float32Array | Uint16Array | Int32Array | Uint8Array;

/** Rows `rows` (of `rowSize` values each) of `data`, in that order. */
function pickRows<A extends RowArray>(data: A, rowSize: number, rows: readonly number[]): A {
  const out = new (data.constructor as new (n: number) => A)(rows.length * rowSize);
  rows.forEach((r, i) => out.set(data.subarray(r * rowSize, (r + 1) * rowSize) as never, i * rowSize));
  return out;
}

function startsOf(batch: Rollouts): Int32Array | undefined {
  return (batch as { starts?: Int32Array }).starts;
}

/** The groups `groups` (indices, each of `groupSize` rows) of `batch`; steps, metrics and episodes are the whole batch's. */
export function selectGroups(batch: Rollouts, groupSize: number, groups: readonly number[]): Rollouts {
  const rows = groups.flatMap((g) => Array.from({ length: groupSize }, (_, i) => g * groupSize + i));
  const T = batch.width;
  const perRow = pickRows(batch.perRow, 1, rows);
  const starts = startsOf(batch);
  let modelFeeds: Record<string, Feed> | undefined;
  if (batch.modelFeeds) {
    modelFeeds = {};
    for (const [name, feed] of Object.entries(batch.modelFeeds)) {
      if (!('dims' in feed) || feed.dims[0] !== batch.rows) throw new Error(`selectGroups: the model feed ${name} is not one slice per row`);
      const rowSize = feed.dims.slice(1).reduce((a, b) => a * b, 1);
      modelFeeds[name] = { data: pickRows(feed.data, rowSize, rows), dims: [rows.length, ...feed.dims.slice(1)] };
    }
  }
  const completions: CompletionLengths | undefined = batch.completions && {
    lengths: pickRows(batch.completions.lengths, 1, rows),
    truncated: pickRows(batch.completions.truncated, 1, rows),
    max: batch.completions.max,
  };
  const turns = batch.turnRewards;
  const turnRewards: TurnRewards | undefined = turns && {
    maxTurns: turns.maxTurns,
    rewards: pickRows(turns.rewards, turns.maxTurns, rows),
    taken: pickRows(turns.taken, 1, rows),
    tokenTurn: pickRows(turns.tokenTurn, T, rows),
  };
  const tokenEntropy = batch.tokenEntropy && pickRows(batch.tokenEntropy, T, rows);
  const tokenSamplerLogProb = batch.tokenSamplerLogProb && pickRows(batch.tokenSamplerLogProb, T, rows);
  return {
    ...batch,
    rows: rows.length,
    tokens: pickRows(batch.tokens, T, rows),
    targets: pickRows(batch.targets, T, rows),
    mask: pickRows(batch.mask, T, rows),
    perRow,
    tokenCount: perRow.reduce((a, b) => a + b, 0),
    rewards: Float64Array.from(rows, (r) => batch.rewards[r]!),
    samples: rows.map((r) => batch.samples[r]!),
    ...(modelFeeds ? { modelFeeds } : {}),
    ...(starts ? { starts: pickRows(starts, 1, rows) } : {}),
    ...(completions ? { completions } : {}),
    ...(turnRewards ? { turnRewards } : {}),
    ...(tokenEntropy ? { tokenEntropy } : {}),
    ...(tokenSamplerLogProb ? { tokenSamplerLogProb } : {}),
  };
}

/** Means over all rows of the batches, except counts (charts/...), which are summed. */
export function mergeMetrics(batches: readonly Pick<Rollouts, 'rows' | 'metrics'>[]): Record<string, number> {
  const rows = batches.reduce((sum, b) => sum + b.rows, 0);
  const out: Record<string, number> = {};
  for (const b of batches) {
    for (const [name, value] of Object.entries(b.metrics)) {
      out[name] = (out[name] ?? 0) + (name.startsWith('charts/') ? value : (value * b.rows) / Math.max(1, rows));
    }
  }
  return out;
}

/** `data` (rows of `from` values) with each row right-padded with `fill` (zeros: masked, any token would do) to `width` values. */
function widen<A extends RowArray>(data: A, rows: number, from: number, width: number, fill = 0): A {
  if (from === width) return data;
  const out = new (data.constructor as new (n: number) => A)(rows * width);
  if (fill !== 0) out.fill(fill as never);
  for (let r = 0; r < rows; r++) out.set(data.subarray(r * from, (r + 1) * from) as never, r * width);
  return out;
}

/** The batches' rows one after another (their groups, in order): one batch an update trains on. */
export function concatRollouts(batches: readonly Rollouts[], refeed?: Refeed): Rollouts {
  if (batches.length === 0) throw new Error('concatRollouts: no batches');
  if (batches.length === 1) return batches[0]!;
  // An empty selection (a batch whose groups were all dropped) does not widen the rows.
  const T = Math.max(...batches.map((b) => (b.rows > 0 ? b.width : 0))) || batches[0]!.width;
  const rows = batches.reduce((sum, b) => sum + b.rows, 0);
  const join = <A extends RowArray>(part: (b: Rollouts) => A, perRowValues: (b: Rollouts) => number, widthOf: (b: Rollouts) => number, fill = 0): A => {
    const first = part(batches[0]!);
    const out = new (first.constructor as new (n: number) => A)(rows * perRowValues(batches[0]!));
    let at = 0;
    for (const b of batches) {
      const data = widen(part(b), b.rows, widthOf(b), perRowValues(b), fill);
      out.set(data as never, at);
      at += data.length;
    }
    return out;
  };
  const rowWide = () => T;
  const one = () => 1;
  const widths = (b: Rollouts) => b.width;
  const perRow = join((b) => b.perRow, one, one);
  const allStarts = batches.map(startsOf);
  const starts = allStarts.every((s) => s !== undefined) ? join((b) => startsOf(b)!, one, one) : undefined;
  let modelFeeds: Readonly<Record<string, Feed>> | undefined;
  if (batches.some((b) => b.modelFeeds)) {
    if (batches.every((b) => b.width === T)) {
      const names = Object.keys(batches[0]!.modelFeeds ?? {});
      modelFeeds = Object.fromEntries(names.map((name) => {
        const feedOf = (b: Rollouts) => {
          const feed = b.modelFeeds?.[name];
          if (!feed || !('dims' in feed)) throw new Error(`concatRollouts: the model feed ${name} is missing from a batch, or is not one slice per row`);
          return feed;
        };
        const rowSize = (b: Rollouts) => feedOf(b).dims.slice(1).reduce((x, y) => x * y, 1);
        const data: HostArray = join((b) => feedOf(b).data, rowSize, rowSize);
        return [name, { data, dims: [rows, ...feedOf(batches[0]!).dims.slice(1)] }];
      }));
    } else {
      if (!refeed || !starts) throw new Error('concatRollouts: batches of different widths with model feeds need each row\'s start and a refeed');
      modelFeeds = refeed(starts, T);
    }
  }
  const completions = batches.every((b) => b.completions) ? {
    lengths: join((b) => b.completions!.lengths, one, one),
    truncated: join((b) => b.completions!.truncated, one, one),
    max: Math.max(...batches.map((b) => b.completions!.max)),
  } : undefined;
  // Per-turn rewards (dialogues): K per row, and the turn of each token, -1 (no token) in the padding.
  const K = batches[0]!.turnRewards?.maxTurns;
  const turnRewards: TurnRewards | undefined = K !== undefined && batches.every((b) => b.turnRewards?.maxTurns === K) ? {
    maxTurns: K,
    rewards: join((b) => b.turnRewards!.rewards, () => K, () => K),
    taken: join((b) => b.turnRewards!.taken, one, one),
    tokenTurn: join((b) => b.turnRewards!.tokenTurn, rowWide, widths, -1),
  } : undefined;
  return {
    rows,
    width: T,
    tokens: join((b) => b.tokens, rowWide, widths),
    targets: join((b) => b.targets, rowWide, widths),
    mask: join((b) => b.mask, rowWide, widths),
    perRow,
    tokenCount: batches.reduce((sum, b) => sum + b.tokenCount, 0),
    rewards: Float64Array.from(batches.flatMap((b) => Array.from(b.rewards))),
    samples: batches.flatMap((b) => b.samples),
    steps: batches.reduce((sum, b) => sum + b.steps, 0),
    metrics: mergeMetrics(batches),
    episodes: batches.flatMap((b) => b.episodes),
    ...(modelFeeds ? { modelFeeds } : {}),
    ...(starts ? { starts } : {}),
    ...(completions ? { completions } : {}),
    ...(turnRewards ? { turnRewards } : {}),
    ...(batches.every((b) => b.tokenEntropy) ? { tokenEntropy: join((b) => b.tokenEntropy!, rowWide, widths) } : {}),
    ...(batches.every((b) => b.tokenSamplerLogProb) ? { tokenSamplerLogProb: join((b) => b.tokenSamplerLogProb!, rowWide, widths) } : {}),
  } as Rollouts;
}
