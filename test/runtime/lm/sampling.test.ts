// The sampling controls (lm/sampling.ts) against transformers' logits processors written out
// plainly here (a full sort, no shortcuts): many draws from a small fixed logit vector must fit
// the reference distribution (Pearson's chi-square), never land outside its support, and with
// no control set the draws must be draw()'s, bit for bit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { choose, draw, StopStrings, type SamplingControls } from '../../../runtime/lm/sampling.js';
import { Rng } from '../../../shared/random.js';

const LOGITS = Float32Array.of(2.0, 1.5, 1.5, 0.7, 0.0, -0.4, -1.2, -3.0, 0.9, 1.1);
const V = LOGITS.length;

/** transformers' processors in generate()'s order, as probabilities over the vocabulary. */
function reference(logits: Float32Array, temperature: number, c: SamplingControls, seen: readonly number[]): number[] {
  let s = [...logits];
  if (c.repetitionPenalty !== undefined) for (const id of new Set(seen)) s[id] = s[id]! < 0 ? s[id]! * c.repetitionPenalty : s[id]! / c.repetitionPenalty;
  s = s.map((x) => x / temperature);
  if (c.topK !== undefined) {
    const kth = [...s].sort((a, b) => b - a)[Math.min(c.topK, V) - 1]!;
    s = s.map((x) => (x < kth ? -Infinity : x));
  }
  const softmax = (xs: number[]) => {
    const m = Math.max(...xs);
    const e = xs.map((x) => Math.exp(x - m));
    const z = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / z);
  };
  if (c.topP !== undefined) {
    const p = softmax(s);
    // Ascending (ties: the higher id first, so the lower id stays); remove while the mass so far <= 1 - top_p; keep the last.
    const order = [...s.keys()].sort((a, b) => s[a]! - s[b]! || b - a);
    let mass = 0;
    order.forEach((id, i) => {
      mass += p[id]!;
      if (mass <= 1 - c.topP! && i < order.length - 1) s[id] = -Infinity;
    });
  }
  if (c.minP !== undefined) {
    const p = softmax(s);
    const top = Math.max(...p);
    s = s.map((x, i) => (p[i]! < c.minP! * top ? -Infinity : x));
  }
  return softmax(s);
}

/** Pearson's statistic of `counts` against `probs` over the ids of positive probability, and its degrees of freedom. */
function chiSquare(counts: number[], probs: number[], n: number): { statistic: number; df: number; outside: number } {
  let statistic = 0;
  let df = -1;
  let outside = 0;
  probs.forEach((p, id) => {
    if (p === 0) {
      outside += counts[id]!;
      return;
    }
    df++;
    statistic += (counts[id]! - n * p) ** 2 / (n * p);
  });
  return { statistic, df, outside };
}

/** chi-square critical values at p = 0.001, by degrees of freedom. */
const CRITICAL = [Infinity, 10.83, 13.82, 16.27, 18.47, 20.52, 22.46, 24.32, 26.12, 27.88];

function drawMany(controls: SamplingControls, temperature: number, seen: readonly number[], n: number, seed: number): number[] {
  const rng = new Rng(seed);
  const counts = new Array<number>(V).fill(0);
  for (let i = 0; i < n; i++) counts[choose(LOGITS, 0, V, false, temperature, rng, controls, () => seen)]!++;
  return counts;
}

const CASES: { name: string; controls: SamplingControls; temperature: number; seen?: number[] }[] = [
  { name: 'top_k 3 (the tie at the 2nd and 3rd kept)', controls: { topK: 3 }, temperature: 1 },
  { name: 'top_k 2 with a tie at the 2nd: both kept', controls: { topK: 2 }, temperature: 1 },
  { name: 'top_p 0.8', controls: { topP: 0.8 }, temperature: 1 },
  { name: 'top_p 0.5 at temperature 0.7', controls: { topP: 0.5 }, temperature: 0.7 },
  { name: 'min_p 0.2', controls: { minP: 0.2 }, temperature: 1 },
  { name: 'min_p 0.3 at temperature 1.5', controls: { minP: 0.3 }, temperature: 1.5 },
  { name: 'repetition_penalty 1.8 over a positive and a negative logit', controls: { repetitionPenalty: 1.8 }, temperature: 1, seen: [0, 0, 6, 3] },
  { name: 'all together', controls: { repetitionPenalty: 1.3, topK: 6, topP: 0.9, minP: 0.1 }, temperature: 0.9, seen: [1, 5] },
];

