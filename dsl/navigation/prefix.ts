// Where the cursor is, read from the text before it. While typing, the text is incomplete
// (`algorithm X = PPO { lea`, `epochs: `, `linear(1, `) and the parser's recovery can attach the
// next line to the wrong place; a small pushdown reader over the tokens from the start of the
// enclosing declaration to the cursor knows better: which declaration and body the cursor is in,
// whether a property name or a value is being typed, and inside which calls and lists.
// Completion and signature help read this; hover and the like use the syntax tree instead.
import type { IToken } from 'chevrotain';
import type * as A from '../index.js';
import { rlxLexer } from '../syntax/tokens.js';
import { DECL_KEYWORDS, LITERALS, NAME_LIKE, newValue, readValueToken, type OpenBracket, type Token, type ValueReading } from './value-reader.js';

export type { OpenBracket };

/** The body the cursor is in: a declaration's, a block's (`eval { }`) or a stage's. */
export type BodyFrame = { kind: 'declaration' } | { kind: 'block'; name: string } | { kind: 'stage'; base: string | undefined } | { kind: 'unknown' };

export interface ExpressionPlace {
  /** `obs.|` -> ['obs']; undefined when no qualifier precedes the word. */
  qualifier: string[] | undefined;
  /** Innermost last. */
  open: OpenBracket[];
}

export type Place =
  | { kind: 'top' }
  | { kind: 'declaration-name' }
  | { kind: 'after-name'; declKind: A.DeclKind }
  | { kind: 'base'; declKind: A.DeclKind }
  | { kind: 'base-arguments'; index: number }
  | { kind: 'over' }
  | { kind: 'member'; body: BodyFrame[] }
  /** `algorithm.|` in a property path (sweeps). */
  | { kind: 'path'; body: BodyFrame[]; segments: string[] }
  /** A property's value, or (property undefined) a term's expression. */
  | { kind: 'value'; body: BodyFrame[]; property: string[] | undefined; expression: ExpressionPlace }
  | { kind: 'stage-base'; body: BodyFrame[] }
  | { kind: 'none' };

export interface Scan {
  place: Place;
  /** The declaration the place is in (its keyword's offset), when inside one. */
  declarationAt: number | undefined;
  /** The word under the cursor (possibly empty): what a completion replaces. */
  word: A.Range;
  /** The part of the word before the cursor. */
  typed: string;
}

type Header = { step: 'keyword' | 'name' | 'base' | 'base-arguments' | 'over' | 'done'; declKind: A.DeclKind; start: number; depth: number; index: number; hasBase: boolean };
type Member =
  | { at: 'start' }
  | { at: 'path'; segments: string[]; afterDot: boolean }
  | { at: 'value'; path: string[] | undefined; stage: boolean; expr: ValueReading }
  | { at: 'named'; stage: boolean; step: 'keyword' | 'name' };
class Reader {
  frames: BodyFrame[] = [];
  header: Header | undefined;
  member: Member = { at: 'start' };

  constructor(private readonly tokens: Token[]) {}

  run(): void {
    this.tokens.forEach((t, i) => this.feed(t, this.tokens[i + 1]));
  }

  private feed(t: Token, next: Token | undefined): void {
    if (this.frames.length === 0) return this.headerToken(t);
    const m = this.member;
    // `policy Actor` where a member should start is the next declaration after a missing '}'.
    if (m.at === 'start' && DECL_KEYWORDS.has(t.type) && next?.type === 'Identifier') {
      this.frames = [];
      return this.headerToken(t);
    }
    if (m.at === 'start') return this.memberStart(t);
    if (m.at === 'path') return this.path(m, t);
    if (m.at === 'named') {
      if (m.step === 'keyword' && t.type === 'Identifier') m.step = 'name';
      else if (t.type === 'Equals') this.member = { at: 'value', path: undefined, stage: m.stage, expr: newValue() };
      else if (t.type === 'RBrace') this.close();
      return;
    }
    const outcome = readValueToken(m.expr, t);
    if (outcome === 'brace') {
      this.frames.push(m.stage ? { kind: 'stage', base: m.expr.name?.join('.') } : { kind: 'unknown' });
      this.member = { at: 'start' };
    } else if (outcome === 'ended') {
      this.member = { at: 'start' };
      this.feed(t, next);
    }
  }

