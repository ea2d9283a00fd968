// The `transformer` policy: a GPT-2 over a text task's characters (model.ts, built by
// runtime/lm/), as the TokenModel family GRPO and SFT train. Its weights live in one
// WeightStore; training graphs read them through `sequenceLogits`, sampling through an
// LmDecoder's session, both fed the same arrays, so an optimiser step is seen by the next
// sample without any copy.
//
// Sampling runs in onnxruntime rather than JS: at width 64, 2 layers and a batch of 128 rows a
// step is dominated by [128, 64] x [64, 256] GEMMs, which onnxruntime's SIMD kernels run 5-20x
// faster than scalar JS, per-node overhead and cache copies included (bench/text.ts). The
// weights are fed, not baked in: baking lets onnxruntime pre-pack the GEMMs (a decode ~20-40%
// faster), but the session must then be rebuilt after every optimiser step, ~20-30 ms, which
// costs more than it saves at one decode per update.
import { decoderGraph, decoderInterface, LmDecoder } from '../../lm/decoder.js';
import type { Rng } from '../../../shared/random.js';
import { buildModel, Graph, type Tensor, WeightStore } from '../../tensor/index.js';
import type { CharTokenizer } from './char-tokenizer.js';
import type { ActionBuffer } from '../distributions.js';
import { flatPolicySpaces, type OnnxInterface, type PolicySpaces, type TokenModel } from '../policy.js';
import { addModelWeights, gpt2Name, gpt2Weights, lmConfig, logitBias, sequenceLogits, type ModelShape } from './model.js';
import { decode, lockstepStep, type DecodeStep, type SampleOptions } from './sampling.js';
import type { TransformerSettings } from './settings.js';

export class TransformerPolicy implements TokenModel {
  readonly kind = 'transformer';
  readonly weights = new WeightStore();
  readonly model: ModelShape;
  readonly spaces: PolicySpaces;
  readonly onnxInterface: OnnxInterface;
  /** The decoding graph in onnxruntime, compiled at the first sample. */
  private lmDecoder: Promise<LmDecoder> | null = null;

  constructor(
    readonly settings: TransformerSettings,
    readonly tokenizer: CharTokenizer,
    rng: Rng,
  ) {
    this.model = { ...settings, vocab: tokenizer.size };
    addModelWeights(this.weights, this.model, rng);
    // A token model's "observation" is its context of token ids and its action the next token.
    this.spaces = flatPolicySpaces(settings.context, { kind: 'discrete', n: tokenizer.size });
    this.onnxInterface = decoderInterface(settings.layers);
  }

  get context(): number {
    return this.settings.context;
  }

  sequenceLogits(g: Graph, tokens: Tensor): Tensor {
    return sequenceLogits(g, this.weights.declare(g), this.model, tokens);
  }

  async generate(prompts: Int32Array, rows: number, width: number, newTokens: number, options: SampleOptions): Promise<Int32Array> {
    const m = this.model;
    if (width + newTokens - 1 > m.context) throw new Error(`the prompt (${width} tokens) and the completion (${newTokens}) exceed the policy's context of ${m.context} tokens`);
    return decode(await this.decoder(rows), m.vocab, prompts, rows, width, newTokens, options);
  }

  async decoder(rows: number): Promise<DecodeStep> {
    this.lmDecoder ??= LmDecoder.create(lmConfig(this.model), { weights: this.weights, weightName: gpt2Name, logitBias: logitBias(this.model.vocab) });
    return lockstepStep(await this.lmDecoder, rows);
  }

  async release(): Promise<void> {
    const decoder = this.lmDecoder;
    this.lmDecoder = null;
    await (await decoder)?.release();
  }

  act(_obs: Float32Array, _rows: number, _actions: ActionBuffer, _deterministic: boolean, _rng: Rng): never {
    throw new Error('a transformer policy writes completions of text prompts (generate), not actions for observation vectors; pair it with a text env (TextTask)');
  }

  /**
   * The decoding graph (lm/decoder.ts) as a standalone ONNX model with the weights baked in:
   * inputs `tokens`, `positions`, `mask` and past keys/values per layer, outputs `logits` and
   * the present ones. The metadata gets the tokenizer and the model's dimensions, so a reader
   * can step it (onnx-token-model.ts).
   */
  exportOnnx(metadata: Readonly<Record<string, unknown>>): Uint8Array {
    const g = new Graph();
    const outputs = decoderGraph(g, lmConfig(this.model), gpt2Weights(this.weights.declare(g)), { logitBias: logitBias(this.model.vocab) });
    const { layers, width, heads, context } = this.settings;
    const docString = JSON.stringify({ ...metadata, tokenizer: this.tokenizer.toJSON(), model: { layers, width, heads, context, vocab: this.model.vocab }, ...this.onnxInterface });
    return buildModel(g, { outputs, bake: this.weights, graphName: 'rlx_token_model', docString }).bytes;
  }
}
