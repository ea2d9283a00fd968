// Ops written differently for the WebGPU provider. onnxruntime's WebGPU provider has no kernel for
// LogSoftmax, and it places ConstantOfShape on the CPU; each such node between GPU nodes costs a
// host<->GPU copy each way per run (the transformer's gradient step had 25 per step, one per
// ones-row of a bias gradient). For webgpu the writer emits equivalent ops the provider runs:
//
//   LogSoftmax(x, axis)        ->  s = x - ReduceMax(x, axis); s - Log(ReduceSum(Exp(s), axis))
//   ConstantOfShape(shape, v)  ->  Expand(v as a scalar, shape)
//
// The Graph keeps the fused op (its gradient rule and the CPU's faster kernel); only the
// serialised model for a webgpu session changes, so the CPU path is untouched.

import type { AttrValue, ConstValue, Tensor } from './tensor.js';

/** What a lowering needs from the model writer. */
export interface LoweringWriter {
  /** Writes one node and returns its output's name (`output` when given, else a fresh one). */
  emit(op: string, inputs: readonly string[], attrs?: readonly [string, AttrValue][], output?: string): string;
  /** The name of an int64 initializer holding `axes` (shared per list). */
  axes(axes: readonly number[]): string;
  /** The name of a new initializer holding `value`. */
  constant(value: ConstValue): string;
}

/** Writes node `t` (inputs already named) as other ops, its result under `output`. */
type Lowering = (t: Tensor, inputs: readonly string[], output: string, w: LoweringWriter) => void;

export const WEBGPU_LOWERINGS: Readonly<Record<string, Lowering>> = {
  LogSoftmax: (t, [x], output, w) => {
    const axes = w.axes([t.attrs.axis as number]);
    const keep: [string, AttrValue][] = [['keepdims', 1]];
    const shifted = w.emit('Sub', [x!, w.emit('ReduceMax', [x!, axes], keep)]);
    const logSum = w.emit('Log', [w.emit('ReduceSum', [w.emit('Exp', [shifted]), axes], keep)]);
    w.emit('Sub', [shifted, logSum], [], output);
  },
  ConstantOfShape: (t, [shape], output, w) => {
    const fill = (t.attrs.value as { tensor: ConstValue }).tensor;
    // A scalar broadcasts to every shape, the empty one included.
    const scalar = w.constant({ dtype: fill.dtype, shape: [], data: fill.data });
    w.emit('Expand', [scalar, shape!], [], output);
  },
};
