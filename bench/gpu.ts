// npm run bench -- gpu: the webgpu provider against the CPU, in the same run.
//
// 1. PPO's gradient step (CartPole's MLP, hidden [64, 64]) at minibatch 128, 2048 and 16k rows,
//    and a wider MLP ([256, 256]) at 2k and 16k: gradient steps per second.
// 2. transformer: the transformer's GRPO gradient step with Adam, as the text learner runs it, at
//    issue 33's four shapes (2 x 64 at 1024 x 13 tokens, 4 x 256 at 64 x 64, 6 x 512 at 32 x 128,
//    12 x 768 at 16 x 128): tokens per second on webgpu, on the CPU (small shapes only) and in
//    PyTorch eager fp32 (bench/peers/text_gpt.py, on CUDA where torch has it), with rlx/PyTorch,
//    and for each rlx cell where the step's time goes: kernel time (the session runs' wall time),
//    the host optimiser's time, and the bytes moved each way per step (gpu-measure.ts); webgpu
//    in fp32 and with precision fp16 (docs/gpu.md#precision).
// 3. small-sampling: sampling with the key/value cache (one onnxruntime step per position), the
//    2 x 64 model at batch 1024 and a 4 x 256 model at batch 64.
// 4. lora and sampling: a Qwen2.5-0.5B-shaped model's LoRA step and its sampling at batch 64,
//    beside PyTorch (gpu-lm.ts).
// 5. placement: where each training graph's nodes run on webgpu (PPO, GRPO, SFT, DQN, SAC): the
//    nodes the provider leaves to the CPU, and the host<->GPU copies per step they cost.
// 6. profile: the GRPO step of table 2's shapes under onnxruntime's profiler (gpu-profile.ts): its
//    kernel time per step by op type and by model part, and its kernels per step (webgpu fp32 and
//    fp16; the CPU where webgpu does not start).
// 7. passes: pi_old's and pi_ref's log-probability passes at table 2's shapes (gpu-passes.ts):
//    fp32 and fp16, pi_ref baked against fed.
//
// BENCH_GPU_ONLY=transformer,lora (a comma list of ppo, transformer, profile, passes,
// small-sampling, lora, sampling, placement) runs those tables alone; every row is printed as soon as it is measured.
// Each row shows the multiply-adds per step that `device: auto` estimates (runtime/device-rule.ts),
// so the figures say where its threshold (GPU_MIN_MACS_PER_STEP) should sit. The CPU runs one
// thread per session, as the trainer does. Each cell runs for about BENCH_GPU_SECONDS (default 2).
// On a software adapter (Mesa's llvmpipe) the figures say nothing about speed: it checks that the
// bench runs (BENCH_GPU_QUICK=1 keeps the smallest case of each table, for that). At full size
// on an H200 the whole bench takes about 5 minutes.
import { spawnSync } from 'node:child_process';
import { buildGrpoLoss } from '../runtime/algorithms/text/policy-gradient-loss.js';
import { buildPpoLoss, ppoGradientStep, ppoSettings } from '../runtime/algorithms/index.js';
import { GPU_MIN_MACS_PER_STEP, policyMacsPerRow } from '../runtime/device-rule.js';
import { probeProvider } from '../runtime/device.js';
import { flatPolicySpaces, makeActorCritic, makeTokenModel } from '../runtime/policies/index.js';
import { encodeCompletion, encodePrompts, textLayout, trainingRows } from '../runtime/policies/transformer/layout.js';
import { LmDecoder } from '../runtime/lm/decoder.js';
import { gpt2Name, lmConfig, logitBias } from '../runtime/policies/transformer/model.js';
import { decode, lockstepStep } from '../runtime/policies/transformer/sampling.js';
import { Rng } from '../shared/random.js';
import { addition } from '../runtime/text/generated.js';
import { taskTokenizer } from '../runtime/text/task.js';
import { Adam, GradientStep, type Precision } from '../runtime/tensor/index.js';
import { loraRow, lmBenchBase, samplingRow } from './gpu-lm.js';
import { formatCost, measure, type StepCost } from './gpu-measure.js';
import { passesTable } from './gpu-passes.js';
import { PROFILE_WARMUPS, PROFILED_STEPS, profileLines, profileStep } from './gpu-profile.js';
import { torchPeerMissing, torchTextModel } from './peers.js';
import { torchPython } from './pretrained.js';
import { parsePlacements, summarize } from '../runtime/tensor/placement.js';
import type { ExecutionProvider } from '../runtime/tensor/session.js';
import { ppoMinibatch } from '../test/helpers/ppo-minibatch.js';
import { grpoBenchFeeds } from './text.js';

