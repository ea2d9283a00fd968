// A token model exported by the trainer (checkpoints/policy-*.onnx of a text run), loaded back
// with plain onnxruntime as any other program would, and stepped one token at a time with its
// past keys and values (model.ts's generationStep). Used by `rlx eval`. The model's metadata
// (its doc_string) carries the tokenizer, the dimensions and the token layout it was trained on.
import * as ort from 'onnxruntime-node';
import { ModelProto } from '../../tensor/onnx-schema.js';
import { CharTokenizer } from '../../text/tokenizer.js';
import { PolicyFileError, policySession, readPolicyFile, REPLACE_POLICY } from '../policy-file.js';
import { STEP_IO } from './model.js';
import { decode, type DecodeStep, type SampleOptions } from './sampling.js';

/** What the trainer stores in a token model's doc_string (the fields this reader needs). */
interface TokenModelMetadata {
  readonly tokenizer: unknown;
  readonly model: { readonly layers: number; readonly width: number; readonly heads: number; readonly context: number; readonly vocab: number };
}

/**
 * A token model loaded from its file, with what the text envs' evaluation needs of a model
 * (text/text-env.ts's TokenSampler): completions of prompt rows, and a fresh decoding step.
 */
export class OnnxTokenModel {
  private constructor(
    private readonly session: ort.InferenceSession,
    readonly tokenizer: CharTokenizer,
    private readonly dims: TokenModelMetadata['model'],
  ) {}

  /** `bytes`: the file's, already read (and checked: rlx eval verifies them against the run's record). */
  static async load(file: string, bytes: Uint8Array = readPolicyFile(file)): Promise<OnnxTokenModel> {
    let meta: TokenModelMetadata;
    try {
      meta = JSON.parse((ModelProto.decode(bytes) as unknown as { doc_string?: string }).doc_string ?? '') as TokenModelMetadata;
    } catch {
      throw new PolicyFileError(`${file} has no rlx metadata (a token model exported by rlx train stores it in its doc_string); it may be damaged or cut short: ${REPLACE_POLICY}`);
    }
    if (!meta?.model || !meta.tokenizer) throw new PolicyFileError(`${file} is not a token model exported by rlx train (no tokenizer or model in its metadata): ${REPLACE_POLICY}`);
    const tokenizer = CharTokenizer.fromJSON(meta.tokenizer, `${file}: tokenizer`);
    const session = await policySession(file, bytes);
    return new OnnxTokenModel(session, tokenizer, meta.model);
  }

  /** A fresh decoding step over `rows` rows: positions 0, 1, ... in order, its own key/value cache. */
  async decoder(rows: number): Promise<DecodeStep> {
    const [H, D] = [this.dims.heads, this.dims.width / this.dims.heads];
    const feeds: Record<string, ort.Tensor> = {};
    for (let l = 0; l < this.dims.layers; l++) {
      feeds[STEP_IO.pastKey(l)] = feeds[STEP_IO.pastValue(l)] = new ort.Tensor('float32', new Float32Array(0), [rows, H, 0, D]);
    }
    return async (tokens: Int32Array, t: number): Promise<Float32Array> => {
      feeds[STEP_IO.token] = new ort.Tensor('int64', BigInt64Array.from(tokens, (id) => BigInt(id)), [rows]);
      feeds[STEP_IO.position] = new ort.Tensor('int64', BigInt64Array.of(BigInt(t)), [1]);
      const result = await this.session.run(feeds);
      for (let l = 0; l < this.dims.layers; l++) {
        feeds[STEP_IO.pastKey(l)] = result[STEP_IO.presentKey(l)]!;
        feeds[STEP_IO.pastValue(l)] = result[STEP_IO.presentValue(l)]!;
      }
      return result[STEP_IO.logits]!.data as Float32Array;
    };
  }

  /** Completion slots of prompt rows, with the same decoding loop and stopping rule as the trainer's sampler. */
  async generate(prompts: Int32Array, rows: number, width: number, newTokens: number, options: SampleOptions): Promise<Int32Array> {
    return decode(await this.decoder(rows), this.dims.vocab, prompts, rows, width, newTokens, options);
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
