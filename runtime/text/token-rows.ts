// Training rows of a pretrained model, from prompt and completion ids of any lengths: prompts
// left-padded to the batch's longest, completions right-padded to the batch's longest, so that
// every completion starts at the same position (as sampling wrote them, in lockstep). What the
// model reads, each position's next token, and 1 where that next token is the completion's to
// learn (up to and including its EOS). The character-level transformer keeps its fixed layout
// (policies/transformer/layout.ts).
import type { TokenRows } from './text-env.js';

export interface PaddedTokenRows extends TokenRows {
  /** Each row's first real position (its left padding). */
  readonly starts: Int32Array;
  /** W: where every row's completion starts (the longest prompt). */
  readonly promptWidth: number;
}

export function tokenRows(prompts: readonly (readonly number[])[], completions: readonly (readonly number[])[], padId: number): PaddedTokenRows {
  const rows = prompts.length;
  const W = Math.max(1, ...prompts.map((p) => p.length));
  const N = Math.max(1, ...completions.map((c) => c.length));
  const T = W + N - 1;
  const tokens = new BigInt64Array(rows * T);
  const targets = new BigInt64Array(rows * T);
  const mask = new Float32Array(rows * T);
  const starts = new Int32Array(rows);
  const perRow = new Int32Array(rows);
  let tokenCount = 0;
  for (let r = 0; r < rows; r++) {
    const prompt = prompts[r]!;
    const completion = completions[r]!;
    starts[r] = W - prompt.length;
    const at = (i: number) => (i < starts[r]! ? padId : i < W ? prompt[i - starts[r]!]! : (completion[i - W] ?? padId));
    for (let i = 0; i < T; i++) {
      tokens[r * T + i] = BigInt(at(i));
      targets[r * T + i] = BigInt(at(i + 1));
    }
    for (let k = 0; k < completion.length; k++) mask[r * T + W - 1 + k] = 1;
    perRow[r] = completion.length;
    tokenCount += completion.length;
  }
  return { rows, width: T, tokens, targets, mask, tokenCount, perRow, starts, promptWidth: W };
}
