// Mixed precision as a lowering of the written model (`precision: fp16`): the Graph, its gradient
// rules and the weights stay float32; only the ONNX model a session runs computes in half
// precision where that is safe, with Casts where the two meet. The rules are those of
// torch.autocast on CUDA:
//
//   - matrix products (MatMul) compute in float16: their float inputs are cast down (a weight
//     once per model, from its float32 master), their output is float16. A MatMul that sums a
//     batch (a ones row times a gradient: every bias gradient, Graph.sumLeadingAxes) is a
//     reduction, and stays float32;
//   - ops that need float32's range or precision (softmax, log-softmax, layer norm, the
//     reductions, a cumulative sum, exp, log, pow, sqrt, softplus, the scatter-add of the embedding gradient:
//     onnxruntime has no float16 ScatterND with add) compute in float32: a float16 input is cast up;
//   - every other op follows its inputs: float16 when all of them are, float32 (the float16
//     ones cast up) when any is float32. A scalar constant that float16 holds (a normal float16, so
//     within 2^-11 of its value) does not vote: it takes the others' type, so `0.5 * x` stays float16 when x is.
//
// So the model's inputs (batches, the float32 master weights) and outputs (loss, metrics,
// gradients) keep their types (float32; a float16 input, cast to float32 by the graph, is read
// as it is where a node needs it in float16); the residual stream, which starts at the float32
// embedding, stays float32 as under autocast, and the products in and out of it run in
// float16. The backward pass is ops of the same graph, so the same rules apply to it:
// dx = dy W^T and dW = x^T dy in float16, bias and embedding gradients summed in float32.
// Gradients that float16 cannot hold (below ~6e-8) vanish unless the loss is scaled first:
// GradientParts' `lossScale`, with the scale kept by LossScaler (loss-scale.ts).

import { ORT_DOMAIN } from './graph.js';
import type { Tensor } from './tensor.js';
import { isStatic, numel } from './types.js';

/** How the transformer graphs compute: float32 throughout, or float16 products with float32 masters. */
export type Precision = 'fp32' | 'fp16';

export const PRECISIONS: readonly Precision[] = ['fp32', 'fp16'];

/** The element types the written model computes floats in. */
export type FloatType = 'float16' | 'float32';

/** ONNX TensorProto.DataType of each. */
export const FLOAT_DATA_TYPE: Readonly<Record<FloatType, number>> = { float16: 10, float32: 1 };

/**
 * Ops computed in float16: the products, which is where the time and the memory go; and
 * onnxruntime's fused attention of a decode step (tensor/layers.ts groupQueryAttention), whose
 * products read the cache as the primitives' products did, through float16 (its softmax
 * accumulates in float32), so a cache kept in float16 between runs gives the same tokens.
 */
const HALF_OPS = new Set(['MatMul', `${ORT_DOMAIN}:GroupQueryAttention`]);

/** Ops computed in float32 whatever their inputs (torch.autocast's float32 list, and ScatterND). */
const SINGLE_OPS = new Set([
  'Softmax', 'LogSoftmax', 'LayerNormalization', 'SimplifiedLayerNormalization', `${ORT_DOMAIN}:SkipSimplifiedLayerNormalization`, 'ReduceSum', 'ReduceMean', 'ReduceMax',
  'Exp', 'Log', 'Pow', 'Sqrt', 'Softplus', 'ScatterND', 'ScatterElements',
  // A running sum (torch.autocast's cumsum is float32 too): the chunked decoder's inverse-transform
  // draw compares u * total with it, and float16's 11 bits would round away the small probabilities.
  'CumSum',
  // onnxruntime's WebGPU provider has no float16 Sign (it would fall back to the CPU).
  'Sign',
]);

/** Ops that read a float of any type and write their declared type (Cast's `to`, a shape). */
const ANY_INPUT_OPS = new Set(['Cast', 'Shape', 'Size']);

/** The largest float16 and its smallest normal value. */
const HALF_MAX = 65504;
const HALF_MIN_NORMAL = 2 ** -14;

/** What the plan needs from the model writer: a node, and its output's name. */
export interface CastWriter {
  emit(op: string, inputs: readonly string[], attrs?: readonly [string, number][], output?: string): string;
}

