// The text task layer's per-completion costs: the docs' reward (exact + regex format bonus)
// compiled and evaluated on one completion, the regex verifier on a plain pattern and on a
// catastrophic one at the longest completion max_tokens allows (256 characters), V8's own
// regex on the plain pattern for comparison, and drawing a training example.
//
// Then the transformer of examples/addition-grpo.rlx (2 layers, width 64, 4 heads) on
// addition(2)'s layout (7 prompt tokens + 7 completion slots), at batch 64 and 256: sampling
// with the key/value cache in onnxruntime (what the policy uses; with and without the per-token
// sampling statistics GRPO's rollouts record; and the plain-JS reference step at 64), and the SFT and GRPO training steps (gradients and Adam), in tokens per second,
// each beside the same model in PyTorch measured in the same run when torch is here.
//
// `npm run bench -- text-learning` trains examples/addition-grpo.rlx itself, seeds 1-3 (minutes each):
// the held-out accuracy after the SFT warm-up (A0) and after GRPO, and the wall time of each.
import type { PlanReward } from '../dsl/compile/plan.js';
import { Rng } from '../shared/random.js';
import { compileReward } from '../runtime/rewards/index.js';
import { addition } from '../runtime/text/generated.js';
import { LinearRegex } from '../shared/regex.js';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { planFile } from '../cli/commands/plan.js';
import { buildGrpoLoss } from '../runtime/algorithms/text/policy-gradient-loss.js';
import { buildSftLoss } from '../runtime/algorithms/sft/loss.js';
import { makeTokenModel } from '../runtime/policies/index.js';
import { encodeCompletion, encodePrompts, sequenceWidth, textLayout, trainingRows } from '../runtime/policies/transformer/layout.js';
import { KvSampler } from '../test/helpers/kv-sampler.js';
import { SampledTokenStatistics } from '../runtime/lm/token-statistics.js';
import { Adam, GradientStep } from '../runtime/tensor/index.js';
import { peersMissing, torchTextModel } from './peers.js';
import { linearFloor } from './text-floor.js';
import { taskTokenizer } from '../runtime/text/task.js';
import { readEvents } from '../runtime/run/events.js';
import { train } from '../runtime/train.js';
import { bestMicros, median, report } from './stats.js';

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
  await benchTextModel();
}

/** `ms` against `base`, as a signed percentage. */
const signedPercent = (ms: number, base: number) => `${ms >= base ? '+' : ''}${((100 * (ms - base)) / base).toFixed(1)}%`;

const EXAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples/addition-grpo.rlx');
const TINY = { layers: 2, width: 64, heads: 4, context: 32 };

/** Batches the issue asks figures for. */
const BATCHES = [64, 256];

/**
 * Sampling and training throughput of the example's transformer, at batch 64 and 256: rlx's
 * (onnxruntime step with the key/value cache; gradient step plus Adam) and, interleaved in the
 * same run, the same model in PyTorch (bench/peers/text_gpt.py, eager, CPU) when python3 with
 * torch is here: both on one thread, and the training step also both on two threads (the
 * trainer's default on two cores or more, tensor/compute.ts).
 */
