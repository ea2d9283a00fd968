// The least a pretrained language model's sampling step or training step can cost with
// onnxruntime on this machine: its linear layers' matrix products alone (matmul-floor.ts), timed
// in the same run as the real steps (bench/pretrained.ts), as text-floor.ts does for the small
// transformer. Per block: q, k, v (grouped-query: k and v are narrower), the attention output,
// and the MLP's gate, up and down; then the head (tied or not: the same product). Attention's
// own products, the norms, rope, SiLU, softmax, LoRA's thin products and Adam are left out, so
// the floor is a lower bound.
import type { LmConfig } from '../hf/config.js';
import { matmulFloor, type FloorSession } from './matmul-floor.js';

/** [in, out] of each linear layer of the model, the head last. */
function linearShapes(c: LmConfig): [number, number][] {
  const [C, q, kv, M] = [c.width, c.heads * c.headDim, c.kvHeads * c.headDim, c.mlpWidth];
  const block: [number, number][] = [[C, q], [C, kv], [C, kv], [q, C], ...(c.mlp === 'swiglu' ? [[C, M] as [number, number]] : []), [C, M], [M, C]];
  return [...Array.from({ length: c.layers }, () => block).flat(), [C, c.vocab]];
}

/**
 * The products of sampling (forward only), of a LoRA step (forward and the input gradient: the
 * base weights are frozen, so no X^T dY) or of full fine-tuning (forward and both gradients).
 */
export function lmLinearFloor(c: LmConfig, step: 'sample' | 'lora' | 'full', threads: number): Promise<FloorSession> {
  return matmulFloor(
    linearShapes(c).map(([inDim, outDim]) => ({ inDim, outDim, weightGradient: step === 'full', inputGradient: step !== 'sample' })),
    threads,
  );
}
