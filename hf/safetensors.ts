// The safetensors format (Hugging Face's weights files): an 8-byte little-endian header length N,
// N bytes of JSON naming each tensor's dtype, shape and byte range, then the tensor data; ranges
// count from the end of the header. Shards of a large model can be tens of GB, so nothing here
// reads a whole file: the header alone is read (after bounding its length), and each tensor's
// bytes are read at their offset straight into the Float32Array that is returned. Files come
// from strangers (the Hub, a user's folder), so every field is checked before it is trusted,
// and every refusal names the file and the tensor.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from '../shared/input-error.js';
import { formatBytes, InputFileError, openInputFile, readInputJson } from '../shared/input-files.js';
import { f16Table, toHalf } from '../shared/float16.js';

export type StoredDType = 'F32' | 'BF16' | 'F16';

export interface StoredTensor {
  readonly name: string;
  /** A StoredDType, or another dtype of the file, refused only when the tensor is read (see readableDType). */
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly file: string;
  /** absolute byte offset in file */
  readonly offset: number;
  readonly byteLength: number;
}

/** A weights file or index rlx will not read; the message names the file (and tensor) and what to do. */
export class SafetensorsError extends InputError {
  override name = 'SafetensorsError';
}

export interface WeightIndex {
  readonly tensors: ReadonlyMap<string, StoredTensor>;
  readonly files: readonly string[];
  /** bytes of tensor data as stored */
  readonly storedBytes: number;
  readonly dtypes: ReadonlySet<string>;
}

export const BYTES_PER_VALUE: Record<StoredDType, number> = { F32: 4, BF16: 2, F16: 2 };
const READ_DTYPES = 'rlx reads F32, BF16 and F16';
/**
 * The other dtypes of the safetensors specification, with their bytes per value where whole
 * (F6 and F4 pack values across bytes). A checkpoint may hold such tensors beside its weights
 * (position ids as I64, quantization state): they are checked like the others and refused only
 * when a tensor rlx needs is stored so, naming it (readableDType, readTensor).
 */
const OTHER_DTYPES = new Map<string, number | undefined>([['BOOL', 1], ['U8', 1], ['I8', 1], ['U16', 2], ['I16', 2], ['U32', 4], ['I32', 4], ['U64', 8], ['I64', 8], ['F64', 8], ['C64', 8],
  ['F8_E4M3', 1], ['F8_E5M2', 1], ['F8_E8M0', 1], ['F6_E2M3', undefined], ['F6_E3M2', undefined], ['F4', undefined]]);

/** Whether rlx reads tensors of `dtype` (F32, BF16, F16). */
export function readableDType(dtype: string): dtype is StoredDType {
  return Object.hasOwn(BYTES_PER_VALUE, dtype);
}

/** The refusal of a tensor rlx needs whose dtype it does not read. */
export function unreadableTensor(t: StoredTensor): SafetensorsError {
  const stored = OTHER_DTYPES.has(t.dtype) ? `is stored as ${t.dtype}` : `has an unknown dtype ${JSON.stringify(t.dtype)}`;
  return new SafetensorsError(`the model weights ${t.file}: tensor ${t.name} ${stored}; ${READ_DTYPES} (a quantized checkpoint? use the model's unquantized release)`);
}
/** The safetensors library's own bound on the header (MAX_HEADER_SIZE). */
const MAX_HEADER_BYTES = 100_000_000;
/** Each tensor is read on its own, so a shard's size bounds no allocation: accept any. */
const WEIGHTS_FILE = { what: 'model weights', maxBytes: Number.MAX_SAFE_INTEGER };
const INDEX_FILE = { what: 'weights index', maxBytes: 64 * 2 ** 20 };
/** One read() call's bytes (Linux returns at most ~2 GiB per call anyway). */
const READ_CHUNK = 2 ** 30;

export const SINGLE_FILE = 'model.safetensors';
export const INDEX_NAME = 'model.safetensors.index.json';

// ---------------------------------------------------------------- reading headers

/** Headers of one .safetensors file (reads only the header). */
export function readSafetensorsHeader(file: string): { tensors: StoredTensor[]; metadata: Record<string, string> } {
  const { fd, size } = openWeights(file);
  try {
    return parseHeader(file, fd, size);
  } finally {
    fs.closeSync(fd);
  }
}

function openWeights(file: string): { fd: number; size: number } {
  try {
    return openInputFile(file, WEIGHTS_FILE);
  } catch (err) {
    throw err instanceof InputFileError ? new SafetensorsError(err.message) : err;
  }
}