export async function benchTextModel(): Promise<void> {
  const task = addition(2);
  const tokenizer = taskTokenizer(task);
  const model = makeTokenModel({ kind: 'transformer', name: 'Tiny', params: TINY }, tokenizer, new Rng(1));
  const layout = textLayout(task.maxPromptLength, 6);
  const { promptWidth: W, completionSlots: N } = layout;
  const T = sequenceWidth(layout);
  const rng = new Rng(2);
  const js = new KvSampler(model.weights, { ...TINY, vocab: tokenizer.size });
  const grpo = buildGrpoLoss(model, T);
  const grpoStep = await GradientStep.create(grpo.graph, [{ loss: grpo.loss, weights: model.weights.names }], { weights: model.weights, compute: { providers: ['cpu'] } });
  const sft = buildSftLoss(model, T);
  const sftStep = await GradientStep.create(sft.graph, [{ loss: sft.loss, weights: model.weights.names }], { weights: model.weights, compute: { providers: ['cpu'] } });
  // The trainer's default on two cores or more: each op of the step split across two threads (tensor/compute.ts).
  const twoThreads = os.availableParallelism() >= 2;
  const sftStep2 = twoThreads ? await GradientStep.create(sft.graph, [{ loss: sft.loss, weights: model.weights.names }], { weights: model.weights, compute: { providers: ['cpu'], opThreads: 2 }, largeOps: true }) : null;
  const adam = new Adam(model.weights, { eps: 1e-8 });
  const size = { layers: TINY.layers, width: TINY.width, vocab: tokenizer.size };
  const [sampleFloor, trainFloor] = await Promise.all([linearFloor(size, false), linearFloor(size, true)]);
  const peers = peersMissing();
  const rowsOut: [string, string][] = [];
  const perSecond = (count: number, ms: number) => `${ms.toFixed(1)} ms, ${Math.round((count / ms) * 1000).toLocaleString('en')} tokens/s`;
  for (const rows of BATCHES) {
    const examples = Array.from({ length: rows }, () => task.sample(rng));
    const prompts = encodePrompts(tokenizer, examples.map((e) => e.prompt), layout);
    const positions = rows * (W + N - 1);
    const options = { temperature: 1, greedy: false, rng };
    // An untrained model rarely writes <eos>: every row runs all slots, as the figures assume.
    const ortMs = median(await timeAsync(() => model.generate(prompts, rows, W, N, options), 10));
    // The same with each token's sampling statistics recorded (what GRPO's rollouts do: lm/token-statistics.ts),
    // alternating with plain runs so that load falls on both alike; two plain series bound the noise.
    const withStats = () => model.generate(prompts, rows, W, N, { ...options, statistics: new SampledTokenStatistics(rows, N) });
    const plainRun = () => model.generate(prompts, rows, W, N, options);
    const series: [number[], number[], number[]] = [[], [], []];
    for (let i = 0; i < 10; i++) {
      for (const [k, run] of [plainRun, withStats, plainRun].entries()) series[k]!.push(...await timeAsync(run, 1));
    }
    const [plainMs, statsMs, ortAgainMs] = series.map(median) as [number, number, number];
    const completions = new Int32Array(rows * N);
    examples.forEach((e, r) => completions.set(encodeCompletion(tokenizer, e.target, layout, e.prompt), r * N));
    const batch = trainingRows(prompts, completions, rows, layout);
    const tokenFeeds = { tokens: { data: batch.tokens, dims: [rows, T] }, targets: { data: batch.targets, dims: [rows, T] }, mask: { data: batch.mask, dims: [rows, T] } };
    const sftMsOf = async (step: GradientStep) => median(await timeAsync(async () => {
      const out = await step.run({ ...tokenFeeds, inv_tokens: new Float32Array([1 / batch.tokenCount]) });
      adam.step(out.grads, 1e-4);
    }, 10));
    const sftMs = await sftMsOf(sftStep);
    const sft2Ms = sftStep2 === null ? NaN : await sftMsOf(sftStep2);
    const grpoFeeds = grpoBenchFeeds(batch, rows, T);
    const grpoMs = median(await timeAsync(async () => {
      const out = await grpoStep.run(grpoFeeds);
      adam.step(out.grads, 1e-4);
    }, 10));
    // The floors: one product run per decoding position; one over every position of the rows.
    const sampleFloorMs = median(await timeAsync(async () => {
      for (let t = 0; t < W + N - 1; t++) await sampleFloor.run(rows);
    }, 10));
    const trainFloorMs = median(await timeAsync(() => trainFloor.run(rows * T), 10));
    rowsOut.push(
      [`batch ${rows}: sample ${rows} x ${W + N - 1} positions, onnxruntime step`, perSecond(positions, ortMs)],
      [`batch ${rows}: the same, recording token statistics`, `${perSecond(positions, statsMs)}; ${signedPercent(statsMs, (plainMs + ortAgainMs) / 2)} (two plain series, interleaved: ${signedPercent(ortAgainMs, plainMs)})`],
      [`batch ${rows}: SFT step + Adam, ${rows} x ${T}`, perSecond(rows * T, sftMs)],
      ...(sftStep2 ? [[`batch ${rows}: SFT step + Adam, two threads per op`, perSecond(rows * T, sft2Ms)] as [string, string]] : []),
      [`batch ${rows}: GRPO step + Adam, ${rows} x ${T}`, perSecond(rows * T, grpoMs)],
      [`batch ${rows}: floor, linear layers' products alone`, `sample ${sampleFloorMs.toFixed(1)} ms, training step ${trainFloorMs.toFixed(1)} ms`],
    );
    if (rows === 64) {
      const jsMs = median(await timeAsync(() => js.generate(prompts, rows, W, N, options), 3));
      rowsOut.push([`batch ${rows}: sample, the JS reference step`, perSecond(positions, jsMs)]);
    }
    if (peers === null) {
      // Interleaved: PyTorch right after ours at the same batch, so both see the same machine load.
      const torch = await torchTextModel({ ...TINY, vocab: tokenizer.size }, rows, W, N, 5);
      rowsOut.push(
        [`batch ${rows}: PyTorch sample (eager, KV cache)`, `${perSecond(positions, torch.sampleMs)}; rlx ${(torch.sampleMs / ortMs).toFixed(1)}x`],
        [`batch ${rows}: PyTorch training step + Adam`, `${perSecond(rows * T, torch.trainMs)}; rlx SFT ${(torch.trainMs / sftMs).toFixed(1)}x`],
        // Issue 15's target, against what the products alone cost here: below the floor, unreachable.
        [`batch ${rows}: 3x PyTorch would take`, `sample ${(torch.sampleMs / 3).toFixed(1)} ms (floor ${sampleFloorMs.toFixed(1)}), training step ${(torch.trainMs / 3).toFixed(1)} ms (floor ${trainFloorMs.toFixed(1)})`],
      );
      if (sftStep2) {
        // Both on two threads: what a user of either gets on a machine with cores to spare.
        const torch2 = await torchTextModel({ ...TINY, vocab: tokenizer.size }, rows, W, N, 5, 2);
        rowsOut.push([`batch ${rows}: PyTorch training step + Adam, two threads`, `${perSecond(rows * T, torch2.trainMs)}; rlx SFT ${(torch2.trainMs / sft2Ms).toFixed(1)}x`]);
      }
    }
  }
  await Promise.all([sftStep.release(), sftStep2?.release(), grpoStep.release(), model.release(), sampleFloor.release(), trainFloor.release()]);
  if (peers !== null) rowsOut.push(['PyTorch comparison', `skipped: ${peers}`]);
  report(`transformer ${TINY.layers}x${TINY.width} (${TINY.heads} heads), addition(2), ${os.cpus().length} CPU(s)`, rowsOut);
}

