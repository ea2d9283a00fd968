// Incremental reparsing at declaration granularity. Top-level declarations are independent in
// the grammar, so an edit strictly inside one of them needs only that one parsed again; the
// others are kept and their ranges shifted. Anything less clear-cut (an edit between
// declarations, one that breaks the syntax, a file that already had errors) parses the whole
// file again, so the result is always what parse() would give.
import type * as A from './ast.js';
import { parse, type ParseResult } from './parse.js';

export function reparse(previous: ParseResult, oldText: string, newText: string): ParseResult {
  if (previous.errors.length > 0 || oldText === newText) return oldText === newText ? previous : parse(newText);
  const { start, oldEnd, newEnd } = changedRegion(oldText, newText);
  const delta = newEnd - oldEnd;
  const declarations = previous.file.declarations;
  const index = declarations.findIndex((d) => d.range.start < start && oldEnd < d.range.end);
  if (index < 0) return parse(newText);
  const old = declarations[index];
  const sliceEnd = old.range.end + delta;
  const slice = newText.slice(old.range.start, sliceEnd);
  const partial = parse(slice);
  const fresh = partial.file.declarations[0];
  if (partial.errors.length > 0 || partial.file.imports.length > 0 || partial.file.declarations.length !== 1
    || fresh.range.start !== 0 || fresh.range.end !== slice.length || !fresh.body?.closed) {
    return parse(newText);
  }
  const replacement = shift({ ...fresh, doc: old.doc }, old.range.start);
  const after = (r: A.Range) => r.start >= old.range.end;
  const file: A.SourceFile = {
    kind: 'File',
    imports: previous.file.imports.map((i) => (after(i.range) ? shift(i, delta) : i)),
    declarations: [
      ...declarations.slice(0, index),
      replacement,
      ...declarations.slice(index + 1).map((d) => shift(d, delta)),
    ],
    comments: [
      ...previous.file.comments.filter((c) => c.range.end <= old.range.start),
      ...partial.file.comments.map((c) => shift(c, old.range.start)),
      ...previous.file.comments.filter((c) => after(c.range)).map((c) => shift(c, delta)),
    ],
    range: { start: 0, end: newText.length },
  };
  return { file, errors: [] };
}

/** The span that differs: common prefix and suffix removed (they may not overlap). */
function changedRegion(a: string, b: string): { start: number; oldEnd: number; newEnd: number } {
  const max = Math.min(a.length, b.length);
  let start = 0;
  while (start < max && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let suffix = 0;
  while (suffix < max - start && a.charCodeAt(a.length - 1 - suffix) === b.charCodeAt(b.length - 1 - suffix)) suffix++;
  return { start, oldEnd: a.length - suffix, newEnd: b.length - suffix };
}

/** A copy of a syntax subtree with every range moved by `delta`. */
function shift<T>(node: T, delta: number): T {
  if (delta === 0) return node;
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      if (key === 'range' || key === 'keywordRange') {
        const r = v as A.Range;
        out[key] = { start: r.start + delta, end: r.end + delta };
      } else {
        out[key] = walk(v);
      }
    }
    return out;
  };
  return walk(node) as T;
}
