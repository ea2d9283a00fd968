// Element types and shapes shared by the graph, the ONNX writer and the session.

/**
 * `float16` is for a graph's inputs, outputs and Casts only (a Graph refuses to compute on it):
 * data that crosses to the device in half the bytes, cast to float32 inside the graph. Where the
 * model computes in float16 is mixed-precision.ts's decision, not the Graph's.
 */
export type DType = 'float32' | 'float64' | 'float16' | 'int64' | 'int32' | 'bool';

/**
 * One dimension of a shape: a known size, or a symbol such as 'B' (the batch).
 * Symbols starting with '?' are anonymous unknown sizes made by shape inference.
 * Symbolic dimensions are assumed never to be broadcast (they are not 1 at run time).
 */
export type Dim = number | string;
export type Shape = readonly Dim[];

/**
 * Host-side buffer for each element type (bool is one byte per element, as ONNX stores it;
 * float16 its IEEE bits, as onnxruntime-node takes and gives them: halfBits writes them). int32
 * is for the inputs of onnxruntime's kernels that take it (GroupQueryAttention's lengths).
 */
export type HostArray = Float32Array | Float64Array | Uint16Array | BigInt64Array | Int32Array | Uint8Array;

export function isFloat(dtype: DType): dtype is 'float32' | 'float64' {
  return dtype === 'float32' || dtype === 'float64';
}

export function dtypeOfArray(data: HostArray): DType {
  if (data instanceof Float32Array) return 'float32';
  if (data instanceof Float64Array) return 'float64';
  if (data instanceof Uint16Array) return 'float16';
  if (data instanceof BigInt64Array) return 'int64';
  if (data instanceof Int32Array) return 'int32';
  return 'bool';
}

/** The typed array class holding each element type. */
export const ARRAY_TYPES: Record<DType, { new (lengthOrBuffer: number | ArrayBufferLike): HostArray; readonly BYTES_PER_ELEMENT: number }> = {
  float32: Float32Array,
  float64: Float64Array,
  float16: Uint16Array,
  int64: BigInt64Array,
  int32: Int32Array,
  bool: Uint8Array,
};

/** Whether two shapes have the same dims (an ort.Tensor's, a feed's, a control block's). */
export function sameDims(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function allocate(dtype: DType, size: number): HostArray {
  return new ARRAY_TYPES[dtype](size);
}

/** Copies plain numbers into a buffer of the given type (bool: non-zero is true). */
export function toHostArray(values: ArrayLike<number>, dtype: DType): HostArray {
  // Numbers would land in a Uint16Array as integers, not as float16 bits.
  if (dtype === 'float16') throw new Error('float16 values cannot be written from numbers here: a Graph has no float16 constants (cast a float32 one)');
  const out = allocate(dtype, values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (dtype === 'int64') {
      if (!Number.isInteger(v)) throw new Error(`int64 constant needs integers, got ${v}`);
      (out as BigInt64Array)[i] = BigInt(v);
    } else if (dtype === 'int32') {
      if (!Number.isInteger(v)) throw new Error(`int32 constant needs integers, got ${v}`);
      (out as Int32Array)[i] = v;
    } else if (dtype === 'bool') {
      (out as Uint8Array)[i] = v ? 1 : 0;
    } else {
      (out as Float32Array | Float64Array)[i] = v;
    }
  }
  return out;
}

export function isStatic(shape: Shape): shape is readonly number[] {
  return shape.every((d) => typeof d === 'number');
}

export function numel(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export function formatShape(shape: Shape): string {
  return `[${shape.join(', ')}]`;
}
