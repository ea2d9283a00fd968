// The checker on GRPO's DAPO sample filters: a setting that would do nothing is warned at, and
// overlong shaping on a dialogue env is refused (dsl/check/sample-filters.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { check, expectDiagnostics, type Expected } from '../../helpers/source.js';

/** The one diagnostic the source marks. */
const expectOne = (source: string, expected: Expected) => expectDiagnostics(source, [{ severity: 'warning', ...expected }]);

const PRELUDE = 'env Arith = TextTask { task: addition(digits: 2) }\npolicy Tiny = transformer { layers: 2 }\n';

test('max_sampling_rounds without dynamic_sampling: a warning at the setting', () => {
  expectOne('algorithm G = GRPO { max_sampling_rounds: ⟦5⟧ }\n', {
    code: 'suspicious-value', severity: 'warning',
    message: 'max_sampling_rounds has no effect without dynamic_sampling: true; set dynamic_sampling: true, or remove max_sampling_rounds',
  });
  expectOne('algorithm G = GRPO { dynamic_sampling: false, max_sampling_rounds: ⟦5⟧ }\n', { code: 'suspicious-value', message: /^max_sampling_rounds has no effect/ });
});

test('overlong_buffer without overlong: penalize, or as long as max_new_tokens: a warning at the buffer', () => {
  expectOne('algorithm G = GRPO { overlong: drop, overlong_buffer: ⟦3⟧ }\n', {
    code: 'suspicious-value', severity: 'warning',
    message: 'overlong_buffer has no effect with overlong: drop: only the penalty uses it; set overlong: penalize, or remove overlong_buffer',
  });
  expectOne('algorithm G = GRPO { overlong_buffer: ⟦3⟧ }\n', { code: 'suspicious-value', message: /^overlong_buffer has no effect with overlong: keep/ });
  expectOne('algorithm G = GRPO { overlong: penalize, max_new_tokens: 4, overlong_buffer: ⟦4⟧ }\n', {
    code: 'suspicious-value', message: /^overlong_buffer \(4\) is not below max_new_tokens \(4\): every completion is penalised/,
  });
  expectOne('algorithm G = GRPO { overlong: penalize, overlong_buffer: ⟦8⟧ }\n', { code: 'suspicious-value', message: /max_new_tokens \(8\)/ });
});

test('the DAPO settings where they act: no warning', () => {
  const checked = check('algorithm G = GRPO { dynamic_sampling: true, max_sampling_rounds: 5, overlong: penalize, overlong_buffer: 2 }\nalgorithm H = GRPO { overlong: drop }\n');
  assert.deepEqual(checked.all.filter((d) => d.code === 'suspicious-value'), []);
});

test('overlong drop or penalize with a dialogue env: an error at the setting, in the algorithm or the stage', () => {
  expectOne(`${PRELUDE}algorithm G = GRPO { overlong: ⟦penalize⟧ }\nexperiment E { env: GuessNumber, policy: Tiny, algorithm: G, budget: 1k }\n`, {
    code: 'incompatible-env', severity: 'error',
    message: 'overlong: penalize needs a single-turn text task (TextTask), but GuessNumber is a dialogue (experiment E): its agent turns are each cut at their own limit; use overlong: keep',
  });
  expectOne(`${PRELUDE}experiment E {\n  env: GuessNumber\n  policy: Tiny\n  stage main = GRPO { budget: 1k, overlong: ⟦drop⟧ }\n}\n`, { code: 'incompatible-env', severity: 'error', message: /^overlong: drop needs a single-turn text task/ });
  const fine = check(`${PRELUDE}algorithm G = GRPO { overlong: drop }\nexperiment E { env: Arith, policy: Tiny, algorithm: G, budget: 1k }\nexperiment D { env: GuessNumber, policy: Tiny, algorithm: GRPO, budget: 1k }\n`);
  assert.deepEqual(fine.all.filter((d) => d.severity === 'error'), []);
});
