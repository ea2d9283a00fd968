// pi_old's and pi_ref's log-probability passes (runtime/algorithms/text/log-prob-sessions.ts)
// follow precision fp16 on a GPU and stay float32 on the CPU. Written in fp16 they give
// fp32's log-probabilities within float16's tolerance (the `transformer` policy and each tiny
// Hugging Face checkpoint of test/fixtures/hf-tiny, on the CPU provider always and on webgpu where
// it starts: lavapipe in CI); on webgpu they leave no node to the CPU, pi_ref's LoRA base is baked
// in half the bytes, and the fp16 gradient step's first ratio pi / pi_old stays 1; a GRPO run in
// fp16 on webgpu trains.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { before, describe, it, test } from 'node:test';

import { ReferencePolicy, logProbPrecision, logProbSession } from '../../../../runtime/algorithms/text/log-prob-sessions.js';
import { buildGrpoLoss } from '../../../../runtime/algorithms/text/policy-gradient-loss.js';
import { leftPad } from '../../../../runtime/lm/rows.js';
import { graphWeights, makeTokenModel, type LanguageModel } from '../../../../runtime/policies/index.js';
import { PretrainedPolicy } from '../../../../runtime/policies/pretrained.js';
import { readEvents } from '../../../../runtime/run/events.js';
import { GradientStep, type Compute, type Dim, type Feed, type Precision, type Session } from '../../../../runtime/tensor/index.js';
import { ModelProto } from '../../../../runtime/tensor/onnx-schema.js';
import { parsePlacements, summarize } from '../../../../runtime/tensor/placement.js';
import type { ExecutionProvider } from '../../../../runtime/tensor/session.js';
import { addition } from '../../../../runtime/text/generated.js';
import { taskTokenizer } from '../../../../runtime/text/task.js';
import { train } from '../../../../runtime/train.js';
import { Rng } from '../../../../shared/random.js';
import { HF_TINY } from '../../../helpers/pretrained.js';
import { webgpuOrSkip } from '../../../helpers/webgpu.js';
import { makePlan, startsWithOneGrpoPlan, tempDir } from '../../helpers.js';

const FLOAT16 = 10;

/** The tolerances this file states: float16 keeps 11 bits, and a pass rounds many times. */
const TOKEN_TOLERANCE = 2e-2; // |log pi_fp16 - log pi_fp32| per token
const SEQUENCE_TOLERANCE = 1e-3; // |sum_fp16 - sum_fp32| / |sum_fp32| over a row's tokens

/** A model and a batch of token rows for its log-probability pass; `mask` marks the positions compared (not left padding). */
interface Case {
  readonly label: string;
  readonly model: LanguageModel;
  readonly T: Dim;
  readonly rows: number;
  readonly width: number;
  readonly feeds: Readonly<Record<string, Feed>>;
  readonly mask: Float32Array;
}

/** The `transformer` policy, 2 x 32 with 4 heads, on 8 rows of 16 random characters of the task. */
function transformerCase(): Case {
  const tokenizer = taskTokenizer(addition(2));
  const model = makeTokenModel({ kind: 'transformer', name: 'Tiny', params: { layers: 2, width: 32, heads: 4, context: 16 } }, tokenizer, new Rng(1));
  const [rows, width] = [8, 16];
  // Characters of the task (the model never predicts its padding: a target of it would have log-probability -1e9).
  const characters = tokenizer.encode(tokenizer.alphabet);
  const random = new Rng(7);
  const ids = () => BigInt64Array.from({ length: rows * width }, () => BigInt(characters[random.int(characters.length)]!));
  return { label: 'transformer', model, T: width, rows, width, feeds: { tokens: { data: ids(), dims: [rows, width] }, targets: { data: ids(), dims: [rows, width] } }, mask: new Float32Array(rows * width).fill(1) };
}

/** A tiny Hugging Face checkpoint (in full, or LoRA on q and v with non-zero adapters) on 2 rows of 12 random ids, one left-padded by 3. */
function pretrainedCase(family: string, lora = false): Case {
  const model = PretrainedPolicy.load({ folder: path.join(HF_TINY, family), ...(lora ? { lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] } } : {}) }, new Rng(3));
  if (lora) {
    // A fresh adapter's B is 0: move every adapter so that it counts in the pass.
    const random = new Rng(9);
    for (const name of model.weights.names) model.weights.get(name).data.forEach((x, i, w) => (w[i] = x + 0.05 * (random.uniform() - 0.5)));
  }
  const [rows, width] = [2, 12];
  const random = new Rng(5);
  const ids = () => BigInt64Array.from({ length: rows * width }, () => BigInt(random.int(model.lm.config.vocab)));
  const { starts } = leftPad([Array.from({ length: width }, () => 1), Array.from({ length: width - 3 }, () => 1)], 0);
  const mask = Float32Array.from({ length: rows * width }, (_, i) => (i % width >= starts[Math.floor(i / width)]! ? 1 : 0));
  const feeds = { tokens: { data: ids(), dims: [rows, width] }, targets: { data: ids(), dims: [rows, width] }, ...model.rowFeeds(starts, width) };
  return { label: lora ? `${family} LoRA` : family, model, T: 'T', rows, width, feeds, mask };
}

