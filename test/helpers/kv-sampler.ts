// The character-level transformer's key/value-cache step in plain JS, a test reference only:
// each position's keys and values are computed once and kept, the query of the new position
// attends to all of them. It computes what the policy's decoding graph (runtime/lm/, stepped by
// policies/transformer/sampling.ts) computes, written independently of the graph code, so the
// tests check the graphs against it (and bench/text.ts times it against onnxruntime).
//
// The policy does not sample with it: at width 64 and a batch of 128 rows one step is ~13M
// multiply-adds, which scalar JS does at ~0.2-0.6 GMAC/s, while onnxruntime's SIMD GEMMs run
// the same step 5-20x faster including its per-node overhead (bench/text.ts).
import { logitBias, type ModelShape } from '../../runtime/policies/transformer/model.js';
import { decode, type SampleOptions } from '../../runtime/policies/transformer/sampling.js';
import type { WeightStore } from '../../runtime/tensor/index.js';

/** GPT-2's LayerNorm epsilon. */
const LN_EPSILON = 1e-5;
const headWidth = (m: ModelShape): number => m.width / m.heads;

/** y[r, :] = b + x[r, :] @ W for W [K, N] row-major. */
function linear(x: Float32Array, rows: number, K: number, W: Float32Array, b: Float32Array, N: number, y: Float32Array): void {
  for (let r = 0; r < rows; r++) {
    const yo = r * N;
    for (let n = 0; n < N; n++) y[yo + n] = b[n]!;
    const xo = r * K;
    for (let k = 0; k < K; k++) {
      const xv = x[xo + k]!;
      if (xv === 0) continue;
      const wo = k * N;
      for (let n = 0; n < N; n++) y[yo + n]! += xv * W[wo + n]!;
    }
  }
}

function layerNorm(x: Float32Array, rows: number, C: number, scale: Float32Array, bias: Float32Array, y: Float32Array): void {
  for (let r = 0; r < rows; r++) {
    const o = r * C;
    let mean = 0;
    for (let c = 0; c < C; c++) mean += x[o + c]!;
    mean /= C;
    let variance = 0;
    for (let c = 0; c < C; c++) variance += (x[o + c]! - mean) ** 2;
    const inv = 1 / Math.sqrt(variance / C + LN_EPSILON);
    for (let c = 0; c < C; c++) y[o + c] = (x[o + c]! - mean) * inv * scale[c]! + bias[c]!;
  }
}

const GELU_K = Math.sqrt(2 / Math.PI);

/** The step's scratch buffers for `rows` rows and sequences of up to `length` tokens. */
class Buffers {
  readonly x: Float32Array;
  readonly h: Float32Array;
  readonly qkv: Float32Array;
  readonly mixed: Float32Array;
  readonly proj: Float32Array;
  readonly up: Float32Array;
  readonly logits: Float32Array;
  readonly scores: Float32Array;
  /** Per layer [rows, H, length, D]. */
  readonly keys: Float32Array[];
  readonly values: Float32Array[];

  constructor(readonly rows: number, readonly length: number, m: ModelShape) {
    const C = m.width;
    this.x = new Float32Array(rows * C);
    this.h = new Float32Array(rows * C);
    this.qkv = new Float32Array(rows * 3 * C);
    this.mixed = new Float32Array(rows * C);
    this.proj = new Float32Array(rows * C);
    this.up = new Float32Array(rows * 4 * C);
    this.logits = new Float32Array(rows * m.vocab);
    this.scores = new Float32Array(length);
    this.keys = Array.from({ length: m.layers }, () => new Float32Array(rows * m.heads * length * headWidth(m)));
    this.values = Array.from({ length: m.layers }, () => new Float32Array(rows * m.heads * length * headWidth(m)));
  }
}

export class KvSampler {
  private buffers: Buffers | null = null;
  private readonly bias: Float32Array;

  constructor(
    private readonly weights: WeightStore,
    readonly model: ModelShape,
  ) {
    this.bias = Float32Array.from(logitBias(model.vocab));
  }

  /** Completions of prompt rows (sampling.ts's decode) with this step. */
  generate(prompts: Int32Array, rows: number, width: number, newTokens: number, options: SampleOptions): Promise<Int32Array> {
    const length = width + newTokens - 1;
    if (length > this.model.context) throw new Error(`the prompt (${width} tokens) and the completion (${newTokens}) exceed the policy's context of ${this.model.context} tokens`);
    return decode((tokens, t) => this.step(tokens, rows, t, length), this.model.vocab, prompts, rows, width, newTokens, options);
  }