  private headerToken(t: Token): void {
    const h = this.header;
    if (DECL_KEYWORDS.has(t.type)) {
      this.header = { step: 'keyword', declKind: t.text as A.DeclKind, start: t.start, depth: 0, index: 0, hasBase: false };
      return;
    }
    if (!h) return;
    if (t.type === 'LBrace' && h.step !== 'base-arguments') {
      h.step = 'done';
      this.frames = [{ kind: 'declaration' }];
      this.member = { at: 'start' };
      return;
    }
    switch (h.step) {
      case 'keyword': if (t.type === 'Identifier') h.step = 'name'; return;
      case 'name':
        if (t.type === 'Equals') h.step = 'base';
        else if (t.type === 'Kw_over') h.step = 'over';
        return;
      case 'base':
        if (t.type === 'LParen') h.step = 'base-arguments';
        else if (NAME_LIKE.has(t.type)) h.hasBase = true;
        return;
      case 'base-arguments':
        if (t.type === 'LParen') h.depth++;
        else if (t.type === 'Comma' && h.depth === 0) h.index++;
        else if (t.type === 'RParen' && h.depth-- === 0) h.step = 'done';
        return;
      case 'over': if (NAME_LIKE.has(t.type)) h.step = 'done'; return;
      default: return;
    }
  }

  private memberStart(t: Token): void {
    if (t.type === 'RBrace') this.close();
    else if (t.type === 'Kw_term' || t.type === 'Kw_stage') this.member = { at: 'named', stage: t.type === 'Kw_stage', step: 'keyword' };
    else if (NAME_LIKE.has(t.type)) this.member = { at: 'path', segments: [t.text], afterDot: false };
  }

  private path(m: Member & { at: 'path' }, t: Token): void {
    if (t.type === 'Dot') m.afterDot = true;
    else if (NAME_LIKE.has(t.type)) {
      if (m.afterDot) m.segments.push(t.text);
      else m.segments = [t.text]; // the previous name had no value: a new member starts
      m.afterDot = false;
    } else if (t.type === 'Colon') this.member = { at: 'value', path: m.segments, stage: false, expr: newValue() };
    else if (t.type === 'LBrace') {
      this.frames.push(m.segments.length === 1 && !m.afterDot ? { kind: 'block', name: m.segments[0] } : { kind: 'unknown' });
      this.member = { at: 'start' };
    } else if (t.type === 'RBrace') this.close();
    else if (t.type === 'Comma') this.member = { at: 'start' };
  }

  private close(): void {
    this.frames.pop();
    this.member = { at: 'start' };
    if (this.frames.length === 0) this.header = undefined;
  }

  /** The place after the last token, given whether a line break separates it from the cursor's word. */
  place(lineBreakBefore: boolean): Place {
    const h = this.header;
    if (this.frames.length === 0) {
      if (!h) return { kind: 'top' };
      // A declaration without a body (`env Swing = Pendulum`) ends with its line.
      const complete = h.step === 'done' || h.step === 'name' || (h.step === 'base' && h.hasBase);
      if (complete && lineBreakBefore) return { kind: 'top' };
      switch (h.step) {
        case 'keyword': return { kind: 'declaration-name' };
        case 'name': return { kind: 'after-name', declKind: h.declKind };
        case 'base': return h.hasBase ? { kind: 'none' } : { kind: 'base', declKind: h.declKind };
        case 'base-arguments': return { kind: 'base-arguments', index: h.index };
        case 'over': return { kind: 'over' };
        default: return { kind: 'none' };
      }
    }
    const body = [...this.frames];
    const m = this.member;
    if (m.at === 'start') return { kind: 'member', body };
    if (m.at === 'path') return m.afterDot ? { kind: 'path', body, segments: m.segments } : { kind: 'member', body };
    if (m.at === 'named') return { kind: 'none' };
    const e = m.expr;
    if (e.afterDot && e.name) return { kind: 'value', body, property: m.path, expression: { qualifier: e.name, open: e.open } };
    // A value ends at a line break after it, and one is rarely started on the line after its
    // colon (`epochs:⏎  gam|` is a property being added below an unfinished one).
    if (e.open.length === 0 && lineBreakBefore && (!e.operand || e.empty)) return { kind: 'member', body };
    if (!e.operand) return { kind: 'none' };
    if (m.stage && e.open.length === 0) return { kind: 'stage-base', body };
    return { kind: 'value', body, property: m.path, expression: { qualifier: undefined, open: e.open } };
  }
}