const CASES: readonly (() => Case)[] = [transformerCase, () => pretrainedCase('qwen2'), () => pretrainedCase('llama'), () => pretrainedCase('gpt2'), () => pretrainedCase('qwen2', true)];

const computeOf = (provider: ExecutionProvider, precision: Precision): Compute => ({ providers: [provider], threads: false, precision });

/** log pi(target) of the case's batch through logProbSession, and the bytes of the model it wrote. */
async function logProbs(c: Case, compute: Compute, precision?: Precision): Promise<{ readonly logp: Float32Array; readonly bytes: number }> {
  const session = await logProbSession(c.model, c.T, graphWeights(c.model), compute, precision);
  try {
    return { logp: (await session.run({ ...c.feeds, inv_temperature: new Float32Array([1]) })).logp!, bytes: session.model.bytes.length };
  } finally {
    await session.release();
  }
}

/** The worst per-token absolute error of `half` against `full`, and the worst relative error of a row's sum. */
function agreement(c: Case, half: Float32Array, full: Float32Array): { readonly token: number; readonly sequence: number } {
  let token = 0;
  let sequence = 0;
  for (let b = 0; b < c.rows; b++) {
    let [sumHalf, sumFull] = [0, 0];
    for (let t = 0; t < c.width; t++) {
      const i = b * c.width + t;
      if (c.mask[i] === 0) continue;
      token = Math.max(token, Math.abs(half[i]! - full[i]!));
      sumHalf += half[i]!;
      sumFull += full[i]!;
    }
    sequence = Math.max(sequence, Math.abs(sumHalf - sumFull) / Math.abs(sumFull));
  }
  return { token, sequence };
}

/** The pass in fp16 (on the CPU provider: asked for, as logProbSession does not choose it there) against fp32. */
async function assertAgreement(c: Case, provider: ExecutionProvider): Promise<void> {
  const compute = computeOf(provider, 'fp16');
  const half = await logProbs(c, compute, provider === 'cpu' ? 'fp16' : undefined);
  const full = await logProbs(c, compute, 'fp32');
  const { token, sequence } = agreement(c, half.logp, full.logp);
  assert.ok(token <= TOKEN_TOLERANCE, `${c.label} on ${provider}: a token's log-probability is ${token.toExponential(2)} off fp32's (tolerance ${TOKEN_TOLERANCE})`);
  assert.ok(sequence <= SEQUENCE_TOLERANCE, `${c.label} on ${provider}: a row's summed log-probability is ${sequence.toExponential(2)} off fp32's, relative (tolerance ${SEQUENCE_TOLERANCE})`);
  // The products really ran on float16 casts: the passes differ.
  assert.ok(token > 0, `${c.label} on ${provider}: the fp16 pass gave fp32's log-probabilities exactly`);
  console.log(`# ${c.label} on ${provider}: fp16 pass against fp32: worst token ${token.toExponential(2)}, worst row sum ${sequence.toExponential(2)} relative`);
}

const floatSixteenNodes = (bytes: Uint8Array): number =>
  (ModelProto.decode(bytes) as unknown as { graph: { node: { op_type: string; attribute: { name: string; i?: unknown }[] }[] } }).graph.node.filter((n) => n.op_type === 'Cast' && Number(n.attribute.find((a) => a.name === 'to')?.i) === FLOAT16).length;

test('the log-prob passes follow precision fp16 on a GPU only: on the CPU an fp16 experiment writes them in float32', async () => {
  assert.equal(logProbPrecision(computeOf('webgpu', 'fp16')), 'fp16');
  assert.equal(logProbPrecision(computeOf('cuda', 'fp16')), 'fp16');
  assert.equal(logProbPrecision(computeOf('cpu', 'fp16')), 'fp32', "the CPU provider computes float16 products in float32: fp16 would only add casts");
  assert.equal(logProbPrecision({ providers: ['webgpu'] }), 'fp32');
  const c = transformerCase();
  const session = await logProbSession(c.model, c.T, graphWeights(c.model), computeOf('cpu', 'fp16'));
  assert.equal(floatSixteenNodes(session.model.bytes), 0, 'no float16 cast in the CPU pass');
  await session.release();
});

