// Incremental reparsing at declaration granularity: an edit after the name of a top-level
// declaration parses a slice of the file again, from that declaration to the end of an
// unchanged one after the edit (the anchor); the other declarations are kept and those behind
// the edit moved. The result is always what parse() of the whole file gives, syntax errors
// included; anything less clear-cut parses the whole file.
//
// Why the slice gives what the whole file gives. The parser meets the edited declaration in
// the same state either way (at the top level, after error-free declarations) and reads the
// same tokens until the slice ends. It looks at most three tokens ahead, and its error recovery
// stops at the first token that could follow a declaration, which is nearly any token. So as
// long as the anchor (at least four tokens: `env A {}`) comes back from the slice at its place,
// as it was, the edited part never saw the slice's end, and the parser entered the anchor at
// the top level just as it did before the edit, so everything from the anchor on parses as
// before. The randomized test in test/dsl/incremental.test.ts holds this to parse().
import type * as A from './ast.js';
import { parse, type ParseResult, type SyntaxError } from './parse.js';
import { shifted, shiftedComment, shiftedLazily, shiftedLeaf } from './shift.js';

export function reparse(previous: ParseResult, oldText: string, newText: string): ParseResult {
  if (oldText === newText) return previous;
  return reparseDeclaration(previous, oldText, newText) ?? parse(newText);
}

/** The new parse when the edit lies inside one declaration and the slice settles it, else undefined. */
function reparseDeclaration(previous: ParseResult, oldText: string, newText: string): ParseResult | undefined {
  const { start, oldEnd, newEnd } = changedRegion(oldText, newText);
  const delta = newEnd - oldEnd;
  const { declarations } = previous.file;
  // The edited declaration is the last one whose keyword and name come before the edit: the
  // parse of the declaration before it may have looked at them, so they must stay as they were.
  let index = -1;
  while (index + 1 < declarations.length && (declarations[index + 1].name?.range.end ?? Infinity) < start) index++;
  if (index < 0) return undefined;
  const edited = declarations[index];
  // The anchor: the first declaration wholly behind the edit of at least four tokens.
  let anchorIndex = index + 1;
  while (anchorIndex < declarations.length && (declarations[anchorIndex].range.start < oldEnd || !hasFourTokens(declarations[anchorIndex]))) anchorIndex++;
  const anchor = declarations[anchorIndex] as A.Declaration | undefined;
  // Earlier errors must lie in the part parsed again (an error at the anchor's keyword is a
  // missing '}' before it); others could mean the parser met this part in another state.
  const limit = anchor ? anchor.range.start : Infinity;
  if (!previous.errors.every((e) => e.range.start > edited.range.start && e.range.start <= limit)) return undefined;

  const from = edited.range.start;
  const oldTo = anchor ? anchor.range.end : oldText.length;
  const partial = parse(newText.slice(from, oldTo + delta));

  // Without an anchor the slice runs to the end of the file: what it gives is the file's tail.
  let parsed = partial.file.declarations;
  if (anchor) {
    const last = parsed[parsed.length - 1];
    if (!last || !sameShifted(anchor, last, delta - from)) return undefined;
    if (partial.errors.some((e) => e.range.start > last.range.start)) return undefined;
    parsed = parsed.slice(0, -1);
  }
  if (parsed.length === 0 || parsed[0].range.start !== 0) return undefined;

  const before = (r: A.Range) => r.end <= from;
  const behind = (r: A.Range) => r.start >= oldTo;
  const file: A.SourceFile = {
    kind: 'File',
    imports: [
      ...previous.file.imports.filter((i) => before(i.range)),
      ...partial.file.imports.map((i) => shifted(i, from)),
      ...previous.file.imports.filter((i) => behind(i.range)).map((i) => shifted(i, delta)),
    ],
    declarations: [
      ...declarations.slice(0, index),
      // The slice has nothing above the edited declaration, so its doc comment is the old one.
      ...parsed.map((d, k) => shifted(k === 0 ? { ...d, doc: edited.doc } : d, from)),
      ...declarations.slice(anchorIndex).map((d) => shiftedLazily(d, delta)),
    ],
    comments: [
      ...previous.file.comments.filter((c) => before(c.range)),
      ...partial.file.comments.map((c) => shiftedComment(c, from)),
      ...previous.file.comments.filter((c) => behind(c.range)).map((c) => shiftedComment(c, delta)),
    ],
    range: { start: 0, end: newText.length },
  };
  // Every earlier error lay in the edited declaration, so the slice's errors are all there are.
  const errors: SyntaxError[] = partial.errors.map((e) => shiftedLeaf(e, from));
  return { file, errors };
}

/**
 * `env A {}`, or `env A = B` without a body (a file of such lines, 100k of them, otherwise had no
 * anchor and parsed from the edit to its end on every keystroke).
 */
function hasFourTokens(decl: A.Declaration): boolean {
  return decl.body?.closed === true || (decl.name !== undefined && decl.body === undefined && (decl.base?.name.parts.length ?? 0) > 0);
}

/** The span that differs: common prefix and suffix removed (they may not overlap). */
function changedRegion(a: string, b: string): { start: number; oldEnd: number; newEnd: number } {
  const max = Math.min(a.length, b.length);
  // Whole blocks first: comparing substrings runs in native code, a char at a time does not.
  let start = 0;
  while (start + BLOCK <= max && a.slice(start, start + BLOCK) === b.slice(start, start + BLOCK)) start += BLOCK;
  while (start < max && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let suffix = 0;
  while (suffix + BLOCK <= max - start && a.slice(a.length - suffix - BLOCK, a.length - suffix) === b.slice(b.length - suffix - BLOCK, b.length - suffix)) suffix += BLOCK;
  while (suffix < max - start && a.charCodeAt(a.length - 1 - suffix) === b.charCodeAt(b.length - 1 - suffix)) suffix++;
  return { start, oldEnd: a.length - suffix, newEnd: b.length - suffix };
}

const BLOCK = 256;

/** Whether `b` is `a` with every range moved by `delta`. */
function sameShifted(a: unknown, b: unknown, delta: number): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameShifted(item, b[i], delta));
  if (a === null || typeof a !== 'object') return a === b;
  if (b === null || typeof b !== 'object' || Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  return keys.every((key) => {
    if (!(key in y)) return false;
    if (key !== 'range' && key !== 'keywordRange') return sameShifted(x[key], y[key], delta);
    const r = x[key] as A.Range;
    const s = y[key] as A.Range;
    return r.start + delta === s.start && r.end + delta === s.end;
  });
}
