// Writing the safetensors format (hf/safetensors.ts reads it): exports and PEFT adapters as
// transformers writes them, atomically through the trainer's atomic writes, so a crash leaves
// the earlier file whole. It lives in runtime/ because hf/ (the readers the checker shares)
// writes nothing.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic, makeDirs } from '../atomic-files.js';
import { BYTES_PER_VALUE, INDEX_NAME, SINGLE_FILE, type StoredDType } from '../../hf/safetensors.js';

export interface TensorToWrite {
  readonly name: string;
  readonly shape: readonly number[];
  readonly data: Float32Array;
  /** default F32 */
  readonly dtype?: StoredDType;
}

/** float32 bits -> bfloat16 bits, round to nearest even; NaN becomes 0x7FC0 (as torch does). */
export function bf16Bits(f32Bits: number): number {
  const bits = f32Bits >>> 0;
  if ((bits & 0x7fffffff) > 0x7f800000) return 0x7fc0;
  return (bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16;
}

/** float32 bits -> float16 bits, round to nearest even; overflow to inf, NaN to a quiet NaN of its sign (as torch does). */
export function f16Bits(f32Bits: number): number {
  const sign = (f32Bits >>> 16) & 0x8000;
  const exponent = (f32Bits >>> 23) & 0xff;
  const mantissa = f32Bits & 0x7fffff;
  if (exponent === 0xff) return sign | (mantissa !== 0 ? 0x7e00 : 0x7c00);
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    // Subnormal in float16: the 24-bit significand shifted right, rounded to nearest even.
    if (e < -10) return sign; // below half the smallest subnormal: zero
    const significand = mantissa | 0x800000;
    const shift = 14 - e;
    const kept = significand >>> shift;
    const rest = significand & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    return sign | (kept + (rest > half || (rest === half && (kept & 1) === 1) ? 1 : 0));
  }
  const kept = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  // A carry out of the mantissa raises the exponent, up to inf: what round to nearest wants.
  return sign | (kept + (rest > 0x1000 || (rest === 0x1000 && (kept & 1) === 1) ? 1 : 0));
}

/** Writes a .safetensors file atomically (runtime/atomic-files.ts writeFileAtomic with chunks; never one giant concatenation), tensors sorted by name as the safetensors library does, header padded with spaces to a multiple of 8. */
export function writeSafetensors(file: string, tensors: readonly TensorToWrite[], metadata?: Record<string, string>): void {
  writeFileAtomic(file, safetensorsChunks(file, tensors, metadata));
}

/**
 * The bytes of a safetensors file, in chunks: F32 data is the caller's own memory, not a copy.
 * Order as the safetensors library's: wider dtypes first (F32, BF16, F16), then by name (UTF-8
 * bytes); `format: pt` in the metadata unless given, or transformers refuses the file.
 */
function safetensorsChunks(file: string, tensors: readonly TensorToWrite[], metadata: Record<string, string> = {}): Uint8Array[] {
  checkTensorsToWrite(file, tensors);
  const rank = (dtype: StoredDType) => ['F32', 'BF16', 'F16'].indexOf(dtype);
  const sorted = tensors.map((t) => ({ t, rank: rank(t.dtype ?? 'F32'), key: Buffer.from(t.name, 'utf8') }))
    .sort((a, b) => a.rank - b.rank || Buffer.compare(a.key, b.key))
    .map(({ t }) => t);

  const header: Record<string, unknown> = { __metadata__: { format: 'pt', ...metadata } };
  const data: Uint8Array[] = [];
  let at = 0;
  for (const t of sorted) {
    const dtype = t.dtype ?? 'F32';
    const bytes = encode(t.data, dtype);
    header[t.name] = { dtype, shape: t.shape, data_offsets: [at, at + bytes.length] };
    data.push(bytes);
    at += bytes.length;
  }
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const padded = Buffer.alloc(json.length + ((8 - (json.length % 8)) % 8), 0x20);
  json.copy(padded);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(padded.length));
  return [length, padded, ...data];
}