function parseHeader(file: string, fd: number, size: number): { tensors: StoredTensor[]; metadata: Record<string, string> } {
  const fail = (what: string) => new SafetensorsError(`the model weights ${file}: ${what}`);
  if (size < 8) throw fail(`${size} bytes, too short for a safetensors file (it starts with an 8-byte header length); download it again`);
  const start = readExactly(fd, 0, Math.min(size, 64), file);
  const headerLength = start.readBigUInt64LE(0);
  if (start.toString('latin1').startsWith('version https://git-lfs')) {
    throw fail('a Git LFS pointer, not the weights: fetch them (git lfs pull, or download the file from the Hub)');
  }
  if (headerLength > BigInt(size - 8)) {
    throw fail(`the header length ${headerLength} is larger than the file (${size} bytes): not a safetensors file, or truncated? download it again`);
  }
  if (headerLength > BigInt(MAX_HEADER_BYTES)) {
    throw fail(`the header length ${headerLength} is more than the ${MAX_HEADER_BYTES} bytes safetensors allows: not a safetensors file`);
  }
  const headerBytes = Number(headerLength);
  const dataStart = 8 + headerBytes;
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(readExactly(fd, 8, headerBytes, file)));
  } catch (err) {
    throw fail(`the header is not valid JSON (${(err as Error).message}): not a safetensors file, or damaged? download it again`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) throw fail('the header is not a JSON object: not a safetensors file');

  let metadata: Record<string, string> = {};
  const tensors: StoredTensor[] = [];
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') {
      metadata = parseMetadata(entry, fail);
      continue;
    }
    const { dtype, shape, begin, end } = parseEntry(name, entry, fail);
    const numel = shape.reduce((a, b) => a * b, 1);
    const width = readableDType(dtype) ? BYTES_PER_VALUE[dtype] : OTHER_DTYPES.get(dtype);
    const needed = width === undefined ? end - begin : numel * width; // packed or unknown: its size is not checked
    if (end - begin !== needed) {
      throw fail(`tensor ${name} holds ${end - begin} bytes but its shape [${shape.join(', ')}] of ${dtype} needs ${needed}`);
    }
    if (dataStart + end > size) {
      throw fail(`tensor ${name} ends at byte ${dataStart + end} but the file has only ${size} bytes: truncated? download it again`);
    }
    tensors.push({ name, dtype, shape, file, offset: dataStart + begin, byteLength: end - begin });
  }
  tensors.sort((a, b) => a.offset - b.offset || a.byteLength - b.byteLength);
  let previous: StoredTensor | undefined;
  for (const tensor of tensors) {
    if (tensor.byteLength === 0) continue;
    if (previous && tensor.offset < previous.offset + previous.byteLength) {
      const range = (t: StoredTensor) => `[${t.offset - dataStart}, ${t.offset - dataStart + t.byteLength}]`;
      throw fail(`tensors ${previous.name} ${range(previous)} and ${tensor.name} ${range(tensor)} overlap: the file is damaged; download it again`);
    }
    previous = tensor;
  }
  return { tensors, metadata };
}

function parseMetadata(entry: unknown, fail: (what: string) => SafetensorsError): Record<string, string> {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw fail('__metadata__ is not a JSON object of strings');
  for (const [key, value] of Object.entries(entry)) {
    if (typeof value !== 'string') throw fail(`__metadata__ ${JSON.stringify(key)} is not a string`);
  }
  return Object.fromEntries(Object.entries(entry)) as Record<string, string>;
}

function parseEntry(name: string, entry: unknown, fail: (what: string) => SafetensorsError) {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw fail(`tensor ${name} is not a JSON object of dtype, shape and data_offsets`);
  const { dtype, shape, data_offsets: offsets } = entry as Record<string, unknown>;
  for (const [key, value] of [['dtype', dtype], ['shape', shape], ['data_offsets', offsets]] as const) {
    if (value === undefined) throw fail(`tensor ${name} has no ${key}`);
  }
  if (typeof dtype !== 'string') throw fail(`tensor ${name} has dtype ${JSON.stringify(dtype)}, not a string`);
  const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
  if (!Array.isArray(shape) || !shape.every(isCount)) throw fail(`tensor ${name} has shape ${JSON.stringify(shape)}; a shape is a list of whole numbers >= 0`);
  if (!Number.isSafeInteger(shape.reduce((a: number, b: number) => a * b, 1))) throw fail(`tensor ${name} has shape [${shape.join(', ')}], too many values`);
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(isCount)) {
    throw fail(`tensor ${name} has data_offsets ${JSON.stringify(offsets)}; they are [begin, end], whole numbers >= 0`);
  }
  const [begin, end] = offsets as [number, number];
  if (end < begin) throw fail(`tensor ${name} has data_offsets [${begin}, ${end}], ending before they begin: the file is damaged; download it again`);
  return { dtype, shape: shape as number[], begin, end };
}

/** `length` bytes of `fd` from `position`; fewer (the file shrank) is a SafetensorsError. */
function readExactly(fd: number, position: number, length: number, file: string): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  readInto(fd, bytes, position, file);
  return bytes;
}