describe(`the fp16 log-prob pass agrees with fp32's (each token within ${TOKEN_TOLERANCE}, a row's sum within ${SEQUENCE_TOLERANCE} relative)`, () => {
  let skip: string | false = false;
  before(async () => {
    skip = await webgpuOrSkip();
  });

  for (const make of CASES) {
    const c = make();
    it(`${c.label}, on the cpu provider and on webgpu`, async (t) => {
      await assertAgreement(c, 'cpu');
      if (skip) return t.skip(skip);
      await assertAgreement(c, 'webgpu');
    });
  }
});

/** The step's ratio against the pass's log-probabilities at the first minibatch: the clip fraction at clip 0.2 and the RMS of log(pi / pi_old). */
async function firstRatio(c: Case, provider: ExecutionProvider, oldLogp: Float32Array): Promise<{ readonly clipFraction: number; readonly rmsLogRatio: number }> {
  // ref_logp = old_logp with the k2 estimator: the `kl` metric is the mean of (log pi - log pi_old)^2 / 2.
  const grpo = buildGrpoLoss(c.model, c.T, { oldFed: true, referenceFed: true, klEstimator: 'k2' });
  const step = await GradientStep.create(grpo.graph, [{ loss: grpo.loss, weights: c.model.weights.names, metrics: grpo.metrics }], { weights: c.model.weights, fed: c.model.frozenWeights, compute: computeOf(provider, 'fp16'), largeOps: true });
  const dims = [c.rows, c.width];
  const tokens = c.mask.reduce((a, b) => a + b, 0);
  const scalar = (x: number) => new Float32Array([x]);
  const run = (advantage: number) =>
    step.run({
      ...c.feeds, inv_temperature: scalar(1), mask: { data: c.mask, dims }, advantages: { data: new Float32Array(c.rows * c.width).fill(advantage), dims },
      old_logp: { data: oldLogp, dims }, ref_logp: { data: oldLogp, dims }, token_weight: { data: new Float32Array(c.rows * c.width).fill(1 / tokens), dims },
      inv_tokens: scalar(1 / tokens), ratio_low: scalar(0.8), ratio_high: scalar(1.2), kl_coef: scalar(0), ent_coef: scalar(0),
    });
  try {
    // The clip counts a ratio above the range where A > 0 and below it where A < 0: both signs count both sides.
    const [up, down] = [await run(1), await run(-1)];
    const metric = (name: string, out: typeof up) => out.metrics[step.metricNames.indexOf(name)]!;
    return { clipFraction: metric('clip_fraction', up) + metric('clip_fraction', down), rmsLogRatio: Math.sqrt(2 * metric('kl', up)) };
  } finally {
    await step.release();
  }
}