/** The tokens of `file` from the start of the declaration around `offset` up to it (and that start). */
function tokensBefore(text: string, file: A.SourceFile, offset: number): { tokens: Token[]; from: number; inComment: boolean } {
  const decls = file.declarations.filter((d) => d.keywordRange.start < offset);
  const from = decls.length > 0 ? decls[decls.length - 1].keywordRange.start : 0;
  const lexed = rlxLexer.tokenize(text.slice(from, offset));
  const comments = lexed.groups.comments ?? [];
  const lastComment = comments[comments.length - 1];
  // A line comment that reaches the cursor holds it; a block comment that ends at it does not.
  const inComment = lastComment !== undefined && from + lastComment.startOffset + lastComment.image.length === offset && !lastComment.image.startsWith('/*');
  const tokens = lexed.tokens.map((t: IToken) => ({ type: t.tokenType.name, text: t.image, start: from + t.startOffset, end: from + t.startOffset + t.image.length }));
  return { tokens, from, inComment };
}

/** Where a completion at `offset` is: the word being typed, and the place before it. */
export function scanBefore(text: string, file: A.SourceFile, offset: number): Scan {
  const { tokens, from, inComment } = tokensBefore(text, file, offset);
  let word: A.Range = { start: offset, end: offset };
  const last = tokens[tokens.length - 1];
  if (inComment) return { place: { kind: 'none' }, declarationAt: undefined, word, typed: '' };
  if (last && last.end === offset) {
    // Right after a literal or a closing bracket there is nothing to complete.
    const literal = LITERALS.has(last.type) && !/^Kw_(true|false|none)$/.test(last.type);
    if (literal || /^R(Paren|Bracket|Brace)$/.test(last.type)) return { place: { kind: 'none' }, declarationAt: undefined, word, typed: '' };
    if (NAME_LIKE.has(last.type) || /^Kw_(true|false|none)$/.test(last.type)) {
      tokens.pop();
      word = { start: last.start, end: offset + /^[A-Za-z0-9_]*/.exec(text.slice(offset))![0].length };
    }
  }
  const reader = new Reader(tokens);
  reader.run();
  const before = tokens[tokens.length - 1];
  const lineBreak = /\n/.test(text.slice(before?.end ?? from, word.start));
  return { place: reader.place(lineBreak), declarationAt: reader.header?.start, word, typed: text.slice(word.start, offset) };
}

/** The calls open at `offset` (for signature help): in a value, or in a base's arguments (`module(`). */
export interface OpenCalls {
  declarationAt: number | undefined;
  /** The argument index inside `module(...)` of a declaration's base. */
  baseArgument: number | undefined;
  value: { body: BodyFrame[]; property: string[] | undefined; open: OpenBracket[] } | undefined;
}

export function callsBefore(text: string, file: A.SourceFile, offset: number): OpenCalls {
  const { tokens, inComment } = tokensBefore(text, file, offset);
  const reader = new Reader(inComment ? [] : tokens);
  reader.run();
  const h = reader.header;
  const m = reader.member;
  return {
    declarationAt: h?.start,
    baseArgument: reader.frames.length === 0 && h?.step === 'base-arguments' ? h.index : undefined,
    value: reader.frames.length > 0 && m.at === 'value' ? { body: [...reader.frames], property: m.path, open: m.expr.open } : undefined,
  };
}