const SECONDS = Number(process.env.BENCH_GPU_SECONDS ?? 2);
const QUICK = process.env.BENCH_GPU_QUICK === '1';
const ALL_PPO_CASES: readonly { hidden: readonly number[]; rows: number }[] = [
  { hidden: [64, 64], rows: 128 },
  { hidden: [64, 64], rows: 2048 },
  { hidden: [64, 64], rows: 16384 },
  { hidden: [256, 256], rows: 2048 },
  { hidden: [256, 256], rows: 16384 },
];
interface TransformerCase {
  readonly name: string;
  readonly params: { layers: number; width: number; heads: number; context: number };
  /** Tokens a training row holds (prompt and completion slots less one). */
  readonly tokens: number;
  readonly batches: readonly number[];
}
/** The sampling table's models. */
const ALL_TRANSFORMERS: readonly TransformerCase[] = [
  { name: '2x64 (the example)', params: { layers: 2, width: 64, heads: 4, context: 32 }, tokens: 13, batches: [1024] },
  { name: '4x256', params: { layers: 4, width: 256, heads: 8, context: 64 }, tokens: 64, batches: [64] },
];
/** The training table: issue 33's four shapes (one batch each). */
const ALL_TRAINING: readonly TransformerCase[] = [
  ...ALL_TRANSFORMERS,
  { name: '6x512', params: { layers: 6, width: 512, heads: 8, context: 128 }, tokens: 128, batches: [32] },
  { name: '12x768', params: { layers: 12, width: 768, heads: 12, context: 128 }, tokens: 128, batches: [16] },
];
/** Above this estimate a CPU step takes seconds (~20G multiply-adds a second on one thread): its cell is '-'. */
const CPU_MAX_MACS = 60e9;
const PPO_CASES = QUICK ? ALL_PPO_CASES.slice(0, 1) : ALL_PPO_CASES;
const TRANSFORMERS = QUICK ? [{ ...ALL_TRANSFORMERS[0]!, batches: [64] }] : ALL_TRANSFORMERS;
const TRAINING = QUICK ? [{ ...ALL_TRAINING[0]!, batches: [64] }] : ALL_TRAINING;
const TABLES = ['ppo', 'transformer', 'profile', 'passes', 'small-sampling', 'lora', 'sampling', 'placement'] as const;
type Table = (typeof TABLES)[number];

/** The tables BENCH_GPU_ONLY names (all without it); an unknown name stops the bench, naming the known ones. */
function chosenTables(): ReadonlySet<Table> {
  const only = process.env.BENCH_GPU_ONLY?.trim();
  if (!only) return new Set(TABLES);
  const names = only.split(',').map((n) => n.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(TABLES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    console.error(`BENCH_GPU_ONLY: unknown table(s) ${unknown.join(', ')}; known: ${TABLES.join(', ')}`);
    process.exit(2);
  }
  return new Set(names as Table[]);
}

/** Calls per second of `fn` over about SECONDS, after `warmups` calls (at least 3 timed). */
async function rate(fn: () => Promise<unknown>, warmups = 2): Promise<number> {
  for (let i = 0; i < warmups; i++) await fn();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < SECONDS * 1000 || n < 3) {
    await fn();
    n++;
  }
  return (n * 1000) / (performance.now() - start);
}