function readInto(fd: number, target: Uint8Array, position: number, file: string): void {
  for (let at = 0; at < target.length; ) {
    const n = fs.readSync(fd, target, at, Math.min(READ_CHUNK, target.length - at), position + at);
    if (n === 0) throw new SafetensorsError(`the model weights ${file} ended at byte ${position + at} while rlx read it: truncated, or changed while read? download it again`);
    at += n;
  }
}

// ---------------------------------------------------------------- model folders

/** The weights of a Hugging Face model folder: model.safetensors, or the shards named by model.safetensors.index.json (weight_map). Headers only. */
export function indexModelWeights(modelDir: string): WeightIndex {
  const single = path.join(modelDir, SINGLE_FILE);
  const indexFile = path.join(modelDir, INDEX_NAME);
  // As transformers does, a single model.safetensors wins over an index beside it.
  if (fs.existsSync(single) || !fs.existsSync(indexFile)) {
    if (!fs.existsSync(single)) {
      if (!fs.existsSync(modelDir)) throw new SafetensorsError(`the model folder ${modelDir} does not exist`);
      if (!fs.statSync(modelDir).isDirectory()) throw new SafetensorsError(`the model folder ${modelDir} is a file, not a folder; give the folder that holds config.json and the weights`);
      throw new SafetensorsError(`the model folder ${modelDir} has neither ${SINGLE_FILE} nor ${INDEX_NAME}; rlx reads weights saved as safetensors (convert pytorch_model.bin with save_pretrained(..., safe_serialization=True))`);
    }
    const { tensors } = readSafetensorsHeader(single);
    return summarise(new Map(tensors.map((t) => [t.name, t])), [single]);
  }

  const weightMap = readWeightMap(indexFile);
  const shardNames = [...new Set(weightMap.values())];
  const headers = new Map<string, Map<string, StoredTensor>>();
  for (const shard of shardNames) {
    const normal = path.normalize(shard);
    if (path.isAbsolute(shard) || normal === '..' || normal.startsWith(`..${path.sep}`)) {
      throw new SafetensorsError(`the weights index ${indexFile} names the shard ${shard}, outside the model folder; rlx reads only shards inside it`);
    }
    const file = path.join(modelDir, shard);
    if (!fs.existsSync(file)) throw new SafetensorsError(`the weights index ${indexFile} names the shard ${shard}, which does not exist: download it again`);
    let header: StoredTensor[];
    try {
      header = readSafetensorsHeader(file).tensors;
    } catch (err) {
      if (err instanceof SafetensorsError) throw new SafetensorsError(`${err.message} (a shard named by the weights index ${indexFile})`);
      throw err;
    }
    headers.set(shard, new Map(header.map((t) => [t.name, t])));
  }
  const tensors = new Map<string, StoredTensor>();
  for (const [name, shard] of weightMap) {
    const tensor = headers.get(shard)!.get(name);
    if (!tensor) throw new SafetensorsError(`the weights index ${indexFile} puts tensor ${name} in the shard ${shard}, whose header lacks it: the shards and the index do not match; download them again`);
    tensors.set(name, tensor);
  }
  return summarise(tensors, shardNames.map((shard) => path.join(modelDir, shard)));
}

function readWeightMap(indexFile: string): Map<string, string> {
  let index: unknown;
  try {
    index = readInputJson(indexFile, INDEX_FILE);
  } catch (err) {
    throw err instanceof InputFileError ? new SafetensorsError(err.message) : err;
  }
  const weightMap = (index as { weight_map?: unknown } | null)?.weight_map;
  if (weightMap === null || typeof weightMap !== 'object' || Array.isArray(weightMap)) {
    throw new SafetensorsError(`the weights index ${indexFile} has no weight_map object (tensor name -> shard file)`);
  }
  const entries = Object.entries(weightMap);
  for (const [name, shard] of entries) {
    if (typeof shard !== 'string' || shard === '') throw new SafetensorsError(`the weights index ${indexFile} maps tensor ${name} to ${JSON.stringify(shard)}, not a shard file name`);
  }
  return new Map(entries as [string, string][]);
}

function summarise(tensors: Map<string, StoredTensor>, files: string[]): WeightIndex {
  let storedBytes = 0;
  const dtypes = new Set<string>();
  for (const t of tensors.values()) {
    storedBytes += t.byteLength;
    dtypes.add(t.dtype);
  }
  return { tensors, files, storedBytes, dtypes };
}

// ---------------------------------------------------------------- reading tensors

/** One tensor's values as float32 (BF16 and F16 converted exactly), reading only its byte range. */
export function readTensor(tensor: StoredTensor): Float32Array {
  return readTensors([tensor]).get(tensor.name)!;
}

