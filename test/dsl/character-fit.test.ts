// The checker says what rlx train refuses of a character-level transformer on a TextTask's
// dataset (issue 43's "what the checker passes must work"): a target longer than max_tokens, and
// prompts plus completions past the policy's context. Both were clean in check and refused by train.
import { describe, test } from 'node:test';
import { expectClean, expectDiagnostic } from '../helpers/source.js';

const ROWS = '{"prompt": "add 1", "target": "f=lambda x:x+1"}\n{"prompt": "mul 12", "target": "f=lambda x:x*12"}\n';

function spec(env: string, policy: string, use = 'policy: Tiny'): Record<string, string> {
  return {
    'main.rlx': `${env}\n${policy}\nalgorithm G = GRPO { max_new_tokens: 4 }\nexperiment E {\n  env: Code\n  ${use}\n  algorithm: G\n  budget: 1k\n}\n`,
    'rows.jsonl': ROWS,
  };
}

const roots = ['main.rlx'];
const POLICY = 'policy Tiny = transformer { layers: 1, width: 16, heads: 2, context: 32 }';

describe('a character transformer on a dataset', () => {
  test('targets and prompts that fit: clean', () => {
    expectClean(spec('env Code = TextTask { task: dataset("./rows.jsonl"), max_tokens: 15 }', POLICY), roots);
  });

  test('a target longer than max_tokens: at max_tokens where written, else at the dataset', () => {
    expectDiagnostic(spec('env Code = TextTask { task: dataset("./rows.jsonl"), max_tokens: ⟦12⟧ }', POLICY), 'out-of-range',
      "Code's max_tokens is 12, but ./rows.jsonl has targets of up to 15 characters, which no completion could reach (experiment E); raise max_tokens to at least 15", { roots });
    expectDiagnostic(spec('env Code = TextTask { task: dataset(⟦"./rows.jsonl"⟧) }', POLICY), 'out-of-range', /^Code's max_tokens is 8 \(the default\), but \.\/rows\.jsonl has targets of up to 15 characters/, { roots });
  });

  test('prompts and completions past the context: at the policy\'s context where written, else at the experiment\'s policy', () => {
    expectDiagnostic(spec('env Code = TextTask { task: dataset("./rows.jsonl"), max_tokens: 15 }', 'policy Tiny = transformer { layers: 1, width: 16, heads: 2, context: ⟦20⟧ }'), 'out-of-range',
      "policy Tiny: prompts of up to 6 characters (plus <bos>) in ./rows.jsonl and completions of up to 15 (Code's max_tokens, plus <eos>) need a context of 22 tokens, but the policy's context is 20 (experiment E); raise `context` to at least 22", { roots });
    expectDiagnostic(spec('env Code = TextTask { task: dataset("./rows.jsonl"), max_tokens: 40 }', 'policy Tiny = transformer { layers: 1, width: 16, heads: 2 }', 'policy: ⟦Tiny⟧'), 'out-of-range',
      /need a context of 47 tokens, but the policy's context is 32 \(the default\)/, { roots });
  });
});