/**
 * Decides, node by node in topological order, which type each float32 tensor of the graph is
 * written in, and casts inputs where a node needs the other. Types are kept per written name:
 * a graph output written as float16 is cast up under its own name (ModelWriter in onnx.ts).
 */
export class HalfPrecisionPlan {
  private readonly types = new Map<string, FloatType>();
  /** `name>type` -> the name of that cast, so a value is cast to a type once per model. */
  private readonly casts = new Map<string, string>();

  constructor(private readonly writer: CastWriter) {}

  /** Declares a leaf (input, parameter, constant) or any other value written as `type`. */
  declare(name: string, type: FloatType): void {
    this.types.set(name, type);
  }

  /**
   * The input names node `t` computes from (some cast), and the type it computes its float
   * output in (undefined where its output is no float32 tensor).
   */
  inputsFor(t: Tensor, names: readonly string[]): { readonly inputs: string[]; readonly type: FloatType | undefined } {
    const floats = t.inputs.map((input, i) => input.dtype === 'float32' && this.types.has(names[i]!));
    const out = t.dtype === 'float32' ? 'float32' : undefined;
    if (ANY_INPUT_OPS.has(t.op)) return { inputs: [...names], type: out };
    let type: FloatType;
    if (HALF_OPS.has(t.op) && !sumsRows(t)) type = 'float16';
    else if (HALF_OPS.has(t.op) || SINGLE_OPS.has(t.op)) type = 'float32';
    else {
      // Follow the inputs: float16 only if every input that votes is.
      const votes = t.inputs.flatMap((input, i) => (floats[i] && !isWeakScalar(input) ? [this.types.get(names[i]!)!] : []));
      type = votes.length > 0 && votes.every((v) => v === 'float16') ? 'float16' : 'float32';
    }
    const inputs = names.map((name, i) => (floats[i] ? this.cast(name, type) : name));
    return { inputs, type: out === undefined ? undefined : type };
  }

  /**
   * Records that `source` (a float16 input) holds `name`'s values as `type` exactly: `name` is
   * its Cast to float32, and casting that back would give the same bits, so a node that needs
   * `name` in float16 reads `source` itself.
   */
  exactly(name: string, type: FloatType, source: string): void {
    this.casts.set(`${name}>${type}`, source);
  }

  typeOf(name: string): FloatType | undefined {
    return this.types.get(name);
  }

  /** `name` as `type`: itself, or a Cast of it (one per name and type). */
  cast(name: string, type: FloatType): string {
    if (this.types.get(name) === type) return name;
    const key = `${name}>${type}`;
    let cast = this.casts.get(key);
    if (!cast) {
      cast = this.writer.emit('Cast', [name], [['to', FLOAT_DATA_TYPE[type]]]);
      this.casts.set(key, cast);
      this.types.set(cast, type);
    }
    return cast;
  }
}

/** A scalar constant that float16 holds closely: it takes the type of what it meets. */
function isWeakScalar(t: Tensor): boolean {
  if (t.op !== 'Const' || t.value === undefined || t.value.data.length !== 1) return false;
  const v = Number(t.value.data[0]);
  if (v === 0) return true;
  const a = Math.abs(v);
  // A normal float16 has 11 significant bits: its rounding is within 2^-11 of the value.
  return a >= HALF_MIN_NORMAL && a <= HALF_MAX;
}

/** A MatMul of a ones row by a matrix: a sum over the rows (Graph.sumLeadingAxes), a reduction. */
function sumsRows(t: Tensor): boolean {
  const a = t.inputs[0]!;
  if (a.op === 'ConstantOfShape') return true;
  if (a.op !== 'Const' || a.value === undefined || !isStatic(a.shape) || a.shape.length !== 2 || a.shape[0] !== 1) return false;
  const data = a.value.data;
  for (let i = 0; i < numel(a.shape); i++) if (Number(data[i]) !== 1) return false;
  return true;
}

// The rounding of Cast to float16, shared with the model folder reader (half storage of a base).
export { halfBits } from '../../shared/float16.js';
