// The trainable weights: named float32 arrays with shapes. The arrays are owned here and
// updated in place by the optimisers, so sessions can keep feeding the same buffers. In the
// graph each is a Param leaf (g.param), fed by name from this store. Writes other than the
// optimiser's go through the methods here, which tell the optimiser (weight-writes.ts).

import type { Graph } from './graph.js';
import type { Tensor } from './tensor.js';
import { formatShape, numel } from './types.js';
import { markWritten } from './weight-writes.js';

export interface Weight {
  readonly name: string;
  readonly shape: readonly number[];
  /** The float32 values; a weight kept in half precision (`half`) has none: reading this throws, naming it. */
  readonly data: Float32Array;
  /**
   * The float16 bits of a frozen weight kept in half precision (addHalf): a LoRA base read from
   * a half-width checkpoint, half the bytes of float32. It is fed as float16 and cast up to
   * float32 inside each graph that reads it (declare), so products still compute in float32.
   */
  readonly half?: Uint16Array;
}

/** A weight kept in half precision: its float32 `data` does not exist, and a reader that asks is a bug worth naming. */
class HalfWeight implements Weight {
  constructor(
    readonly name: string,
    readonly shape: readonly number[],
    readonly half: Uint16Array,
  ) {}

  get data(): Float32Array {
    throw new Error(`WeightStore: weight '${this.name}' is kept in float16 (half storage); read its \`half\` bits (a bug: this reader does not handle half weights)`);
  }
}

/** A plain copy of the weights, for checkpoints. */
export type WeightSnapshot = Record<string, { shape: number[]; data: Float32Array }>;

export class WeightStore {
  private readonly byName = new Map<string, Weight>();

  /** Adds a weight; `init` is its initial data (copied) or a function making it. Zeros by default. */
  add(name: string, shape: readonly number[], init?: ArrayLike<number> | ((size: number, shape: readonly number[]) => ArrayLike<number>)): Float32Array {
    if (this.byName.has(name)) throw new Error(`WeightStore: weight '${name}' already exists`);
    if (!shape.every((d) => Number.isInteger(d) && d > 0)) throw new Error(`WeightStore: '${name}' has a bad shape ${formatShape(shape)}`);
    const size = numel(shape);
    const values = typeof init === 'function' ? init(size, shape) : init;
    const data = new Float32Array(size);
    if (values !== undefined) {
      if (values.length !== size) throw new Error(`WeightStore: '${name}' ${formatShape(shape)} needs ${size} values, got ${values.length}`);
      data.set(values);
    }
    this.byName.set(name, { name, shape: [...shape], data });
    return data;
  }

  /** Adds a frozen weight kept as float16 bits (not copied): fed as float16, cast to float32 by the graphs that declare it. */
  addHalf(name: string, shape: readonly number[], half: Uint16Array): void {
    if (this.byName.has(name)) throw new Error(`WeightStore: weight '${name}' already exists`);
    if (half.length !== numel(shape)) throw new Error(`WeightStore: '${name}' ${formatShape(shape)} needs ${numel(shape)} values, got ${half.length}`);
    this.byName.set(name, new HalfWeight(name, [...shape], half));
  }

  /** Whether any weight is kept in half precision. */
  get holdsHalf(): boolean {
    for (const p of this.byName.values()) if (p.half) return true;
    return false;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  find(name: string): Weight | undefined {
    return this.byName.get(name);
  }

  get(name: string): Weight {
    const p = this.byName.get(name);
    if (!p) throw new Error(`WeightStore: no weight '${name}' (have: ${this.names.join(', ') || 'none'})`);
    return p;
  }

  /** Names in insertion order; grads and optimiser state follow this order. */
  get names(): string[] {
    return [...this.byName.keys()];
  }

  /** The live arrays in insertion order (hand these to an optimiser). */
  get values(): Float32Array[] {
    return [...this.byName.values()].map((p) => p.data);
  }

  get size(): number {
    let n = 0;
    for (const p of this.byName.values()) n += numel(p.shape);
    return n;
  }

  /** Declares every weight in `graph` (g.param) and returns them by name. */
  declare(graph: Graph): Record<string, Tensor> {
    const out: Record<string, Tensor> = {};
    for (const p of this.byName.values()) out[p.name] = declareWeight(graph, p);
    return out;
  }

  /** Copies values from another store with the same names and shapes (hard target update). */
  copyFrom(source: WeightStore): void {
    for (const p of this.byName.values()) {
      p.data.set(this.matching(source, p).data);
      markWritten(p.data);
    }
  }

  /** this = (1 - tau) * this + tau * source (Polyak / soft target update). */
  lerpFrom(source: WeightStore, tau: number): void {
    for (const p of this.byName.values()) {
      const s = this.matching(source, p).data;
      for (let i = 0; i < p.data.length; i++) p.data[i] = p.data[i]! + tau * (s[i]! - p.data[i]!);
      markWritten(p.data);
    }
  }

  /**
   * A store over the same arrays as `stores` (not copies): one loss over several networks
   * (an actor and its critics) feeds them all, while each network keeps its own store.
   */
  static union(...stores: readonly WeightStore[]): WeightStore {
    const union = new WeightStore();
    for (const store of stores) {
      for (const p of store.byName.values()) {
        if (union.byName.has(p.name)) throw new Error(`WeightStore.union: weight '${p.name}' is in two stores`);
        union.byName.set(p.name, p);
      }
    }
    return union;
  }

  clone(): WeightStore {
    const copy = new WeightStore();
    for (const p of this.byName.values()) copy.add(p.name, p.shape, p.data);
    return copy;
  }

  snapshot(): WeightSnapshot {
    const out: WeightSnapshot = {};
    for (const p of this.byName.values()) out[p.name] = { shape: [...p.shape], data: p.data.slice() };
    return out;
  }

  /** Loads a snapshot into the existing arrays (names and shapes must match). */
  load(snapshot: WeightSnapshot): void {
    for (const p of this.byName.values()) {
      const s = snapshot[p.name];
      if (!s) throw new Error(`WeightStore.load: snapshot has no '${p.name}'`);
      if (s.shape.join(',') !== p.shape.join(',')) {
        throw new Error(`WeightStore.load: '${p.name}' is ${formatShape(p.shape)} here but ${formatShape(s.shape)} in the snapshot`);
      }
      p.data.set(s.data);
      markWritten(p.data);
    }
  }

  private matching(source: WeightStore, p: Weight): Weight {
    const s = source.get(p.name);
    if (s.data.length !== p.data.length) throw new Error(`WeightStore: '${p.name}' sizes differ (${p.data.length} vs ${s.data.length})`);
    return s;
  }
}

/** `p` as a param of `graph`: float32, or a half weight's float16 param cast up at once (the graph computes in float32). */
export function declareWeight(graph: Graph, p: Pick<Weight, 'name' | 'shape' | 'half'>): Tensor {
  return p.half ? graph.cast(graph.param(p.name, p.shape, 'float16'), 'float32') : graph.param(p.name, p.shape);
}
