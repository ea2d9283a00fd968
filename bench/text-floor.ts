// The least the transformer's sampling step and training step can cost with onnxruntime on
// this machine: their linear layers' matrix products alone (matmul-floor.ts), timed in the same
// run as the real steps (bench/text.ts).
//
// Per block the model has four linear layers (qkv: C -> 3C, out: C -> C, up: C -> 4C,
// down: 4C -> C) and a tied LM head (C -> V). Sampling runs their forward products on one row
// per sequence; training runs, on every position, the forward product, the weight gradient
// (X^T dY) and the input gradient (dY W^T) of each. Attention's own products, the layer norms,
// GELU, softmax and Adam are left out, so the floor is a lower bound.
import { matmulFloor, type FloorSession } from './matmul-floor.js';

export interface TransformerSize {
  readonly layers: number;
  readonly width: number;
  readonly vocab: number;
}

/** [in, out] of each linear layer of the model, the LM head last. */
function linearShapes(m: TransformerSize): [number, number][] {
  const C = m.width;
  const block: [number, number][] = [[C, 3 * C], [C, C], [C, 4 * C], [4 * C, C]];
  return [...Array.from({ length: m.layers }, () => block).flat(), [C, m.vocab]];
}

/** The linear layers' products of one sampling step (forward) or training step (forward and both gradients). */
export function linearFloor(m: TransformerSize, training: boolean): Promise<FloorSession> {
  return matmulFloor(linearShapes(m).map(([inDim, outDim]) => ({ inDim, outDim, weightGradient: training, inputGradient: training })));
}