/** Mistakes of the calling code, not of user input: plain Errors. */
function checkTensorsToWrite(where: string, tensors: readonly TensorToWrite[]): void {
  const names = new Set<string>();
  for (const t of tensors) {
    const numel = t.shape.reduce((a, b) => a * b, 1);
    if (!t.shape.every((d) => Number.isSafeInteger(d) && d >= 0) || numel !== t.data.length) {
      throw new Error(`writing ${where}: tensor ${t.name} has shape [${t.shape.join(', ')}] but ${t.data.length} values`);
    }
    if (t.name === '__metadata__') throw new Error(`writing ${where}: the tensor name __metadata__ is reserved`);
    if (names.has(t.name)) throw new Error(`writing ${where}: tensor name ${t.name} appears twice`);
    names.add(t.name);
  }
}

function encode(values: Float32Array, dtype: StoredDType): Uint8Array {
  if (dtype === 'F32') return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const words = new Uint32Array(values.buffer, values.byteOffset, values.length);
  const halves = new Uint16Array(values.length);
  const convert = dtype === 'BF16' ? bf16Bits : f16Bits;
  for (let i = 0; i < halves.length; i++) halves[i] = convert(words[i]!);
  return new Uint8Array(halves.buffer);
}

/**
 * Writes shards of at most maxShardBytes plus model.safetensors.index.json as transformers does
 * (model-00001-of-00003.safetensors ...). Tensors are taken in the order given: a shard is closed
 * when the next tensor would not fit, and a tensor larger than maxShardBytes gets a shard of its
 * own. As transformers does, weights that fit in one shard are written as model.safetensors with
 * no index, and weight files of an earlier save in `dir` that this one does not name are removed
 * (after the new ones are written), so that the folder holds one model.
 */
export function writeShardedSafetensors(dir: string, tensors: readonly TensorToWrite[], maxShardBytes: number, metadata?: Record<string, string>): void {
  if (!(maxShardBytes > 0)) throw new Error(`writing ${dir}: maxShardBytes must be > 0, not ${maxShardBytes}`);
  checkTensorsToWrite(dir, tensors);
  const shards: TensorToWrite[][] = [];
  let shardBytes = 0;
  for (const t of tensors) {
    const bytes = t.data.length * BYTES_PER_VALUE[t.dtype ?? 'F32'];
    if (shards.length === 0 || (shardBytes + bytes > maxShardBytes && shardBytes > 0)) {
      shards.push([]);
      shardBytes = 0;
    }
    shards[shards.length - 1]!.push(t);
    shardBytes += bytes;
  }
  makeDirs(dir);
  if (shards.length <= 1) {
    writeSafetensors(path.join(dir, SINGLE_FILE), shards[0] ?? [], metadata);
    removeStaleWeights(dir, new Set([SINGLE_FILE]));
    return;
  }
  const pad = (n: number) => String(n).padStart(5, '0');
  const weightMap: Record<string, string> = {};
  let totalSize = 0;
  let totalParameters = 0;
  shards.forEach((shard, i) => {
    const name = `model-${pad(i + 1)}-of-${pad(shards.length)}.safetensors`;
    writeSafetensors(path.join(dir, name), shard, metadata);
    for (const t of shard) {
      weightMap[t.name] = name;
      totalSize += t.data.length * BYTES_PER_VALUE[t.dtype ?? 'F32'];
      totalParameters += t.data.length;
    }
  });
  // transformers writes json.dumps(index, indent=2, sort_keys=True) + "\n".
  const sortedMap = Object.fromEntries(Object.keys(weightMap).sort().map((name) => [name, weightMap[name]]));
  const index = { metadata: { total_parameters: totalParameters, total_size: totalSize }, weight_map: sortedMap };
  writeFileAtomic(path.join(dir, INDEX_NAME), JSON.stringify(index, null, 2) + '\n');
  removeStaleWeights(dir, new Set([INDEX_NAME, ...Object.values(weightMap)]));
}

function removeStaleWeights(dir: string, keep: ReadonlySet<string>): void {
  for (const name of fs.readdirSync(dir)) {
    const weights = name === SINGLE_FILE || name === INDEX_NAME || /^model-\d{5}-of-\d{5}\.safetensors$/.test(name);
    if (weights && !keep.has(name)) fs.rmSync(path.join(dir, name), { force: true });
  }
}