  /**
   * The next-token logits [rows, V] after feeding `tokens` (one per row) at position `t`, the
   * keys and values of positions 0..t-1 being in the cache from the previous calls.
   */
  step(tokens: Int32Array, rows: number, t: number, length: number): Float32Array {
    const m = this.model;
    const [C, H, D, V] = [m.width, m.heads, headWidth(m), m.vocab];
    if (t === 0 && (!this.buffers || this.buffers.rows < rows || this.buffers.length < length)) this.buffers = new Buffers(rows, length, m);
    const b = this.buffers!;
    const w = (name: string) => this.weights.get(name).data;
    const wte = w('wte');
    const wpe = w('wpe');
    for (let r = 0; r < rows; r++) {
      const te = tokens[r]! * C;
      for (let c = 0; c < C; c++) b.x[r * C + c] = wte[te + c]! + wpe[t * C + c]!;
    }
    const scale = 1 / Math.sqrt(D);
    const stride = b.length * D; // one head's cache
    for (let l = 0; l < m.layers; l++) {
      const p = `h.${l}`;
      layerNorm(b.x, rows, C, w(`${p}.ln1.scale`), w(`${p}.ln1.bias`), b.h);
      linear(b.h, rows, C, w(`${p}.attn.qkv.weight`), w(`${p}.attn.qkv.bias`), 3 * C, b.qkv);
      const keys = b.keys[l]!;
      const values = b.values[l]!;
      for (let r = 0; r < rows; r++) {
        for (let h = 0; h < H; h++) {
          const cache = (r * H + h) * stride;
          const q = r * 3 * C + h * D;
          for (let d = 0; d < D; d++) {
            keys[cache + t * D + d] = b.qkv[q + C + d]!;
            values[cache + t * D + d] = b.qkv[q + 2 * C + d]!;
          }
          let most = -Infinity;
          for (let j = 0; j <= t; j++) {
            let dot = 0;
            for (let d = 0; d < D; d++) dot += b.qkv[q + d]! * keys[cache + j * D + d]!;
            b.scores[j] = dot * scale;
            if (b.scores[j]! > most) most = b.scores[j]!;
          }
          let sum = 0;
          for (let j = 0; j <= t; j++) sum += b.scores[j] = Math.exp(b.scores[j]! - most);
          const o = r * C + h * D;
          for (let d = 0; d < D; d++) b.mixed[o + d] = 0;
          for (let j = 0; j <= t; j++) {
            const weight = b.scores[j]! / sum;
            for (let d = 0; d < D; d++) b.mixed[o + d]! += weight * values[cache + j * D + d]!;
          }
        }
      }
      linear(b.mixed, rows, C, w(`${p}.attn.out.weight`), w(`${p}.attn.out.bias`), C, b.proj);
      for (let i = 0; i < rows * C; i++) b.x[i]! += b.proj[i]!;
      layerNorm(b.x, rows, C, w(`${p}.ln2.scale`), w(`${p}.ln2.bias`), b.h);
      linear(b.h, rows, C, w(`${p}.mlp.up.weight`), w(`${p}.mlp.up.bias`), 4 * C, b.up);
      for (let i = 0; i < rows * 4 * C; i++) {
        const u = b.up[i]!;
        b.up[i] = 0.5 * u * (1 + Math.tanh(GELU_K * (u + 0.044715 * u * u * u)));
      }
      linear(b.up, rows, 4 * C, w(`${p}.mlp.down.weight`), w(`${p}.mlp.down.bias`), C, b.proj);
      for (let i = 0; i < rows * C; i++) b.x[i]! += b.proj[i]!;
    }
    layerNorm(b.x, rows, C, w('lnf.scale'), w('lnf.bias'), b.h);
    // The LM head is wte transposed: logits[r, v] = h[r, :] . wte[v, :].
    for (let r = 0; r < rows; r++) {
      for (let v = 0; v < V; v++) {
        let dot = 0;
        for (let c = 0; c < C; c++) dot += b.h[r * C + c]! * wte[v * C + c]!;
        b.logits[r * V + v] = dot + this.bias[v]!;
      }
    }
    return b.logits;
  }
}
