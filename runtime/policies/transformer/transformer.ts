// The `transformer` policy: a decoder-only GPT over a text task's characters (model.ts), as
// the TokenModel family GRPO and SFT train. Its weights live in one WeightStore; training
// graphs read them through `sequenceLogits`, sampling through the generation step's session
// (step-session.ts), both fed the same arrays, so an optimiser step is seen by the next sample
// without any copy.
import type { Rng } from '../../../shared/random.js';
import { buildModel, Graph, type Tensor, WeightStore } from '../../tensor/index.js';
import type { CharTokenizer } from '../../text/tokenizer.js';
import type { ActionBuffer } from '../distributions.js';
import type { OnnxInterface, PolicySpaces, TokenModel } from '../policy.js';
import { addModelWeights, generationStep, sequenceLogits, STEP_IO, type ModelShape } from './model.js';
import type { DecodeStep, SampleOptions } from './sampling.js';
import { StepSession } from './step-session.js';
import type { TransformerSettings } from './settings.js';

export class TransformerPolicy implements TokenModel {
  readonly kind = 'transformer';
  readonly weights = new WeightStore();
  readonly model: ModelShape;
  readonly spaces: PolicySpaces;
  readonly onnxInterface: OnnxInterface;
  /** The generation step in onnxruntime, compiled at the first sample. */
  private stepSession: Promise<StepSession> | null = null;

  constructor(
    readonly settings: TransformerSettings,
    readonly tokenizer: CharTokenizer,
    rng: Rng,
  ) {
    this.model = { ...settings, vocab: tokenizer.size };
    addModelWeights(this.weights, this.model, rng);
    // A token model's "observation" is its context of token ids and its action the next token.
    this.spaces = { obsDim: settings.context, actionSpace: { kind: 'discrete', n: tokenizer.size } };
    const layers = [...Array(settings.layers).keys()];
    this.onnxInterface = {
      inputs: [STEP_IO.token, STEP_IO.position, ...layers.flatMap((l) => [STEP_IO.pastKey(l), STEP_IO.pastValue(l)])],
      outputs: [STEP_IO.logits, ...layers.flatMap((l) => [STEP_IO.presentKey(l), STEP_IO.presentValue(l)])],
    };
  }

  get context(): number {
    return this.settings.context;
  }

  sequenceLogits(g: Graph, tokens: Tensor): Tensor {
    return sequenceLogits(g, this.weights.declare(g), this.model, tokens);
  }

  async generate(prompts: Int32Array, rows: number, width: number, newTokens: number, options: SampleOptions): Promise<Int32Array> {
    this.stepSession ??= StepSession.create(this.weights, this.model);
    return (await this.stepSession).generate(prompts, rows, width, newTokens, options);
  }

  async decoder(rows: number): Promise<DecodeStep> {
    this.stepSession ??= StepSession.create(this.weights, this.model);
    return (await this.stepSession).decoder(rows);
  }

  async release(): Promise<void> {
    const session = this.stepSession;
    this.stepSession = null;
    await (await session)?.release();
  }

  act(_obs: Float32Array, _rows: number, _actions: ActionBuffer, _deterministic: boolean, _rng: Rng): never {
    throw new Error('a transformer policy writes completions of text prompts (generate), not actions for observation vectors; pair it with a text env (TextTask)');
  }

  /**
   * One generation step as a standalone ONNX model (model.ts's generationStep): inputs
   * `token`, `position` and past keys/values per layer, outputs `logits` and the present ones.
   * The metadata gets the tokenizer and the model's dimensions, so a reader can step it.
   */
  exportOnnx(metadata: Readonly<Record<string, unknown>>): Uint8Array {
    const g = new Graph();
    const outputs = generationStep(g, this.weights.declare(g), this.model);
    const { layers, width, heads, context } = this.settings;
    const docString = JSON.stringify({ ...metadata, tokenizer: this.tokenizer.toJSON(), model: { layers, width, heads, context, vocab: this.model.vocab }, ...this.onnxInterface });
    return buildModel(g, { outputs, bake: this.weights, graphName: 'rlx_token_model', docString }).bytes;
  }
}
