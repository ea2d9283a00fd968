// Sampling from the training model with onnxruntime: model.ts's generationStep compiled once
// into a Session that reads the policy's weights at every run (an optimiser step is seen by
// the next sample, nothing is re-exported), stepped one position at a time with the keys and
// values of the earlier positions fed back in.
//
// Why onnxruntime and not the JS step (sampler.ts): at width 64, 2 layers and a batch of 128
// rows the step is dominated by [128, 64] x [64, 256] GEMMs, which onnxruntime's SIMD kernels
// run 5-20x faster than scalar JS, per-node overhead and cache copies included (bench/text.ts:
// a 13-position decode of 128 rows in 30-110 ms against 0.5-1.1 s, on 2 shared, loaded cores).
//
// The weights are fed, not baked in: baking lets onnxruntime pre-pack the GEMMs (a decode
// ~20-40% faster), but the model and session must then be rebuilt after every optimiser
// step, ~20-30 ms, which costs more than it saves at one decode per update.
import { Graph, Session, type ExecutionProvider, type WeightStore } from '../../tensor/index.js';
import { generationStep, headWidth, STEP_IO, type ModelShape } from './model.js';
import { decode, type DecodeStep, type SampleOptions } from './sampling.js';

export class StepSession {
  private constructor(
    private readonly session: Session,
    readonly model: ModelShape,
  ) {}

  static async create(weights: WeightStore, model: ModelShape, providers: readonly ExecutionProvider[] = ['cpu']): Promise<StepSession> {
    const g = new Graph();
    const outputs = generationStep(g, weights.declare(g), model);
    return new StepSession(await Session.create(g, outputs, { weights, providers }), model);
  }

  /** Completions of prompt rows (sampling.ts's decode) with this session's step. */
  generate(prompts: Int32Array, rows: number, width: number, newTokens: number, options: SampleOptions): Promise<Int32Array> {
    const m = this.model;
    if (width + newTokens - 1 > m.context) throw new Error(`the prompt (${width} tokens) and the completion (${newTokens}) exceed the policy's context of ${m.context} tokens`);
    return decode(this.decoder(rows), m.vocab, prompts, rows, width, newTokens, options);
  }

  /** A fresh decoding step over `rows` rows: positions 0, 1, ... in order, with its own key/value cache. */
  decoder(rows: number): DecodeStep {
    const m = this.model;
    const [H, D] = [m.heads, headWidth(m)];
    const empty = { data: new Float32Array(0), dims: [rows, H, 0, D] };
    const past: Record<string, { data: Float32Array; dims: number[] }> = {};
    for (let l = 0; l < m.layers; l++) past[STEP_IO.pastKey(l)] = past[STEP_IO.pastValue(l)] = empty;
    const token = new BigInt64Array(rows);
    const position = new BigInt64Array(1);
    const step = async (tokens: Int32Array, t: number): Promise<Float32Array> => {
      for (let r = 0; r < rows; r++) token[r] = BigInt(tokens[r]!);
      position[0] = BigInt(t);
      const out = await this.session.run({ [STEP_IO.token]: { data: token, dims: [rows] }, [STEP_IO.position]: position, ...past });
      for (let l = 0; l < m.layers; l++) {
        past[STEP_IO.pastKey(l)] = { data: out[STEP_IO.presentKey(l)]!, dims: [rows, H, t + 1, D] };
        past[STEP_IO.pastValue(l)] = { data: out[STEP_IO.presentValue(l)]!, dims: [rows, H, t + 1, D] };
      }
      return out[STEP_IO.logits]!;
    };
    return step;
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
