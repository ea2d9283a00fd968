// A token model exported by the trainer (checkpoints/policy-*.onnx of a text run), loaded back
// with plain onnxruntime as any other program would, and stepped one token at a time by the
// same LmDecoder the trainer samples with (lm/decoder.ts: the file is its graph, weights baked
// in). Used by `rlx eval`. The model's metadata (its doc_string) carries the tokenizer, the
// dimensions and the token layout it was trained on. Files of earlier runs, whose graph took one
// token and one position per step, are stepped by the same decoder through legacyFeeds.
import * as ort from 'onnxruntime-node';
import { DECODER_IO, LmDecoder, type DecoderFeeds } from '../../lm/decoder.js';
import { ModelProto } from '../../tensor/onnx-schema.js';
import { CharTokenizer } from './char-tokenizer.js';
import { PolicyFileError, policySession, readPolicyFile, REPLACE_POLICY } from '../policy-file.js';
import { lmConfig } from './model.js';
import { decode, lockstepStep, type DecodeStep, type SampleOptions } from './sampling.js';

/** What the trainer stores in a token model's doc_string (the fields this reader needs). */
interface TokenModelMetadata {
  readonly tokenizer: unknown;
  readonly model: { readonly layers: number; readonly width: number; readonly heads: number; readonly context: number; readonly vocab: number };
}

/**
 * The interface of token models exported before the policy became runtime/lm/'s GPT-2: one
 * token per row (`token` [B]) at one position shared by every row (`position` [1]), no mask;
 * past and present keys and values, and the logits, named as DECODER_IO names them.
 */
const LEGACY_IO = { token: 'token', position: 'position' } as const;

/**
 * The decoding graph's feeds for a model of the earlier interface: one token per row, every
 * row at the same position (lockstepStep's rows all start at 0) and sees all earlier keys.
 */
function legacyFeeds(feeds: DecoderFeeds): DecoderFeeds {
  const { [DECODER_IO.tokens]: tokens, [DECODER_IO.positions]: positions, [DECODER_IO.mask]: _mask, ...past } = feeds;
  if (tokens!.dims[1] !== 1) throw new Error('a token model of the earlier interface takes one token per row at a time');
  return { ...past, [LEGACY_IO.token]: { data: tokens!.data, dims: [tokens!.dims[0]!] }, [LEGACY_IO.position]: { data: positions!.data.slice(0, 1), dims: [1] } };
}

/**
 * A token model loaded from its file, with what the text envs' evaluation needs of a model
 * (text/text-env.ts's TokenSampler): completions of prompt rows, and a fresh decoding step.
 */
export class OnnxTokenModel {
  private constructor(
    private readonly lm: LmDecoder,
    readonly tokenizer: CharTokenizer,
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
    const legacy = !session.inputNames.includes(DECODER_IO.positions) && session.inputNames.includes(LEGACY_IO.position);
    const run = async (feeds: DecoderFeeds) => {
      const tensors: Record<string, ort.Tensor> = {};
      for (const [name, f] of Object.entries(legacy ? legacyFeeds(feeds) : feeds)) tensors[name] = new ort.Tensor(f.data instanceof BigInt64Array ? 'int64' : 'float32', f.data, f.dims);
      const result = await session.run(tensors);
      return Object.fromEntries(Object.entries(result).map(([name, t]) => [name, t.data as Float32Array]));
    };
    let config;
    try {
      config = lmConfig(meta.model);
    } catch (e) {
      await session.release();
      throw new PolicyFileError(`${file}: its model metadata does not describe a GPT-2 rlx can step (${(e as Error).message}): ${REPLACE_POLICY}`);
    }
    return new OnnxTokenModel(new LmDecoder(run, config, () => session.release()), tokenizer);
  }

  /** A fresh decoding step over `rows` rows: positions 0, 1, ... in order, its own key/value cache. */
  async decoder(rows: number): Promise<DecodeStep> {
    return lockstepStep(this.lm, rows);
  }

  /** Completion slots of prompt rows, with the same decoding loop and stopping rule as the trainer's sampler. */
  async generate(prompts: Int32Array, rows: number, width: number, newTokens: number, options: SampleOptions): Promise<Int32Array> {
    return decode(await this.decoder(rows), this.lm.config.vocab, prompts, rows, width, newTokens, options);
  }

  async release(): Promise<void> {
    await this.lm.release();
  }
}
