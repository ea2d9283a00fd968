// The graph a learner module builds its loss on: a frozen subset of runtime/tensor's Graph
// (docs/learners.md#the-rlxlearner-surface). A module sees LossTensor handles, never the
// Tensor class or the Graph itself, so rlx may change those without breaking a learner: what
// is here is version 1 of the surface (LEARNER_API_VERSION) and only grows.
//
// Every op is differentiable where its maths is (comparisons give bool tensors, which carry no
// gradient), broadcasts numpy-style, and takes plain numbers where a tensor would do. Shapes
// are checked as the graph is built: a mistake throws at the call that made it, naming the op.
import type { Graph, Operand, Tensor } from '../tensor/index.js';

/** A tensor of a learner's loss graph: its shape (numbers, or 'B' for the batch's rows, 'T' for the tokens of a row) and element type. */
export class LossTensor {
  /** @internal */
  constructor(tensor: Tensor, owner: LossGraph) {
    TENSORS.set(this, { tensor, owner });
  }

  get shape(): readonly (number | string)[] {
    return unwrapAny(this).shape;
  }

  get dtype(): 'float32' | 'float64' | 'float16' | 'int64' | 'int32' | 'bool' {
    return unwrapAny(this).dtype;
  }

  get rank(): number {
    return this.shape.length;
  }

  toString(): string {
    return `LossTensor ${this.dtype} [${this.shape.join(', ')}]`;
  }
}

/** The graph's own tensors, kept out of the LossTensor objects a module holds. */
const TENSORS = new WeakMap<LossTensor, { tensor: Tensor; owner: LossGraph }>();

function unwrapAny(t: LossTensor): Tensor {
  const entry = TENSORS.get(t);
  if (!entry) throw new TypeError('not a tensor of an rlx loss graph (a LossTensor made by rlx/learner is needed)');
  return entry.tensor;
}

/** A number, or a tensor of the same graph. */
export type LossOperand = LossTensor | number;

export interface AxesOptions {
  /** Axes to reduce (negative counts from the end); all of them when left out. */
  readonly axes?: readonly number[];
  /** Keep reduced axes as size 1. Default false. */
  readonly keepdims?: boolean;
}

export class LossGraph {
  /** @internal */
  constructor(private readonly g: Graph) {}

  /** The Tensor behind a handle of this graph (rlx's side only: a module has no Graph to use it with). @internal */
  static unwrap(graph: LossGraph, t: unknown, what: string): Tensor {
    const entry = t instanceof LossTensor ? TENSORS.get(t) : undefined;
    if (!entry) throw new TypeError(`${what} is ${describe(t)}, not a tensor of the loss graph`);
    if (entry.owner !== graph) throw new TypeError(`${what} is a tensor of another loss graph`);
    return entry.tensor;
  }

  /** A handle for one of rlx's tensors. @internal */
  static wrap(graph: LossGraph, t: Tensor): LossTensor {
    return new LossTensor(t, graph);
  }

  private t(x: LossTensor, op: string): Tensor {
    return LossGraph.unwrap(this, x, `${op}'s operand`);
  }

  private o(x: LossOperand, op: string): Operand {
    if (typeof x === 'number') return x;
    return this.t(x, op);
  }

  private w(t: Tensor): LossTensor {
    return new LossTensor(t, this);
  }

  /** A float32 constant: a number (a scalar) or a list (a vector). */
  constant(value: number | readonly number[]): LossTensor {
    return this.w(typeof value === 'number' ? this.g.scalar(value, 'float32') : this.g.const(value));
  }

