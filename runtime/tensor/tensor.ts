// A symbolic tensor: one node of a Graph. Every op has exactly one output, so the
// node and the value it produces are the same object.

import type { Graph } from './graph.js';
import { type DType, type HostArray, type Shape, formatShape } from './types.js';

/**
 * Attribute values kept on a node. Integers and integer lists become ONNX INT/INTS,
 * strings STRING; floats must be wrapped ({ float }) because 1.0 and 1 look alike in JS.
 */
export type AttrValue =
  | number
  | readonly number[]
  | string
  | { readonly float: number }
  | { readonly floats: readonly number[] }
  | { readonly tensor: ConstValue };
export type Attrs = Readonly<Record<string, AttrValue>>;

export interface ConstValue {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly data: HostArray;
}

export class Tensor {
  constructor(
    readonly graph: Graph,
    /** Creation order; since inputs exist before their users, ids are a topological order. */
    readonly id: number,
    readonly op: string,
    readonly inputs: readonly Tensor[],
    readonly attrs: Attrs,
    readonly dtype: DType,
    readonly shape: Shape,
    /** Name of an Input or Param (the ONNX graph input name). */
    readonly name?: string,
    /** Data of a Const. */
    readonly value?: ConstValue,
  ) {}

  get rank(): number {
    return this.shape.length;
  }

  get isLeaf(): boolean {
    return this.op === 'Input' || this.op === 'Param' || this.op === 'Const';
  }

  /** For error messages: `Tanh #12 float32 [B, 64]` or `Param 'w1' float32 [4, 64]`. */
  describe(): string {
    const label = this.name !== undefined ? `${this.op} '${this.name}'` : `${this.op} #${this.id}`;
    return `${label} ${this.dtype} ${formatShape(this.shape)}`;
  }
}