for (const c of CASES) {
  test(`sampling with ${c.name} fits transformers' distribution (chi-square, 40,000 draws)`, () => {
    const n = 40_000;
    const probs = reference(LOGITS, c.temperature, c.controls, c.seen ?? []);
    const counts = drawMany(c.controls, c.temperature, c.seen ?? [], n, 7);
    const { statistic, df, outside } = chiSquare(counts, probs, n);
    assert.equal(outside, 0, `draws outside the kept tokens: ${counts.join(',')} against ${probs.map((p) => p.toFixed(3)).join(',')}`);
    assert.ok(df >= 1 && df < V, `the case keeps ${df + 1} tokens`);
    assert.ok(statistic < CRITICAL[df]!, `chi-square ${statistic.toFixed(2)} over ${df} degrees of freedom (critical ${CRITICAL[df]}): ${counts.join(',')} against ${probs.map((p) => p.toFixed(4)).join(',')}`);
  });
}

test('the reference itself narrows: each case removes tokens the plain softmax keeps', () => {
  for (const c of CASES) {
    const probs = reference(LOGITS, c.temperature, c.controls, c.seen ?? []);
    const plain = reference(LOGITS, c.temperature, {}, []);
    assert.ok(probs.some((p, i) => Math.abs(p - plain[i]!) > 0.01), c.name);
  }
});

test('with no control set, or each at its neutral value, the tokens are draw()\'s bit for bit', () => {
  for (const controls of [undefined, {}, { topP: 1, minP: 0, repetitionPenalty: 1 }, { stop: ['x'] }] as (SamplingControls | undefined)[]) {
    const a = new Rng(11);
    const b = new Rng(11);
    for (let i = 0; i < 2000; i++) {
      const offset = (i % 3) * 0; // one row
      assert.equal(choose(LOGITS, offset, V, false, 0.8, a, controls, () => [0, 1, 2]), draw(LOGITS, offset, V, 0.8, b), JSON.stringify(controls));
    }
    assert.equal(a.uniform(), b.uniform(), 'the same uniforms were taken');
  }
});

test('greedy takes the most likely token after the repetition penalty, and ignores the truncating controls', () => {
  assert.equal(choose(LOGITS, 0, V, true, 1, undefined, { topK: 1, topP: 0.1 }, () => []), 0);
  // 2.0 / 1.5 = 1.33 < 1.5: the seen token 0 loses to token 1 (ties: the lowest id).
  assert.equal(choose(LOGITS, 0, V, true, 1, undefined, { repetitionPenalty: 1.5 }, () => [0]), 1);
});

test('top_k at or above the vocabulary, and top_p that keeps one token', () => {
  const counts = drawMany({ topK: 50 }, 1, [], 20_000, 3);
  const { statistic, df } = chiSquare(counts, reference(LOGITS, 1, {}, []), 20_000);
  assert.ok(statistic < CRITICAL[df]!, `chi-square ${statistic}`);
  assert.deepEqual(drawMany({ topP: 0.05 }, 1, [], 500, 5), [500, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
});

test('stop strings: a completion ends when the text of its last tokens contains one', () => {
  const text = ['He', 'llo', ' wor', 'ld', '!'];
  const stops = new StopStrings(['world'], (ids) => ids.map((i) => text[i]).join(''));
  assert.equal(stops.ended([0, 1, 2]), false);
  assert.equal(stops.ended([0, 1, 2, 3]), true, 'the string spans two tokens');
  assert.equal(new StopStrings([], () => '').ended([1]), false);
  assert.throws(() => new StopStrings([''], () => ''), /empty/);
});

test('top_p over a vocabulary where many tokens share a weight band keeps transformers\' set (ties: the lower ids)', () => {
  // 250 tokens tied at 0 and 50 spread above: the nucleus boundary falls among the ties.
  const logits = Float32Array.from({ length: 300 }, (_, i) => (i < 250 ? 0 : 0.5 + (i - 250) * 0.01));
  for (const topP of [0.3, 0.6, 0.85]) {
    const probs = reference(logits, 1, { topP }, []);
    const rng = new Rng(9);
    const seen = new Set<number>();
    for (let i = 0; i < 60_000; i++) seen.add(choose(logits, 0, 300, false, 1, rng, { topP }, () => []));
    const support = new Set(probs.flatMap((p, id) => (p > 0 ? [id] : [])));
    for (const id of seen) assert.ok(support.has(id), `top_p ${topP}: drew ${id}, outside transformers' ${support.size} tokens`);
    assert.equal(seen.size, support.size, `top_p ${topP}: drew ${seen.size} distinct tokens of transformers' ${support.size}`);
  }
});