/** A GRPO step's feeds for `batch` (rows x T tokens): advantage 1 each, old and reference log-probs 0. */
export function grpoBenchFeeds(batch: { tokens: BigInt64Array; targets: BigInt64Array; mask: Float32Array; tokenCount: number }, rows: number, T: number) {
  const zeros = new Float32Array(rows * T);
  const scalar = (x: number) => new Float32Array([x]);
  return {
    tokens: { data: batch.tokens, dims: [rows, T] },
    targets: { data: batch.targets, dims: [rows, T] },
    mask: { data: batch.mask, dims: [rows, T] },
    advantages: { data: new Float32Array(rows * T).fill(1), dims: [rows, T] },
    old_logp: { data: zeros, dims: [rows, T] },
    ref_logp: { data: zeros, dims: [rows, T] },
    token_weight: { data: batch.mask, dims: [rows, T] },
    inv_tokens: scalar(1 / batch.tokenCount),
    ratio_low: scalar(0.8),
    ratio_high: scalar(1.2),
    kl_coef: scalar(0.04),
    ent_coef: scalar(0),
    inv_temperature: scalar(1),
  };
}

async function timeAsync(fn: () => Promise<unknown>, runs: number): Promise<number[]> {
  for (let i = 0; i < 2; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    out.push(performance.now() - start);
  }
  return out;
}

/**
 * Trains examples/addition-grpo.rlx once per seed (1, 2 and 3; `npm run bench -- text-learning
 * --seeds 1` for fewer): held-out accuracy after the warm-up (A0) and at the end, the wall time of
 * each stage and of the whole run, and the load average around it (the machine may be shared).
 */
export async function benchTextLearning(): Promise<void> {
  const [plan] = planFile(EXAMPLE);
  const [first, last] = [plan.stages[0]!.name, plan.stages.at(-1)!.name];
  const pct = (x: number | undefined) => `${(100 * (x ?? NaN)).toFixed(1)}%`;
  const load = () => os.loadavg().map((x) => x.toFixed(1)).join(' ');
  for (const seed of benchSeeds()) {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-bench-'));
    try {
      const loadBefore = load();
      const start = performance.now();
      const result = await train({ ...plan, seeds: [seed] }, { out, device: 'cpu' });
      const seconds = (performance.now() - start) / 1000;
      const events = readEvents(path.join(result.runDir, 'events.jsonl'));
      const evals = events.filter((e) => e.type === 'eval');
      const at = (stage: string) => evals.filter((e) => e.stage === stage).at(-1);
      const stageStart = (stage: string) => events.find((e) => e.type === 'hparams' && e.stage === stage)!.time;
      const end = events.at(-1)!.time;
      report(`examples/addition-grpo.rlx on ${os.cpus().length} CPU(s), seed ${seed}: held-out exact match (${at(last)?.returns.length ?? 0} prompts)`, [
        [`after ${first} (A0)`, `${pct(at(first)?.values['eval/accuracy'])} at step ${at(first)?.step}, ${(stageStart(last) - stageStart(first)).toFixed(1)} s`],
        [`after ${last}`, `${pct(at(last)?.values['eval/accuracy'])} at step ${at(last)?.step}, ${(end - stageStart(last)).toFixed(1)} s`],
        ['whole run', `${seconds.toFixed(1)} s`],
        ['load average (1, 5, 15 min)', `${loadBefore} before, ${load()} after`],
      ]);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  }
}

/** The seeds after `--seeds` (`1,2`), else 1, 2 and 3. */
function benchSeeds(): number[] {
  const i = process.argv.indexOf('--seeds');
  const seeds = i < 0 ? [1, 2, 3] : (process.argv[i + 1] ?? '').split(',').map(Number);
  if (seeds.length === 0 || !seeds.every((x) => Number.isSafeInteger(x) && x >= 0)) throw new Error('text-learning: --seeds takes whole numbers separated by commas, e.g. --seeds 1,2,3');
  return seeds;
}
