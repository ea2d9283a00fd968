// Weights that hold NaN or an infinity make every output NaN: generate printed NaN log-probs,
// export wrote them on, and training blamed the learning rate (issue 43, item 13). Each tensor is
// checked as it is read (safetensors.ts), so the error names the file and the tensor.
import { halfToFloat32 } from '../shared/float16.js';
import { InputError } from '../shared/input-error.js';

export class NonFiniteWeightsError extends InputError {
  override name = 'NonFiniteWeightsError';
}

/** Throws, naming the tensor and the first bad value, where `values` holds a NaN or an infinity. */
export function checkFiniteWeights(values: Float32Array, tensor: string, file: string): void {
  // One pass over the float32 bits: exponent all ones is NaN or +-Infinity (faster than isFinite per value).
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  for (let i = 0; i < bits.length; i++) {
    if ((bits[i]! & 0x7f800000) !== 0x7f800000) continue;
    const count = countNonFinite(bits, i);
    throw new NonFiniteWeightsError(
      `the model weights ${file}: tensor ${tensor} holds ${count.toLocaleString('en-US')} value${count === 1 ? '' : 's'} that ${count === 1 ? 'is' : 'are'} not finite (the first, ${values[i]}, at index ${i.toLocaleString('en-US')}); ` +
        'a model with such weights computes NaN everywhere: download or export the weights again (a run that diverged: resume from an earlier checkpoint)',
    );
  }
}

function countNonFinite(bits: Uint32Array, from: number): number {
  let count = 0;
  for (let i = from; i < bits.length; i++) if ((bits[i]! & 0x7f800000) === 0x7f800000) count++;
  return count;
}

/** checkFiniteWeights over float16 bits (a base kept in half precision): exponent all ones is NaN or an infinity. */
export function checkFiniteHalfWeights(bits: Uint16Array, tensor: string, file: string): void {
  for (let i = 0; i < bits.length; i++) if ((bits[i]! & 0x7c00) === 0x7c00) return checkFiniteWeights(halfToFloat32(bits), tensor, file);
}
