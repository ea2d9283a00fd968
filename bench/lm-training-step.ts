// The language-model training step the pretrained benches time (pretrained.ts on the CPU,
// gpu-lm.ts on webgpu), each beside bench/peers/llama_block.py: one Adam step on the mean
// next-token cross-entropy of a batch of random tokens, on LoRA adapters (the base fed, frozen)
// or on every weight. The callers run it (and time its parts) themselves.
import type { LmConfig } from '../hf/config.js';
import { initialAdapter, loraAdapters, type LoraSettings } from '../hf/lora.js';
import { loraWeights } from '../runtime/lm/lora-weights.js';
import { causalLm, type LoraWeights } from '../runtime/lm/model.js';
import { attentionMask, rowPositions } from '../runtime/lm/rows.js';
import type { Rng } from '../shared/random.js';
import { Adam, Graph, GradientStep, WeightStore, type Compute, type Feed, type Tensor } from '../runtime/tensor/index.js';

/** The adapters both benches train, as llama_block.py's LoRA: rank 16 on q, k, v, o. */
export const BENCH_LORA: LoraSettings = { rank: 16, alpha: 32, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] };

export interface LmTrainingStepOptions {
  readonly batch: number;
  readonly width: number;
  /** Train BENCH_LORA's adapters (the base fed, frozen), else every weight of the base. */
  readonly lora: boolean;
  readonly compute: Compute;
  /** The random sources: adapter A as LoRA starts it, adapter B's values, the tokens (each in [0, 1)). */
  readonly random: { readonly adapterA: Rng; readonly adapterB: () => number; readonly tokens: () => number };
}

export interface LmTrainingStep {
  readonly step: GradientStep;
  readonly adam: Adam;
  /** One batch of random tokens, its positions and causal mask. */
  readonly feeds: Record<string, Feed>;
  /** The step's graph and loss (gpu-profile.ts names its nodes' model parts from them). */
  readonly parts: { readonly graph: Graph; readonly loss: Tensor };
}

export async function lmTrainingStep(c: LmConfig, base: WeightStore, options: LmTrainingStepOptions): Promise<LmTrainingStep> {
  const { batch: B, width: T, random } = options;
  const g = new Graph();
  const tokens = g.input('tokens', 'int64', ['B', T]);
  const targets = g.input('targets', 'int64', ['B', T]);
  const positions = g.input('positions', 'int64', ['B', T]);
  const mask = g.input('attention_mask', 'float32', ['B', T, T]);
  let trainable = base;
  let frozen: WeightStore | undefined;
  let adapters: LoraWeights | undefined;
  if (options.lora) {
    const list = loraAdapters(c, BENCH_LORA);
    trainable = new WeightStore();
    for (const a of list) {
      trainable.add(a.a.name, a.a.shape, initialAdapter(a, 'a', random.adapterA));
      // B starts at 0 in LoRA; small random values here so that every gradient is exercised (the cost is the same).
      trainable.add(a.b.name, a.b.shape, (n) => Float32Array.from({ length: n }, () => 0.01 * (random.adapterB() - 0.5)));
    }
    frozen = base;
    adapters = loraWeights(list, BENCH_LORA);
  }
  const weights = { ...(frozen?.declare(g) ?? {}), ...trainable.declare(g) };
  const { logits } = causalLm(g, weights, c, { tokens, positions, mask }, { lora: adapters });
  const loss = g.neg(g.reduceMean(g.gatherLast(g.logSoftmax(logits), targets)));
  const step = await GradientStep.create(g, [{ loss, weights: trainable.names }], { weights: trainable, fed: frozen, compute: options.compute, dimLimits: { B }, largeOps: true });
  const adam = new Adam(trainable, { lr: 1e-5 });
  const ids = () => BigInt64Array.from({ length: B * T }, () => BigInt(Math.floor(random.tokens() * c.vocab)));
  const starts = new Int32Array(B);
  const feeds: Record<string, Feed> = {
    tokens: { data: ids(), dims: [B, T] },
    targets: { data: ids(), dims: [B, T] },
    positions: { data: rowPositions(starts, 0, T), dims: [B, T] },
    attention_mask: { data: attentionMask(starts, 0, T), dims: [B, T, T] },
  };
  return { step, adam, feeds, parts: { graph: g, loss } };
}
