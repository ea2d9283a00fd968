// A hand-made batch of learned-token rows that the text learner's per-token steps are checked
// on (variants.test.ts, entropy.test.ts): their expected weights are worked out on this layout.
import type { TokenRows } from '../../../../runtime/text/text-env.js';

/** Two rows of width 4: 2 and 3 learned tokens (positions 1-2 and 4-6). */
export const TWO_ROWS: TokenRows = {
  rows: 2,
  width: 4,
  tokens: new BigInt64Array(8),
  targets: new BigInt64Array(8),
  mask: Float32Array.of(0, 1, 1, 0, 1, 1, 1, 0),
  tokenCount: 5,
  perRow: Int32Array.of(2, 3),
};
