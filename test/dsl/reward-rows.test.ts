// The checker on a TextTask's dataset columns in reward terms (`row.NAME`, typed from the file's
// first rows) and on python("./file.py:function") reward terms (issue 45): unknown fields at the
// name with did-you-mean, misuse of a text field, a generated task's rows, python()'s literal,
// file and function, and python() on an env it cannot score.
import { describe, test } from 'node:test';
import { expectClean, expectDiagnostic, expectDiagnostics } from '../helpers/source.js';

const ROWS = '{"prompt": "1+1=", "target": "2", "answer": 2, "solution": "two", "ok": true, "tags": ["a"]}\n{"prompt": "2+2=", "target": "4", "answer": 4, "solution": "four", "ok": false, "tags": []}\n';
const REWARDS_PY = 'import re\n\ndef accuracy(prompts, completions, answer, **kwargs):\n    return [1.0 for _ in completions]\n';

/** A spec whose reward has `terms`, paired with a TextTask over rows.jsonl (or `task`). */
function spec(terms: string, task = 'dataset("./rows.jsonl")'): Record<string, string> {
  return {
    'main.rlx': `env Sums = TextTask { task: ${task}, max_tokens: 4 }
policy Tiny = transformer { layers: 1, width: 32, heads: 2, context: 32 }
algorithm G = GRPO { group_size: 4 }
reward R {
${terms}
}
experiment E {
  env: Sums
  policy: Tiny
  algorithm: G
  budget: 1k
  reward: R
}
`,
    'rows.jsonl': ROWS,
    'rewards.py': REWARDS_PY,
  };
}

const roots = ['main.rlx'];

describe('row.NAME in reward terms', () => {
  test('fields of the dataset\'s rows: text in verifiers (a number too), numbers and true/false in arithmetic', () => {
    expectClean(spec('  term a = exact(completion, row.solution)\n  term b = numeric(last_number(completion), row.answer)\n  term c = 0.1 * row.answer + if(row.ok, 1, 0)'), roots);
  });

  test('a field the rows do not have: at the name, with what they have and did-you-mean', () => {
    expectDiagnostic(spec('  term a = exact(completion, row.⟦soluton⟧)'), 'unknown-field',
      "the rows of ./rows.jsonl (Sums) have no field 'soluton'; their fields are: prompt, target, answer, solution, ok, tags; did you mean 'solution'?", { roots });
  });

  test('a text field in arithmetic, and a list field in a term: at the name', () => {
    expectDiagnostics(spec('  term a = ⟦row.solution⟧ * 2\n  term b = norm(row.⟦tags⟧)'), [
      { code: 'type-mismatch', message: 'text cannot be used in arithmetic; use a verifier such as exact(completion, target)' },
      { code: 'unknown-field', message: /^row\.tags is a list in the first rows of \.\/rows\.jsonl: a reward term reads text, numbers and true\/false; a Python reward function/ },
    ], { roots });
  });

  test('passes() takes a list field as its tests (and a "string" literal); a list elsewhere in the call is still refused', () => {
    expectClean(spec('  term t = passes(completion_code(completion), row.tags)\n  term u = 0.5 * passes(completion, "assert True")'), roots);
    expectDiagnostic(spec('  term t = passes(completion_code(row.⟦tags⟧), row.tags)'), 'unknown-field', /^row\.tags is a list in the first rows of \.\/rows\.jsonl/, { roots });
    expectDiagnostic(spec('  term t = exact(completion, row.⟦tags⟧)'), 'unknown-field', /^row\.tags is a list in the first rows/, { roots });
  });

  test('a generated task has no rows; `row` alone names no field', () => {
    expectDiagnostic(spec('  term a = ⟦row⟧.answer', 'addition(digits: 2)'), 'unknown-field', /^Sums's task addition generates its examples: it has no dataset rows, so no row\.answer/, { roots });
    expectDiagnostic(spec('  term a = ⟦row⟧'), 'type-mismatch', "'row' is the dataset row: name one of its fields, such as row.answer", { roots });
  });
});

describe('python() reward terms', () => {
  test('a function of a file beside the spec, weighted like any term', () => {
    expectClean(spec('  term acc = python("./rewards.py:accuracy")\n  term half = 0.5 * python("./rewards.py:accuracy")'), roots);
  });

  test('its argument: a literal naming a .py file and a function; a missing file; a function the file does not define (a warning)', () => {
    expectDiagnostic(spec('  term a = python(⟦"./rewards.py"⟧)'), 'type-mismatch', 'python(): write the file and the function, such as python("./rewards.py:accuracy")', { roots });
    expectDiagnostic(spec('  term a = python(⟦"./nope.py:accuracy"⟧)'), 'module-not-found', /^cannot find '\.\/nope\.py' \(looked for nope\.py\); python\("\.\.\."\) paths are relative to this file$/, { roots });
    expectDiagnostic(spec('  term a = python(⟦"./rewards.py:acuracy"⟧)'), 'unknown-name', /^\.\/rewards\.py seems to define no function 'acuracy' \(rlx reads its top-level names without running it\); did you mean 'accuracy'\?$/, { roots, severity: 'warning' });
    expectDiagnostic(spec('  term a = python(⟦"../rewards.py:accuracy"⟧)'), 'module-not-found', /is outside the folder of this file/, { roots });
  });

  test('on an env that is not a single-turn text task: at the call', () => {
    const sources = {
      'main.rlx': 'env Pole = CartPole {}\npolicy P = mlp {}\nalgorithm A = PPO {}\nreward R {\n  term a = ⟦python⟧("./rewards.py:accuracy")\n}\nexperiment E {\n  env: Pole\n  policy: P\n  algorithm: A\n  budget: 1k\n  reward: R\n}\n',
      'rewards.py': REWARDS_PY,
    };
    expectDiagnostic(sources, 'unknown-field', "'python' scores the completions of a single-turn text task (TextTask); Pole (CartPole) is not one", { roots });
  });
});