describe('precision fp16 on webgpu (lavapipe in CI)', () => {
  let skip: string | false = false;
  before(async () => {
    skip = await webgpuOrSkip();
  });

  it("the fp16 gradient step's first ratio pi / pi_old is 1 against the fp16 pass, no clip, closer than against fp32's", async (t) => {
    if (skip) return t.skip(skip);
    for (const c of [transformerCase(), pretrainedCase('qwen2')]) {
      const compute = computeOf('webgpu', 'fp16');
      const [half, full] = [await firstRatio(c, 'webgpu', (await logProbs(c, compute)).logp), await firstRatio(c, 'webgpu', (await logProbs(c, compute, 'fp32')).logp)];
      console.log(`# ${c.label} on webgpu, the fp16 step's first minibatch: RMS log(pi / pi_old) ${half.rmsLogRatio.toExponential(2)} against the fp16 pass, ${full.rmsLogRatio.toExponential(2)} against fp32's; clip fraction ${half.clipFraction}, ${full.clipFraction}`);
      assert.equal(half.clipFraction, 0, `${c.label}: the clip acted at the first minibatch`);
      assert.ok(half.rmsLogRatio <= 1e-3, `${c.label}: RMS log ratio ${half.rmsLogRatio} at the first minibatch`);
      assert.ok(half.rmsLogRatio < full.rmsLogRatio, `${c.label}: pi_old's fp16 pass is no closer to the fp16 step (${half.rmsLogRatio}) than its fp32 pass (${full.rmsLogRatio})`);
    }
  });

  it("pi_ref's pass of a LoRA model bakes the frozen base's product weights as float16", async (t) => {
    if (skip) return t.skip(skip);
    const c = pretrainedCase('qwen2', true);
    const bytes = async (precision: Precision) => {
      const reference = await ReferencePolicy.create(c.model, c.T, computeOf('webgpu', precision));
      const { bytes } = ((await reference.currentSession()) as Session).model;
      await reference.release();
      return bytes.length;
    };
    const [half, full] = [await bytes('fp16'), await bytes('fp32')];
    console.log(`# qwen2 LoRA pi_ref on webgpu: the model ${half} bytes in fp16, ${full} in fp32 (${(half / full).toFixed(2)}; the embedding table stays float32)`);
    assert.ok(half < 0.7 * full, `pi_ref's model is ${half} bytes in fp16 against ${full} in fp32`);
  });

  it("the fp16 pass leaves no node to the CPU: the transformer's, and a qwen2 LoRA model's", async (t) => {
    if (skip) return t.skip(skip);
    // A child process per session, as onnxruntime writes its placement log to stderr from native code.
    const module = (file: string) => JSON.stringify(new URL(file, import.meta.url).href);
    const models = {
      transformer: `makeTokenModel({ kind: 'transformer', name: 'Tiny', params: { layers: 1, width: 32, heads: 2, context: 16 } }, taskTokenizer(addition(2)), new Rng(1))`,
      'qwen2 LoRA': `PretrainedPolicy.load({ folder: ${JSON.stringify(path.join(HF_TINY, 'qwen2'))}, lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] } }, new Rng(3))`,
    };
    const placement = (label: keyof typeof models, precision: Precision) => {
      const script = `
        const { logProbSession } = await import(${module('../../../../runtime/algorithms/text/log-prob-sessions.js')});
        const { graphWeights, makeTokenModel } = await import(${module('../../../../runtime/policies/index.js')});
        const { PretrainedPolicy } = await import(${module('../../../../runtime/policies/pretrained.js')});
        const { addition } = await import(${module('../../../../runtime/text/generated.js')});
        const { taskTokenizer } = await import(${module('../../../../runtime/text/task.js')});
        const { Rng } = await import(${module('../../../../shared/random.js')});
        const model = ${models[label]};
        const session = await logProbSession(model, model.variableRows ? 'T' : 13, graphWeights(model), { providers: ['webgpu'], threads: false, precision: '${precision}' });
        await session.release();`;
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 180_000, maxBuffer: 64 << 20, env: { ...process.env, RLX_ORT_PLACEMENT: '1' } });
      assert.equal(run.status, 0, run.stderr.slice(-2000));
      const found = parsePlacements(run.stderr).map(summarize);
      assert.equal(found.length, 1, `onnxruntime logged the ${label} ${precision} pass's placements ${found.length} times; its log:\n${run.stderr.slice(-3000)}`);
      return found[0]!;
    };
    for (const label of Object.keys(models) as (keyof typeof models)[]) {
      const [half, full] = [placement(label, 'fp16'), placement(label, 'fp32')];
      console.log(`# the ${label} log-prob pass on webgpu: ${half.onDevice} nodes on the GPU in fp16, ${full.onDevice} in fp32; ${half.copies} and ${full.copies} copies a run`);
      assert.deepEqual(half.fallbacks.map((n) => n.op), [], `the ${label} fp16 pass leaves no node to the CPU`);
      assert.ok(half.onDevice > full.onDevice, `the ${label} fp16 pass's casts run on the GPU: ${half.onDevice} nodes against fp32's ${full.onDevice}`);
      assert.ok(half.copies <= full.copies, `host<->GPU copies per ${label} fp16 pass: ${half.copies}, fp32's ${full.copies}`);
    }
  });

  it('a GRPO run in fp16, with both passes, trains: completions starting with "1" go from ~1 in 7 to most', async (t) => {
    if (skip) return t.skip(skip);
    const plan = startsWithOneGrpoPlan();
    const result = await train({ ...plan, policy: { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 32, heads: 2, context: 16 } }, precision: 'fp16' }, { device: 'webgpu', out: tempDir(), compute: { threads: false } });
    assert.equal(result.status, 'finished');
    const metrics = readEvents(path.join(result.runDir, 'events.jsonl')).filter((e) => e.type === 'metrics') as { values: Record<string, number> }[];
    const mean = (list: typeof metrics) => list.reduce((a, e) => a + e.values['rewards/one']! / list.length, 0);
    // On lavapipe: 0.15 -> 0.98 in 25 updates (the same on the CPU provider, where the passes stay float32).
    assert.ok(mean(metrics.slice(0, 5)) < 0.25 && mean(metrics.slice(-5)) > 0.6, `reward ${mean(metrics.slice(0, 5))} -> ${mean(metrics.slice(-5))}`);
    // Dynamic loss scaling starts at 2^16, as torch's GradScaler does, and halves the scale on a
    // step whose float16 gradients overflow, skipping it. lavapipe's reductions are not bit for
    // bit the same from run to run, so the sampled batches differ and one run in several has an
    // early step overflow (CI, 2026-12-02): a step or two skipped is the scaler at work; more
    // would say the fp16 passes or step go wrong.
    const skipped = metrics.at(-1)!.values['charts/skipped_steps']!;
    assert.ok(skipped <= 2, `${skipped} steps overflowed float16 and were skipped`);
  });
});
