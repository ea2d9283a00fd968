// Moving syntax subtrees by a number of characters, for incremental reparsing: after an edit
// every node behind it keeps its shape but sits `delta` characters further on. Ranges live under
// the keys `range` and `keywordRange` (see ast.ts).
import type * as A from './ast.js';

const isRangeKey = (key: string) => key === 'range' || key === 'keywordRange';

/** A copy of a syntax subtree with every range moved by `delta` (the node itself when 0). */
export function shifted<T>(node: T, delta: number): T {
  return delta === 0 ? node : (copyShifted(node, delta) as T);
}

function copyShifted(value: unknown, delta: number): unknown {
  if (Array.isArray(value)) return value.map((item) => copyShifted(item, delta));
  if (value === null || typeof value !== 'object') return value;
  // A spread keeps the node's hidden class, so the copy is as fast to read as the original.
  const out: Record<string, unknown> = { ...value };
  for (const key in out) {
    const v = out[key];
    if (v === null || typeof v !== 'object') continue;
    out[key] = isRangeKey(key) ? movedRange(v as A.Range, delta) : copyShifted(v, delta);
  }
  return out;
}

function movedRange(r: A.Range, delta: number): A.Range {
  return { start: r.start + delta, end: r.end + delta };
}

/** Where a lazily moved declaration came from: the original tree and the total move. */
const origins = new WeakMap<A.Declaration, { decl: A.Declaration; delta: number }>();

/**
 * A declaration moved by `delta` whose subtrees (base, over, body) are copied on first read.
 * An edit that changes the file's length moves every declaration behind it; copying them all
 * took most of a reparse, while the reads right after an edit (the model's index of names,
 * completion, hover) touch only the names and ranges of most of them. A declaration moved
 * again is moved from its original tree, so edits never stack copies on copies. (A field added
 * to A.Declaration must be added here: test/dsl/incremental.test.ts compares with shifted().)
 */
export function shiftedLazily(decl: A.Declaration, delta: number): A.Declaration {
  if (delta === 0) return decl;
  const origin = origins.get(decl);
  const source = origin?.decl ?? decl;
  const total = (origin?.delta ?? 0) + delta;
  let subtrees: Pick<A.Declaration, 'base' | 'over' | 'body'> | undefined;
  const moved = () => (subtrees ??= { base: shifted(source.base, total), over: shifted(source.over, total), body: shifted(source.body, total) });
  const out: A.Declaration = {
    kind: source.kind,
    declKind: source.declKind,
    keywordRange: movedRange(source.keywordRange, total),
    name: source.name && { kind: 'Identifier', text: source.name.text, range: movedRange(source.name.range, total) },
    get base() { return moved().base; },
    get over() { return moved().over; },
    get body() { return moved().body; },
    doc: source.doc,
    range: movedRange(source.range, total),
  };
  origins.set(out, { decl: source, delta: total });
  return out;
}

/** A node with one range and no children (an error, say) moved by `delta`. */
export function shiftedLeaf<T extends { range: A.Range }>(node: T, delta: number): T {
  return delta === 0 ? node : { ...node, range: movedRange(node.range, delta) };
}

/** A comment moved by `delta`, built field by field: a file has thousands, and a spread is slower. */
export function shiftedComment(c: A.Comment, delta: number): A.Comment {
  return delta === 0 ? c : { kind: 'Comment', style: c.style, text: c.text, range: movedRange(c.range, delta) };
}
