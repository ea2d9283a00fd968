// NumPy's .npz (a zip of .npy arrays, what np.savez writes and np.load reads), read through a
// ByteSource a slice at a time and written as a list of chunks. rlx's datasets of transitions are
// .npz files with D4RL's keys (transitions.ts), so a user opens one in NumPy as it is, and a
// D4RL-style file saved with np.savez trains as it is.
//
// Reading: the zip's central directory (zip64 too: np.savez forces zip64 headers), then each
// array's .npy header (format 1.0-3.0, C order, little-endian numbers or bools). A stored entry
// (np.savez) is read in slices of the caller's size, so checking a file of any size takes bounded
// memory; a deflated one (np.savez_compressed) is inflated whole, one array at a time.
// Writing: stored entries (no compression), CRC-32 from node:zlib, each array's bytes a chunk of
// its own (no joined copy).
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { InputError } from '../input-error.js';

/** Where an .npz's bytes come from: a file read a slice at a time, or bytes in memory. */
export interface ByteSource {
  /** For messages: the file's path as the user wrote it. */
  readonly name: string;
  readonly size: number;
  /** `length` bytes from `offset` (fewer past the end). */
  read(offset: number, length: number): Uint8Array;
}

/** A problem with a file of transitions: the message names the file and, where there is one, the array and the index. */
export class NpzError extends InputError {
  override name = 'NpzError';
}

export function bytesSource(name: string, bytes: Uint8Array): ByteSource {
  return { name, size: bytes.length, read: (offset, length) => bytes.subarray(offset, Math.min(bytes.length, offset + length)) };
}

/** The file at `file` as a ByteSource; call close() when done. Reads only the slices asked for. */
export function fileSource(name: string, file: string): ByteSource & { close(): void } {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const size = fs.fstatSync(fd).size;
  return {
    name,
    size,
    read(offset, length) {
      const out = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
      for (let at = 0; at < out.length; ) {
        const n = fs.readSync(fd, out, at, out.length - at, offset + at);
        if (n === 0) break;
        at += n;
      }
      return out;
    },
    close: () => fs.closeSync(fd),
  };
}

/** The NumPy dtypes a dataset's arrays may have. */
export type NpyDtype = '<f4' | '<f8' | '<f2' | '|b1' | '|u1' | '|i1' | '<i2' | '<i4' | '<i8' | '<u2' | '<u4';

const ITEM_BYTES: Record<NpyDtype, number> = { '<f4': 4, '<f8': 8, '<f2': 2, '|b1': 1, '|u1': 1, '|i1': 1, '<i2': 2, '<i4': 4, '<i8': 8, '<u2': 2, '<u4': 4 };

/** One array of an .npz: its dtype and shape, and where its data lie (or how to get them). */
export interface NpyArray {
  readonly key: string;
  readonly dtype: NpyDtype;
  readonly shape: readonly number[];
  /** Numbers per row: the product of the shape after the first dimension. */
  readonly rowWidth: number;
  readonly rows: number;
  /** Reads rows [from, from + count) as float64 values, row-major. */
  readRows(from: number, count: number): Float64Array;
}

interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localHeader: number;
}

const u16 = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);
const u32 = (b: Uint8Array, at: number) => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)) + b[at + 3]! * 2 ** 24;
const u64 = (b: Uint8Array, at: number) => u32(b, at) + u32(b, at + 4) * 2 ** 32;