const mlp = (hidden: readonly number[]) => ({ kind: 'mlp', name: 'p', params: { hidden: [...hidden] } });
const macs = (x: number) => (x >= 1e9 ? `${(x / 1e9).toFixed(1)}G` : `${(x / 1e6).toFixed(1)}M`);
const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(3)}x` : '-');
const cell = (x: number, width: number) => (Number.isNaN(x) ? '-' : x >= 1e4 ? Math.round(x).toLocaleString('en') : x.toFixed(1)).padStart(width);

/** PPO gradient steps per second on one provider. */
async function ppoRate(provider: ExecutionProvider, hidden: readonly number[], rows: number): Promise<number> {
  const policy = makeActorCritic(mlp(hidden), flatPolicySpaces(4, { kind: 'discrete', n: 2 }), new Rng(1));
  const step = await ppoGradientStep(buildPpoLoss(policy, ppoSettings({})), policy, { compute: { providers: [provider], threads: false }, maxRows: rows });
  const feeds = ppoMinibatch(rows, new Rng(2));
  try {
    return await rate(() => step.run(feeds));
  } finally {
    await step.release();
  }
}

/** A transformer case's model on addition(2)'s tokenizer, and `rows` training rows of `tokens` tokens. */
function transformerSetup(c: TransformerCase, rows: number) {
  const task = addition(2);
  const tokenizer = taskTokenizer(task);
  const model = makeTokenModel({ kind: 'transformer', name: 'T', params: c.params }, tokenizer, new Rng(1));
  const layout = textLayout(task.maxPromptLength, c.tokens - task.maxPromptLength - 1);
  const rng = new Rng(2);
  const examples = Array.from({ length: rows }, () => task.sample(rng));
  const prompts = encodePrompts(tokenizer, examples.map((e) => e.prompt), layout);
  const completions = new Int32Array(rows * layout.completionSlots);
  examples.forEach((e, r) => completions.set(encodeCompletion(tokenizer, e.target, layout, e.prompt), r * layout.completionSlots));
  return { model, layout, prompts, batch: trainingRows(prompts, completions, rows, layout) };
}

/** A GRPO gradient step's cost (with Adam on the host, as the learner does) on one provider. */
async function grpoCost(provider: ExecutionProvider, c: TransformerCase, rows: number, precision: Precision = 'fp32'): Promise<StepCost> {
  const { model, batch } = transformerSetup(c, rows);
  const T = c.tokens;
  const grpo = buildGrpoLoss(model, T);
  const step = await GradientStep.create(grpo.graph, [{ loss: grpo.loss, weights: model.weights.names }], { weights: model.weights, compute: { providers: [provider], threads: false, precision } });
  const adam = new Adam(model.weights, { eps: 1e-8 });
  const feeds = grpoBenchFeeds(batch, rows, T);
  try {
    return await measure(async (timeOptimiser) => {
      const { grads, gradScale } = await step.run(feeds);
      // fp16's gradients carry the loss scale: Adam divides it out.
      timeOptimiser(() => adam.step(grads, 1e-5, gradScale !== undefined ? { gradScale } : {}));
    }, { warmups: 1, minRuns: 3, seconds: SECONDS });
  } finally {
    await Promise.all([step.release(), model.release()]);
  }
}

/** PyTorch's training step (text_gpt.py) at a case's shape: tokens/s and the device it ran on, or why it did not run. */
async function torchTraining(c: TransformerCase, rows: number, vocab: number, cuda: boolean): Promise<{ rate: number; device: string } | string> {
  const missing = (peerMissing ??= { why: torchPeerMissing() }).why;
  if (missing) return missing;
  try {
    // Runs sized to about BENCH_GPU_SECONDS on an H200 (its steps take 5-35 ms); 3 where it falls back to the CPU.
    const result = await torchTextModel({ ...c.params, vocab }, rows, 1, c.tokens, cuda ? Math.max(10, Math.round(SECONDS * 30)) : 3, 1, { device: 'auto', cases: 'train' });
    return { rate: (rows * c.tokens * 1000) / result.trainMs, device: result.device };
  } catch (e) {
    return `failed: ${(e instanceof Error ? e.message : String(e)).split('\n').filter((l) => l.trim()).slice(-2).join(' ')}`;
  }
}

/** Why the PyTorch peer cannot run (null: it can), asked once. */
let peerMissing: { why: string | null } | undefined;

/** Whether torch here has CUDA (false without torch). */
function torchHasCuda(): boolean {
  const python = torchPython();
  if (typeof python !== 'string') return false;
  const probe = spawnSync(python, ['-c', 'import torch; print(torch.cuda.is_available())'], { encoding: 'utf8' });
  return probe.status === 0 && probe.stdout.trim() === 'True';
}

/** Completions sampled per second (every row writes all its slots) on one provider. */
async function samplingRate(provider: ExecutionProvider, c: TransformerCase, rows: number): Promise<number> {
  const { model, layout, prompts } = transformerSetup(c, rows);
  const shape = { ...c.params, vocab: model.tokenizer.size };
  const session = await LmDecoder.create(lmConfig(shape), { weights: model.weights, weightName: gpt2Name, logitBias: logitBias(shape.vocab), providers: [provider] });
  const options = { temperature: 1, greedy: false, rng: new Rng(3) };
  try {
    return await rate(() => decode(lockstepStep(session, rows), shape.vocab, prompts, rows, layout.promptWidth, layout.completionSlots, options), 1);
  } finally {
    await Promise.all([session.release(), model.release()]);
  }
}

/** Each training graph's placement on webgpu, from onnxruntime's verbose log in a child process. */
function placementReport(): string[] {
  const module = (file: string) => JSON.stringify(new URL(file, import.meta.url).href);
  const graphs: Record<string, string> = {
    'PPO (value pass, gradient step)': `
      const { buildPpoLoss, ppoGradientStep, ppoSettings } = await import(${module('../runtime/algorithms/index.js')});
      const { makeActorCritic } = await import(${module('../runtime/policies/index.js')});
      const policy = makeActorCritic({ kind: 'mlp', name: 'p', params: { hidden: [64, 64] } }, { obsDim: 4, actionSpace: { kind: 'discrete', n: 2 } }, new Rng(1));
      await (await ppoGradientStep(buildPpoLoss(policy, ppoSettings({})), policy, { compute, maxRows: 128 })).release();`,
    'GRPO step (transformer 2x64)': `
      const { buildGrpoLoss } = await import(${module('../runtime/algorithms/text/policy-gradient-loss.js')});
      const model = tokenModel();
      const loss = buildGrpoLoss(model, 13);
      await (await GradientStep.create(loss.graph, [{ loss: loss.loss, weights: model.weights.names }], { weights: model.weights, compute })).release();`,
    'SFT step (transformer 2x64)': `
      const { buildSftLoss } = await import(${module('../runtime/algorithms/sft/loss.js')});
      const model = tokenModel();
      const loss = buildSftLoss(model, 13);
      await (await GradientStep.create(loss.graph, [{ loss: loss.loss, weights: model.weights.names }], { weights: model.weights, compute })).release();`,
    'sampling step (transformer 2x64)': `
      const { LmDecoder } = await import(${module('../runtime/lm/decoder.js')});
      const { gpt2Name, lmConfig, logitBias } = await import(${module('../runtime/policies/transformer/model.js')});
      const model = tokenModel();
      const shape = { layers: 2, width: 64, heads: 4, context: 32, vocab: model.tokenizer.size };
      await (await LmDecoder.create(lmConfig(shape), { weights: model.weights, weightName: gpt2Name, logitBias: logitBias(shape.vocab), providers: ['webgpu'] })).release();`,
    'DQN step': `
      const { dqnGradientStep } = await import(${module('../runtime/algorithms/dqn/loss.js')});
      const { MlpQNetwork } = await import(${module('../runtime/algorithms/dqn/q-network.js')});
      const q = new MlpQNetwork(mlpSettings({ hidden: [120, 84], activation: 'relu' }), { obsDim: 4, actionSpace: { kind: 'discrete', n: 2 } }, new Rng(1));
      await (await dqnGradientStep(q, 'huber', { compute, maxRows: 128 })).release();`,
    'SAC critic and actor steps': `
      const sac = await import(${module('../runtime/algorithms/sac/loss.js')});
      const { SacActor, SacCritics } = await import(${module('../runtime/algorithms/sac/networks.js')});
      const { WeightStore } = await import(${module('../runtime/tensor/index.js')});
      const spaces = { obsDim: 3, actionSpace: { kind: 'box', shape: [1], low: [-2], high: [2] } };
      const settings = mlpSettings({ hidden: [256, 256], activation: 'relu' });
      const actor = new SacActor(settings, spaces, new Rng(1));
      const critics = new SacCritics(settings, spaces, new Rng(2));
      const options = { compute, maxRows: 256 };
      await (await sac.sacGradientStep(sac.buildCriticLoss(actor, critics), WeightStore.union(actor.weights, critics.weights, critics.target), critics.weights, options)).release();
      await (await sac.sacGradientStep(sac.buildActorLoss(actor, critics), WeightStore.union(actor.weights, critics.weights), actor.weights, options)).release();`,
  };
  const prelude = `
    const { Rng } = await import(${module('../shared/random.js')});
    const { GradientStep } = await import(${module('../runtime/tensor/index.js')});
    const { makeTokenModel } = await import(${module('../runtime/policies/index.js')});
    const { addition } = await import(${module('../runtime/text/generated.js')});
    const { taskTokenizer } = await import(${module('../runtime/text/task.js')});
    const { mlpSettings } = await import(${module('../runtime/policies/mlp.js')});
    const compute = { providers: ['webgpu'], threads: false };
    const tokenModel = () => makeTokenModel({ kind: 'transformer', name: 'T', params: { layers: 2, width: 64, heads: 4, context: 32 } }, taskTokenizer(addition(2)), new Rng(1));`;
  const lines: string[] = [];
  for (const [name, body] of Object.entries(graphs)) {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', prelude + body], { encoding: 'utf8', timeout: 180_000, maxBuffer: 64 << 20, env: { ...process.env, RLX_ORT_PLACEMENT: '1' } });
    if (run.status !== 0) {
      lines.push(`  ${name}: the child process failed: ${run.stderr.trim().split('\n').slice(-3).join(' ')}`);
      continue;
    }
    for (const s of parsePlacements(run.stderr).map(summarize)) {
      const fallbacks = s.fallbacks.length ? [...new Set(s.fallbacks.map((n) => n.op))].join(', ') : 'none';
      lines.push(`  ${name}: ${s.onDevice} nodes on the GPU; CPU fallbacks: ${fallbacks}; shape nodes on the CPU: ${s.shapeNodes.length}; host<->GPU copies per step: ${s.copies}`);
    }
  }
  return lines;
}

/** A GRPO step's kernel time by op type and model part, from onnxruntime's profiler, for table 2's shapes. */
async function profileTable(gpu: boolean, software: boolean): Promise<void> {
  console.log(`\n  profile: where a GRPO step's onnxruntime run spends its kernel time (onnxruntime's profiler, RLX_ORT_PROFILE=<folder>; ${PROFILE_WARMUPS} warm-up + ${PROFILED_STEPS} profiled steps, no optimiser)`);
  console.log('  % kernel: of the kernels\' summed time; % step: of the run\'s wall time (what the kernels leave is launch, copies and waiting). Profiling adds time to each run: compare shares, not totals, with the transformer table');
  if (software) console.log('  webgpu runs on a software adapter here: these figures show what the profile holds, not where a GPU spends its time');
  const runs: [ExecutionProvider, Precision][] = gpu ? [['webgpu', 'fp32'], ['webgpu', 'fp16']] : [['cpu', 'fp32']];
  for (const c of TRAINING) {
    for (const rows of c.batches) {
      for (const [provider, precision] of runs) {
        const estimate = 3 * rows * policyMacsPerRow({ kind: 'transformer', params: c.params });
        console.log(`\n  ${c.name.split(' ')[0]} at ${rows} x ${c.tokens}, ${provider} ${precision} (est. ${macs(estimate)} multiply-adds a step)`);
        if (provider === 'cpu' && estimate > CPU_MAX_MACS) {
          console.log('    - (seconds a step on one thread: skipped)');
          continue;
        }
        const { model, batch } = transformerSetup(c, rows);
        const grpo = buildGrpoLoss(model, c.tokens);
        const feeds = grpoBenchFeeds(batch, rows, c.tokens);
        try {
          const create = async () => {
            const step = await GradientStep.create(grpo.graph, [{ loss: grpo.loss, weights: model.weights.names }], { weights: model.weights, compute: { providers: [provider], threads: false, precision } });
            return { run: () => step.run(feeds), release: () => step.release() };
          };
          const { summaries, partOf } = await profileStep(create, grpo);
          summaries.forEach((s, i) => {
            if (summaries.length > 1) console.log(`    session ${i + 1} of ${summaries.length}:`);
            for (const line of profileLines(s, provider, partOf)) console.log(line);
          });
        } catch (e) {
          console.log(`    failed: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
        } finally {
          await model.release();
        }
      }
    }
  }
}