/** Reads many tensors, opening each file once. */
export function readTensors(tensors: Iterable<StoredTensor>): Map<string, Float32Array> {
  const byFile = new Map<string, StoredTensor[]>();
  for (const t of tensors) {
    if (!readableDType(t.dtype)) throw unreadableTensor(t); // before a byte is read
    const list = byFile.get(t.file);
    if (list) list.push(t);
    else byFile.set(t.file, [t]);
  }
  const values = new Map<string, Float32Array>();
  for (const [file, list] of byFile) {
    const { fd, size } = openWeights(file);
    try {
      for (const t of list) values.set(t.name, readOpen(fd, size, t));
    } finally {
      fs.closeSync(fd);
    }
  }
  return values;
}

/**
 * One half-width tensor's values as float16 bits, for a frozen base kept in half precision
 * (runtime/tensor/weights.ts addHalf): F16 as stored; BF16 narrowed to float16, which is exact
 * over float16's normal range (bfloat16's 8 significant bits fit in float16's 11) and within
 * 2^-25 below 2^-14 (float16's subnormals). Undefined for F32, and for a BF16 tensor holding a
 * finite value past float16's largest (65504): the caller keeps the model in float32 then.
 */
export function readTensorAsHalf(t: StoredTensor): Uint16Array | undefined {
  if (t.dtype === 'F32' || !readableDType(t.dtype)) return undefined;
  if (os.endianness() !== 'LE') throw new Error('rlx reads safetensors on little-endian machines only');
  const { fd, size } = openWeights(t.file);
  let bits: Uint16Array;
  try {
    if (t.offset + t.byteLength > size) {
      throw new SafetensorsError(`the model weights ${t.file}: tensor ${t.name} ends at byte ${t.offset + t.byteLength} but the file has only ${size} bytes now: changed since its header was read? download it again`);
    }
    bits = new Uint16Array(t.byteLength / 2);
    readInto(fd, new Uint8Array(bits.buffer), t.offset, t.file);
  } finally {
    fs.closeSync(fd);
  }
  if (t.dtype === 'F16') return bits;
  for (let i = 0; i < bits.length; i++) {
    const b = bits[i]!;
    const h = toHalf(b << 16);
    // Past 65504 (not a NaN or infinity already, which the finite check names): no float16 holds it.
    if ((h & 0x7c00) === 0x7c00 && (b & 0x7f80) !== 0x7f80) return undefined;
    bits[i] = h;
  }
  return bits;
}

function readOpen(fd: number, size: number, t: StoredTensor): Float32Array {
  if (os.endianness() !== 'LE') throw new Error('rlx reads safetensors on little-endian machines only');
  if (!readableDType(t.dtype)) throw unreadableTensor(t);
  if (t.offset + t.byteLength > size) {
    throw new SafetensorsError(`the model weights ${t.file}: tensor ${t.name} ends at byte ${t.offset + t.byteLength} but the file has only ${size} bytes now: changed since its header was read? download it again`);
  }
  const numel = t.byteLength / BYTES_PER_VALUE[t.dtype];
  let out: Float32Array;
  try {
    out = new Float32Array(numel);
  } catch (err) {
    throw new SafetensorsError(`the model weights ${t.file}: tensor ${t.name} (${numel} values, ${formatBytes(numel * 4)} as float32) does not fit in memory: ${(err as Error).message}`);
  }
  const bytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  if (t.dtype === 'F32') {
    readInto(fd, bytes, t.offset, t.file);
    return out;
  }
  // Half-width values are read into the upper half of the output's own bytes and widened in
  // place from the front: element i is written to bytes [4i, 4i+4), before the half-width
  // values still to be read (from byte 2n + 2i + 2 on), so no second buffer is needed.
  readInto(fd, bytes.subarray(2 * numel), t.offset, t.file);
  const halves = new Uint16Array(out.buffer, out.byteOffset, 2 * numel);
  const words = new Uint32Array(out.buffer, out.byteOffset, numel);
  if (t.dtype === 'BF16') {
    for (let i = 0; i < numel; i++) words[i] = halves[numel + i]! << 16;
  } else {
    const table = f16Table();
    for (let i = 0; i < numel; i++) words[i] = table[halves[numel + i]!]!;
  }
  return out;
}

/**
 * Whether every weight of model folder `dir` is stored half-width (BF16 or F16): a base that can
 * be kept as float16. Undefined where the weights' headers cannot be read (the loader says why).
 */
export function halfWidthWeights(dir: string): boolean | undefined {
  try {
    const { dtypes } = indexModelWeights(dir);
    return dtypes.size > 0 && [...dtypes].every((d) => d === 'BF16' || d === 'F16');
  } catch (err) {
    if (err instanceof InputError) return undefined;
    throw err;
  }
}