/** The zip's entries, from its central directory. */
function zipEntries(source: ByteSource): ZipEntry[] {
  const bad = (why: string) => new NpzError(`${source.name} is not an .npz file (a zip of NumPy arrays, as np.savez writes): ${why}`);
  const tailLength = Math.min(source.size, 22 + 0xffff);
  const tail = source.read(source.size - tailLength, tailLength);
  let end = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (u32(tail, i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw bad('no zip directory at its end');
  let count = u16(tail, end + 10);
  let dirSize = u32(tail, end + 12);
  let dirOffset = u32(tail, end + 16);
  if (dirOffset === 0xffffffff || count === 0xffff) {
    // zip64: the locator just before the end record points at the zip64 end record.
    const locator = end - 20;
    if (locator < 0 || u32(tail, locator) !== 0x07064b50) throw bad('a zip64 directory without its locator');
    const record = source.read(u64(tail, locator + 8), 56);
    if (u32(record, 0) !== 0x06064b50) throw bad('a damaged zip64 directory');
    count = u64(record, 32);
    dirSize = u64(record, 40);
    dirOffset = u64(record, 48);
  }
  const dir = source.read(dirOffset, dirSize);
  const entries: ZipEntry[] = [];
  for (let at = 0, k = 0; k < count; k++) {
    if (at + 46 > dir.length || u32(dir, at) !== 0x02014b50) throw bad('a damaged zip directory');
    const nameLength = u16(dir, at + 28);
    const extraLength = u16(dir, at + 30);
    const commentLength = u16(dir, at + 32);
    const name = new TextDecoder().decode(dir.subarray(at + 46, at + 46 + nameLength));
    let compressedSize = u32(dir, at + 20);
    let size = u32(dir, at + 24);
    let localHeader = u32(dir, at + 42);
    // The zip64 extra field holds, in this order, each of the three that is 0xffffffff above.
    const extra = dir.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength);
    for (let e = 0; e + 4 <= extra.length; ) {
      const id = u16(extra, e);
      const length = u16(extra, e + 2);
      if (id === 0x0001) {
        let f = e + 4;
        if (size === 0xffffffff) (size = u64(extra, f)), (f += 8);
        if (compressedSize === 0xffffffff) (compressedSize = u64(extra, f)), (f += 8);
        if (localHeader === 0xffffffff) localHeader = u64(extra, f);
      }
      e += 4 + length;
    }
    entries.push({ name, method: u16(dir, at + 10), compressedSize, size, localHeader });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Reads bytes [offset, offset + length) of an entry's uncompressed data. */
type EntryReader = (offset: number, length: number) => Uint8Array;

function entryReader(source: ByteSource, entry: ZipEntry): EntryReader {
  const local = source.read(entry.localHeader, 30);
  if (local.length < 30 || u32(local, 0) !== 0x04034b50) throw new NpzError(`${source.name}: the zip entry ${entry.name} is damaged`);
  const dataStart = entry.localHeader + 30 + u16(local, 26) + u16(local, 28);
  if (entry.method === 0) return (offset, length) => source.read(dataStart + offset, Math.min(length, entry.size - offset));
  if (entry.method === 8) {
    let inflated: Uint8Array | undefined;
    return (offset, length) => {
      inflated ??= zlib.inflateRawSync(source.read(dataStart, entry.compressedSize));
      return inflated.subarray(offset, offset + length);
    };
  }
  throw new NpzError(`${source.name}: ${entry.name} is compressed with zip method ${entry.method}; save it with np.savez or np.savez_compressed`);
}

/** The .npy header of an entry: dtype, shape, where the data start. */
function npyHeader(source: ByteSource, key: string, read: EntryReader): { dtype: NpyDtype; shape: number[]; dataStart: number } {
  const where = `${source.name}: array ${key}`;
  const head = read(0, 12);
  if (head.length < 10 || head[0] !== 0x93 || new TextDecoder().decode(head.subarray(1, 6)) !== 'NUMPY') throw new NpzError(`${where} is not a NumPy .npy array`);
  const major = head[6]!;
  const headerLength = major === 1 ? u16(head, 8) : u32(head, 8);
  const headerStart = major === 1 ? 10 : 12;
  const text = new TextDecoder('latin1').decode(read(headerStart, headerLength));
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(text)?.[1];
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(text)?.[1];
  const shapeText = /'shape'\s*:\s*\(([^)]*)\)/.exec(text)?.[1];
  if (descr === undefined || fortran === undefined || shapeText === undefined) throw new NpzError(`${where} has a .npy header rlx cannot read: ${text.trim().slice(0, 120)}`);
  const dtype = (descr === '<b1' ? '|b1' : descr === '<u1' ? '|u1' : descr === '<i1' ? '|i1' : descr) as NpyDtype;
  if (!(dtype in ITEM_BYTES)) throw new NpzError(`${where} holds ${descr} values; rlx reads little-endian numbers or bools (float32, float64, ints, bool): convert it with .astype(np.float32)`);
  if (fortran === 'True') throw new NpzError(`${where} is in Fortran order; save np.ascontiguousarray(...) of it`);
  const shape = shapeText.split(',').map((s) => s.trim()).filter((s) => s !== '').map(Number);
  if (!shape.every((d) => Number.isSafeInteger(d) && d >= 0)) throw new NpzError(`${where} has the shape (${shapeText}), which rlx cannot read`);
  return { dtype, shape, dataStart: headerStart + headerLength };
}

/** Decodes `count` values of `dtype` from little-endian `bytes` into float64s. */
function decode(bytes: Uint8Array, dtype: NpyDtype, count: number): Float64Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float64Array(count);
  const get: (at: number) => number = {
    '<f4': (at: number) => view.getFloat32(at * 4, true),
    '<f8': (at: number) => view.getFloat64(at * 8, true),
    '<f2': (at: number) => halfToFloat(view.getUint16(at * 2, true)),
    '|b1': (at: number) => view.getUint8(at),
    '|u1': (at: number) => view.getUint8(at),
    '|i1': (at: number) => view.getInt8(at),
    '<i2': (at: number) => view.getInt16(at * 2, true),
    '<i4': (at: number) => view.getInt32(at * 4, true),
    '<i8': (at: number) => Number(view.getBigInt64(at * 8, true)),
    '<u2': (at: number) => view.getUint16(at * 2, true),
    '<u4': (at: number) => view.getUint32(at * 4, true),
  }[dtype];
  for (let i = 0; i < count; i++) out[i] = get(i);
  return out;
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

/** The arrays of the .npz in `source`, by key (the entry's name without `.npy`); each read only when asked. */
export function readNpz(source: ByteSource): Map<string, NpyArray> {
  const arrays = new Map<string, NpyArray>();
  for (const entry of zipEntries(source)) {
    if (!entry.name.endsWith('.npy')) continue;
    const key = entry.name.slice(0, -'.npy'.length);
    const read = entryReader(source, entry);
    const { dtype, shape, dataStart } = npyHeader(source, key, read);
    const rows = shape.length === 0 ? 1 : shape[0]!;
    const rowWidth = shape.slice(1).reduce((a, b) => a * b, 1);
    const item = ITEM_BYTES[dtype];
    if (dataStart + rows * rowWidth * item > entry.size) throw new NpzError(`${source.name}: array ${key} is cut short (its header says ${JSON.stringify(shape)} of ${dtype}, more than the file holds)`);
    arrays.set(key, {
      key, dtype, shape, rows, rowWidth,
      readRows: (from, count) => decode(read(dataStart + from * rowWidth * item, count * rowWidth * item), dtype, count * rowWidth),
    });
  }
  return arrays;
}

/** An array to write: float32 numbers, or bools (`bool: true`, values 0 or 1, stored as NumPy's bool). */
export interface NpzArrayToWrite {
  readonly key: string;
  readonly shape: readonly number[];
  readonly data: Float32Array | Uint8Array;
}

function npyHeaderBytes(dtype: string, shape: readonly number[]): Uint8Array {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let text = `{'descr': '${dtype}', 'fortran_order': False, 'shape': (${dims}), }`;
  // NumPy pads the header with spaces and a newline so the data start at a multiple of 64.
  const total = Math.ceil((10 + text.length + 1) / 64) * 64;
  text = text.padEnd(total - 10 - 1, ' ') + '\n';
  const out = new Uint8Array(total);
  out.set([0x93, ...new TextEncoder().encode('NUMPY'), 1, 0, text.length & 0xff, text.length >> 8], 0);
  out.set(new TextEncoder().encode(text), 10);
  return out;
}

function littleEndian(values: readonly [number, number][]): Uint8Array {
  const length = values.reduce((s, [, bytes]) => s + bytes, 0);
  const out = new Uint8Array(length);
  const view = new DataView(out.buffer);
  let at = 0;
  for (const [value, bytes] of values) {
    if (bytes === 2) view.setUint16(at, value, true);
    else view.setUint32(at, value, true);
    at += bytes;
  }
  return out;
}

/**
 * The chunks of an .npz holding `arrays` (stored, no compression; under 4 GiB, which the dataset
 * limit keeps it): write them one after another (writeFileAtomic takes the list as it is).
 */
export function npzChunks(arrays: readonly NpzArrayToWrite[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const array of arrays) {
    const header = npyHeaderBytes(array.data instanceof Float32Array ? '<f4' : '|b1', array.shape);
    const data = new Uint8Array(array.data.buffer, array.data.byteOffset, array.data.byteLength);
    const size = header.length + data.length;
    const crc = zlib.crc32(data, zlib.crc32(header)) >>> 0;
    const name = new TextEncoder().encode(`${array.key}.npy`);
    // version 2.0, no flags, stored, time and date 0 (1980-01-01: the file's contents alone decide its bytes).
    const common: [number, number][] = [[20, 2], [0, 2], [0, 2], [0, 2], [0x21, 2], [crc, 4], [size, 4], [size, 4], [name.length, 2], [0, 2]];
    const local = littleEndian([[0x04034b50, 4], ...common]);
    central.push(littleEndian([[0x02014b50, 4], [20, 2], ...common, [0, 2], [0, 2], [0, 2], [0, 4], [offset, 4]]), name);
    chunks.push(local, name, header, data);
    offset += local.length + name.length + size;
  }
  const dirSize = central.reduce((s, c) => s + c.length, 0);
  const end = littleEndian([[0x06054b50, 4], [0, 2], [0, 2], [arrays.length, 2], [arrays.length, 2], [dirSize, 4], [offset, 4], [0, 2]]);
  return [...chunks, ...central, end];
}
