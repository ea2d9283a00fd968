// The text task layer's per-completion costs: the docs' reward (exact + regex format bonus)
// compiled and evaluated on one completion, the regex verifier on a plain pattern and on a
// catastrophic one at the longest completion max_tokens allows (256 characters), V8's own
// regex on the plain pattern for comparison, and drawing a training example.
import type { PlanReward } from '../dsl/compile/plan.js';
import { Rng } from '../runtime/random.js';
import { compileReward } from '../runtime/rewards/index.js';
import { addition } from '../runtime/text/generated.js';
import { LinearRegex } from '../runtime/text/regex.js';
import { bestMicros, report } from './stats.js';

export async function benchText(): Promise<void> {
  const reward: PlanReward = {
    name: 'Correct',
    replace_env_reward: true,
    terms: [
      { name: 'answer', expr: { call: 'exact', args: [{ ref: 'completion' }, { ref: 'target' }] } },
      { name: 'format', expr: { op: '*', args: [{ const: 0.1 }, { call: 'regex', args: [{ ref: 'completion' }, { const: '^[0-9]+$' }] }] } },
    ],
  };
  const compiled = compileReward(reward, { kind: 'TextTask', obsFields: [], actionSpace: { kind: 'discrete', n: 1 }, text: true });
  Object.assign(compiled.context, { prompt: '12+34=', target: '46', completion: '46' });

  const digits = LinearRegex.compile('^[0-9]+$');
  const nativeDigits = /^[0-9]+$/u;
  const catastrophic = LinearRegex.compile('^(a+)+$');
  const long = 'a'.repeat(255) + '!';
  const task = addition(2);
  const rng = new Rng(1);

  const us = (x: number) => `${x.toFixed(3)} us`;
  report('text (per completion)', [
    ['reward exact + regex, "46"', us(await bestMicros(() => compiled.evaluate(), 20_000))],
    ['regex ^[0-9]+$ on 8 chars', us(await bestMicros(() => digits.test('12345678'), 20_000))],
    ['  V8 /^[0-9]+$/u, same', us(await bestMicros(() => nativeDigits.test('12345678'), 20_000))],
    ['regex ^(a+)+$ on 256 chars', us(await bestMicros(() => catastrophic.test(long), 200))],
    ['addition(2).sample', us(await bestMicros(() => task.sample(rng), 20_000))],
  ]);
}
