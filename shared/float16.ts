// float16 bits and float32 values, both ways, exactly as onnxruntime's Cast converts them: the
// safetensors reader widens F16 checkpoints with the table; a frozen base kept in half precision
// (runtime/tensor/weights.ts addHalf) is narrowed from BF16 with toHalf and widened again where a
// GPU session bakes it as float32.

const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);

/** The float16 bits of each value, rounded to nearest, ties to even (as onnxruntime's Cast rounds); past 65504: infinity. */
export function halfBits(values: Float32Array): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) {
    f32[0] = values[i]!;
    out[i] = toHalf(f32Bits[0]!);
  }
  return out;
}

/** The float16 bits of the float32 whose bits are `x`, rounded as halfBits rounds. */
export function toHalf(x: number): number {
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  const mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa !== 0 ? 0x200 : 0); // infinity, NaN
  const e = exponent - 127 + 15; // float16's biased exponent
  if (e >= 31) return sign | 0x7c00;
  if (e < -10) return sign; // under half the smallest subnormal (2^-25): zero
  // A normal float16 keeps 10 of the 23 mantissa bits; a subnormal fewer, its leading 1 made explicit.
  const bits = e > 0 ? mantissa : mantissa | 0x800000;
  const dropped = e > 0 ? 13 : 14 - e;
  const kept = (e > 0 ? e << 10 : 0) | (bits >>> dropped);
  const rest = bits & ((1 << dropped) - 1);
  const halfway = 1 << (dropped - 1);
  // A carry out of the mantissa moves into the exponent (from 65504 up: infinity), which the layout makes right.
  return sign | (rest > halfway || (rest === halfway && (kept & 1) === 1) ? kept + 1 : kept);
}

let F16_TO_F32: Uint32Array | undefined;

/** The float32 bits of each of the 65536 float16 values (exact: every float16 is a float32). */
export function f16Table(): Uint32Array {
  if (F16_TO_F32) return F16_TO_F32;
  const table = new Uint32Array(65536);
  const scratch = new Float32Array(1);
  const scratchBits = new Uint32Array(scratch.buffer);
  for (let h = 0; h < 65536; h++) {
    const sign = (h & 0x8000) << 16;
    const exponent = (h >> 10) & 0x1f;
    const mantissa = h & 0x3ff;
    if (exponent === 0x1f) table[h] = sign | 0x7f800000 | (mantissa << 13); // inf, NaN (payload kept)
    else if (exponent !== 0) table[h] = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
    else {
      scratch[0] = mantissa * 2 ** -24; // zero or subnormal: exact in float32
      table[h] = sign | scratchBits[0]!;
    }
  }
  return (F16_TO_F32 = table);
}

/** float16 bits as float32 values (exact: every float16 is a float32). */
export function halfToFloat32(bits: Uint16Array): Float32Array {
  const table = f16Table();
  const out = new Float32Array(bits.length);
  const words = new Uint32Array(out.buffer);
  for (let i = 0; i < bits.length; i++) words[i] = table[bits[i]!]!;
  return out;
}
