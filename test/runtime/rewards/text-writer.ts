// A stand-in character model for reward tests: it writes `texts[r % texts.length]` as completion
// r (cut to the slots it has, then EOS), so a test decides exactly what each completion says.
import type { TokenModel } from '../../../runtime/policies/index.js';
import { EOS, PAD } from '../../../runtime/policies/transformer/char-tokenizer.js';
import type { TextEnvironment } from '../../../runtime/text/env.js';

export function writer(env: TextEnvironment, texts: readonly string[]): TokenModel {
  return {
    kind: 'transformer',
    tokenizer: env.tokenizer,
    generate: async (_prompts: Int32Array, rows: number, _width: number, N: number) => {
      const slots = new Int32Array(rows * N).fill(PAD);
      for (let r = 0; r < rows; r++) {
        const ids = env.tokenizer.encode(texts[r % texts.length]!);
        slots.set(ids.slice(0, N - 1), r * N);
        slots[r * N + Math.min(ids.length, N - 1)] = EOS;
      }
      return slots;
    },
  } as unknown as TokenModel;
}