  add(a: LossOperand, b: LossOperand): LossTensor { return this.w(this.g.add(this.o(a, 'add'), this.o(b, 'add'))); }
  sub(a: LossOperand, b: LossOperand): LossTensor { return this.w(this.g.sub(this.o(a, 'sub'), this.o(b, 'sub'))); }
  mul(a: LossOperand, b: LossOperand): LossTensor { return this.w(this.g.mul(this.o(a, 'mul'), this.o(b, 'mul'))); }
  div(a: LossOperand, b: LossOperand): LossTensor { return this.w(this.g.div(this.o(a, 'div'), this.o(b, 'div'))); }
  pow(a: LossOperand, b: LossOperand): LossTensor { return this.w(this.g.pow(this.o(a, 'pow'), this.o(b, 'pow'))); }
  /** Elementwise minimum and maximum. */
  min(a: LossOperand, b: LossOperand): LossTensor { return this.w(this.g.min(this.o(a, 'min'), this.o(b, 'min'))); }
  max(a: LossOperand, b: LossOperand): LossTensor { return this.w(this.g.max(this.o(a, 'max'), this.o(b, 'max'))); }
  neg(x: LossTensor): LossTensor { return this.w(this.g.neg(this.t(x, 'neg'))); }
  abs(x: LossTensor): LossTensor { return this.w(this.g.abs(this.t(x, 'abs'))); }
  exp(x: LossTensor): LossTensor { return this.w(this.g.exp(this.t(x, 'exp'))); }
  log(x: LossTensor): LossTensor { return this.w(this.g.log(this.t(x, 'log'))); }
  sqrt(x: LossTensor): LossTensor { return this.w(this.g.sqrt(this.t(x, 'sqrt'))); }
  square(x: LossTensor): LossTensor { return this.w(this.g.square(this.t(x, 'square'))); }
  tanh(x: LossTensor): LossTensor { return this.w(this.g.tanh(this.t(x, 'tanh'))); }
  sigmoid(x: LossTensor): LossTensor { return this.w(this.g.sigmoid(this.t(x, 'sigmoid'))); }
  softplus(x: LossTensor): LossTensor { return this.w(this.g.softplus(this.t(x, 'softplus'))); }
  relu(x: LossTensor): LossTensor { return this.w(this.g.relu(this.t(x, 'relu'))); }
  /** Clamps to [lo, hi] (numbers or tensors; either may be left out). */
  clip(x: LossTensor, lo?: LossOperand, hi?: LossOperand): LossTensor {
    return this.w(this.g.clip(this.t(x, 'clip'), lo === undefined ? undefined : this.o(lo, 'clip'), hi === undefined ? undefined : this.o(hi, 'clip')));
  }

  /** Comparisons: bool tensors, for where() and for masks (cast them to float first). */
  less(a: LossOperand, b: LossOperand): LossTensor { return this.w(this.g.less(this.o(a, 'less'), this.o(b, 'less'))); }
  lessOrEqual(a: LossOperand, b: LossOperand): LossTensor { return this.w(this.g.lessOrEqual(this.o(a, 'lessOrEqual'), this.o(b, 'lessOrEqual'))); }
  greater(a: LossOperand, b: LossOperand): LossTensor { return this.w(this.g.greater(this.o(a, 'greater'), this.o(b, 'greater'))); }
  greaterOrEqual(a: LossOperand, b: LossOperand): LossTensor { return this.w(this.g.greaterOrEqual(this.o(a, 'greaterOrEqual'), this.o(b, 'greaterOrEqual'))); }
  /** `a` where `cond` (a bool tensor) holds, else `b`. */
  where(cond: LossTensor, a: LossOperand, b: LossOperand): LossTensor { return this.w(this.g.where(this.t(cond, 'where'), this.o(a, 'where'), this.o(b, 'where'))); }
  /** A bool (or int) tensor as float32: 1 where true. */
  toFloat(x: LossTensor): LossTensor { return this.w(this.g.cast(this.t(x, 'toFloat'), 'float32')); }

  /** Sum, mean and maximum over axes (all of them by default: a scalar). */
  sum(x: LossTensor, options: AxesOptions = {}): LossTensor { return this.w(this.g.reduceSum(this.t(x, 'sum'), options)); }
  mean(x: LossTensor, options: AxesOptions = {}): LossTensor { return this.w(this.g.reduceMean(this.t(x, 'mean'), options)); }
  maxOver(x: LossTensor, options: AxesOptions = {}): LossTensor { return this.w(this.g.reduceMax(this.t(x, 'maxOver'), options)); }

  /** The same values with no gradient flowing back through them (a baseline, a target). */
  stopGradient(x: LossTensor): LossTensor { return this.w(this.g.stopGradient(this.t(x, 'stopGradient'))); }
  /** ONNX Reshape: 0 keeps that dim, -1 takes what is left (`[-1, groupSize]` makes groups of a [B] vector). */
  reshape(x: LossTensor, shape: readonly number[]): LossTensor { return this.w(this.g.reshape(this.t(x, 'reshape'), shape)); }
  unsqueeze(x: LossTensor, axes: readonly number[]): LossTensor { return this.w(this.g.unsqueeze(this.t(x, 'unsqueeze'), axes)); }
  squeeze(x: LossTensor, axes: readonly number[]): LossTensor { return this.w(this.g.squeeze(this.t(x, 'squeeze'), axes)); }
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') return `an object (${(value as object).constructor?.name ?? 'Object'})`;
  return `${typeof value} ${String(value).slice(0, 40)}`;
}