export async function benchGpu(): Promise<void> {
  const tables = chosenTables();
  console.log(`\n== gpu: webgpu vs cpu (same run; cpu: one thread per session, as the trainer runs); tables: ${[...tables].join(', ')}${QUICK ? ' (quick: the smallest case of each)' : ''}`);
  const probe = await probeProvider('webgpu');
  if (!probe.ok) console.log(`  webgpu does not start (${probe.reason.split('\n')[0]}); cpu only`);
  else if (probe.hardwareGpu === false) console.log('  webgpu runs on a software adapter (no GPU found): its figures check that it runs, not its speed');
  else console.log(`  webgpu starts; onnxruntime's device discovery ${probe.hardwareGpu ? 'lists a hardware GPU' : 'says nothing of a GPU'} (what device: auto reads)`);
  const gpu = probe.ok;
  console.log(`  device: auto picks a GPU from ${macs(GPU_MIN_MACS_PER_STEP.mlp)} (MLP) and ${macs(GPU_MIN_MACS_PER_STEP.transformer)} (transformer) multiply-adds per step, by its estimate (below)`);

  if (tables.has('ppo')) {
    console.log('\n  PPO gradient steps/s');
    console.log('  hidden      rows   est. MACs/step   cpu steps/s   webgpu steps/s   webgpu/cpu');
    for (const { hidden, rows } of PPO_CASES) {
      const estimate = 3 * rows * policyMacsPerRow(mlp(hidden));
      const cpu = await ppoRate('cpu', hidden, rows);
      const onGpu = gpu ? await ppoRate('webgpu', hidden, rows) : NaN;
      console.log(`  ${`[${hidden.join(', ')}]`.padEnd(10)} ${String(rows).padStart(6)} ${macs(estimate).padStart(16)} ${cell(cpu, 13)} ${cell(onGpu, 16)} ${cell(onGpu / cpu, 12)}`);
    }
  }

  if (tables.has('transformer')) {
    const cuda = torchHasCuda();
    const vocab = taskTokenizer(addition(2)).size;
    console.log(`\n  transformer GRPO step + Adam (host), tokens/s (batch x tokens a row per step); PyTorch: text_gpt.py, eager fp32 (TF32 off), ${cuda ? 'on CUDA' : 'no CUDA here: on the CPU, one thread'}, cross-entropy + Adam; vocabulary ${vocab}`);
    console.log(`  cpu: '-' above ${macs(CPU_MAX_MACS)} multiply-adds a step (seconds a step on one thread). Per rlx cell: kernel ms = the session runs' wall time, optimiser ms = Adam on the host, MB fed and fetched per step (on the CPU a feed is the host's array, not a copy)`);
    const summary: string[] = [];
    for (const c of TRAINING) {
      for (const rows of c.batches) {
        const estimate = 3 * rows * policyMacsPerRow({ kind: 'transformer', params: c.params });
        const tokens = rows * c.tokens;
        const name = `${c.name.split(' ')[0]} at ${rows} x ${c.tokens}`;
        console.log(`\n  ${name} (est. ${macs(estimate)} multiply-adds a step)`);
        console.log('    who                     tokens/s   step ms   kernel ms   optimiser ms   host->device MB   device->host MB');
        // Each cell is printed as soon as it is measured: a run cut short keeps what it has.
        const rlxCell = async (provider: ExecutionProvider, precision: Precision = 'fp32'): Promise<number> => {
          const who = `rlx ${provider}${precision === 'fp16' ? ' fp16' : ''}`.padEnd(22);
          if (provider === 'cpu' && estimate > CPU_MAX_MACS) return (console.log(`    ${who}        -   (seconds a step on one thread: skipped)`), NaN);
          if (provider === 'webgpu' && !gpu) return (console.log(`    ${who}        -   (webgpu does not start here)`), NaN);
          try {
            const cost = await grpoCost(provider, c, rows, precision);
            console.log(`    ${who} ${formatCost(cost, tokens)}`);
            return cost.perSecond * tokens;
          } catch (e) {
            console.log(`    ${who} failed: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
            return NaN;
          }
        };
        const cpu = await rlxCell('cpu');
        const onGpu = await rlxCell('webgpu');
        const half = await rlxCell('webgpu', 'fp16');
        const torch = await torchTraining(c, rows, vocab, cuda);
        const torchRate = typeof torch === 'string' ? NaN : torch.rate;
        if (typeof torch === 'string') console.log(`    PyTorch: ${torch}`);
        else console.log(`    ${`PyTorch (${torch.device === 'cuda' ? 'cuda' : `${torch.device}, no CUDA`})`.padEnd(22)} ${cell(torchRate, 10)} ${(tokens * 1000 / torchRate).toFixed(1).padStart(9)}`);
        const ratios = `webgpu/cpu ${ratio(onGpu, cpu)}, webgpu/PyTorch ${ratio(onGpu, torchRate)}, webgpu fp16/fp32 ${ratio(half, onGpu)}, webgpu fp16/PyTorch ${ratio(half, torchRate)}`;
        console.log(`    ${ratios}`);
        summary.push(`  ${name.padEnd(22)} ${cell(cpu, 12)} ${cell(onGpu, 15)} ${cell(torchRate, 16)}   ${ratios}`);
      }
    }
    console.log('\n  transformer GRPO step + Adam, tokens/s: the rows above together');
    console.log('  model and batch            rlx cpu      rlx webgpu          PyTorch');
    for (const line of summary) console.log(line);
  }

  // Right after the transformer table, whose steps it profiles: a run cut short keeps both.
  if (tables.has('profile')) await profileTable(gpu, probe.ok && probe.hardwareGpu === false);

  if (tables.has('passes')) {
    await passesTable(
      TRAINING.map((c) => () => {
        const rows = c.batches[0]!;
        const { model, batch } = transformerSetup(c, rows);
        return { name: c.name, model, T: c.tokens, rows, feeds: { tokens: { data: batch.tokens, dims: [rows, c.tokens] }, targets: { data: batch.targets, dims: [rows, c.tokens] } } };
      }),
      gpu,
      SECONDS,
    );
  }

  if (tables.has('small-sampling')) {
    console.log('\n  transformer sampling with the key/value cache, tokens/s (all slots of every row)');
    console.log('  model                batch    cpu tokens/s   webgpu tokens/s   webgpu/cpu');
    for (const c of TRANSFORMERS) {
      const rows = c.batches.at(-1)!;
      const cpu = (await samplingRate('cpu', c, rows)) * rows * c.tokens;
      const onGpu = gpu ? (await samplingRate('webgpu', c, rows)) * rows * c.tokens : NaN;
      console.log(`  ${c.name.padEnd(20)} ${String(rows).padStart(5)} ${cell(cpu, 15)} ${cell(onGpu, 17)} ${cell(onGpu / cpu, 12)}`);
    }
  }

  if (tables.has('lora') || tables.has('sampling')) {
    const options = { quick: QUICK, webgpu: gpu, software: probe.ok && probe.hardwareGpu === false, python: torchPython(), seconds: SECONDS };
    // One set of random weights for both rows (~2 GB at the full shape).
    const base = lmBenchBase(QUICK);
    if (tables.has('lora')) await loraRow(options, base);
    if (tables.has('sampling')) await samplingRow(options, base);
  }

  if (gpu && tables.has('placement')) {
    console.log('\n  node placement of each training graph on webgpu:');
    for (const line of placementReport()) console.log(line);
  }
}
