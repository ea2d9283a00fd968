// Static shape inference helpers. Shapes may hold symbols ('B'); inference keeps
// them where it can and invents anonymous '?n' dims where it cannot.

import { type Dim, type Shape, formatShape } from './types.js';

let unknownCounter = 0;

/** A fresh anonymous dimension, distinct from every other. */
export function unknownDim(): Dim {
  return `?${++unknownCounter}`;
}

export function isUnknownDim(d: Dim): boolean {
  return typeof d === 'string' && d.startsWith('?');
}

/** numpy-style broadcast of two shapes; `op` names the caller in errors. */
export function broadcastShapes(a: Shape, b: Shape, op: string): Dim[] {
  const rank = Math.max(a.length, b.length);
  const out: Dim[] = [];
  for (let i = 0; i < rank; i++) {
    const da = i < rank - a.length ? 1 : a[i - (rank - a.length)]!;
    const db = i < rank - b.length ? 1 : b[i - (rank - b.length)]!;
    out.push(broadcastDim(da, db, () => `${op}: shapes ${formatShape(a)} and ${formatShape(b)} do not broadcast`));
  }
  return out;
}

function broadcastDim(a: Dim, b: Dim, fail: () => string): Dim {
  if (a === b) return a;
  if (a === 1) return b;
  if (b === 1) return a;
  if (typeof a === 'number' && typeof b === 'number') throw new Error(fail());
  // A symbol against a size: the symbol must equal that size at run time.
  if (typeof a === 'number') return a;
  if (typeof b === 'number') return b;
  // Two different symbols: equal at run time, but we cannot say which name to keep.
  return isUnknownDim(a) ? b : a;
}

/** Normalises a possibly negative axis; `op` names the caller in errors. */
export function normalizeAxis(axis: number, rank: number, op: string): number {
  if (!Number.isInteger(axis) || axis < -rank || axis >= rank) {
    throw new Error(`${op}: axis ${axis} is out of range for rank ${rank}`);
  }
  return axis < 0 ? axis + rank : axis;
}

/** Normalised, sorted, duplicate-free axes; undefined means all axes. */
export function normalizeAxes(axes: readonly number[] | undefined, rank: number, op: string): number[] {
  if (axes === undefined) return [...Array(rank).keys()];
  const out = [...new Set(axes.map((a) => normalizeAxis(a, rank, op)))].sort((x, y) => x - y);
  if (out.length !== axes.length) throw new Error(`${op}: repeated axis in [${axes.join(', ')}]`);
  return out;
}

export function reducedShape(shape: Shape, axes: readonly number[], keepdims: boolean): Dim[] {
  const out: Dim[] = [];
  shape.forEach((d, i) => {
    if (!axes.includes(i)) out.push(d);
    else if (keepdims) out.push(1);
  });
  return out;
}

/** Output shape after inserting size-1 dims at `axes` (axes refer to the output rank). */
export function unsqueezedShape(shape: Shape, axes: readonly number[]): Dim[] {
  const out: Dim[] = [];
  let src = 0;
  for (let i = 0; i < shape.length + axes.length; i++) out.push(axes.includes(i) ? 1 : shape[src++]!);
  return out;
}

/** MatMul of rank >= 2 operands with broadcast batch dims. */
export function matmulShape(a: Shape, b: Shape): Dim[] {
  if (a.length < 2 || b.length < 2) {
    throw new Error(
      `MatMul: both operands need rank >= 2, got ${formatShape(a)} and ${formatShape(b)}; reshape vectors to [1, n] or [n, 1] first`,
    );
  }
  const k1 = a[a.length - 1]!;
  const k2 = b[b.length - 2]!;
  if (typeof k1 === 'number' && typeof k2 === 'number' && k1 !== k2) {
    throw new Error(`MatMul: inner dimensions differ: ${formatShape(a)} @ ${formatShape(b)}`);
  }
  const batch = broadcastShapes(a.slice(0, -2), b.slice(0, -2), 'MatMul');
  return [...batch, a[a.length - 2]!, b[b.length - 1]!];
}

/** True when two shapes could describe the same run-time shape (used to catch bad gradient rules). */
export function shapesCompatible(a: Shape, b: Shape): boolean {
  if (a.length !== b.length) return false;
  return a.every((d, i) => {
    const e = b[i]!;
    return d === e || typeof d === 'string' || typeof e === 'string';
  });
}

/**
 * Shape inference for ONNX Reshape with allowzero = 0: 0 copies the input dim,
 * -1 takes what is left. Symbols in the input carry over where the arithmetic allows.
 */
export function reshapedShape(input: Shape, target: readonly number[]): Dim[] {
  const out: Dim[] = target.map((d, i) => (d === 0 ? input[i]! : d));
  const inferAt = out.indexOf(-1);
  if (inferAt < 0) return out;
  if (out.lastIndexOf(-1) !== inferAt) throw new Error(`Reshape: more than one -1 in [${target.join(', ')}]`);
  const known = out.filter((d, i) => i !== inferAt);
  const knownNumeric = known.filter((d): d is number => typeof d === 'number');
  const knownSymbols = known.filter((d): d is string => typeof d === 'string');
  const inNumeric = input.filter((d): d is number => typeof d === 'number');
  const inSymbols = input.filter((d): d is string => typeof d === 'string');
  const product = (xs: number[]) => xs.reduce((p, x) => p * x, 1);
  // Cancel symbols that appear on both sides; what remains decides the -1.
  const leftover = [...inSymbols];
  for (const s of knownSymbols) {
    const at = leftover.indexOf(s);
    if (at < 0) {
      out[inferAt] = unknownDim();
      return out;
    }
    leftover.splice(at, 1);
  }
  const ratio = product(inNumeric) / product(knownNumeric);
  if (leftover.length === 0 && Number.isInteger(ratio)) out[inferAt] = ratio;
  else if (leftover.length === 1 && ratio === 1) out[inferAt] = leftover[0]!;
  else out[inferAt] = unknownDim();
  return out;
}
