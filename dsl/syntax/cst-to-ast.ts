// Turns Chevrotain's concrete syntax tree into the typed AST of ast.ts. The tree's children are
// read through the types generated from the grammar (cst-types.ts, tools/cst-types.ts), so a
// grammar change that renames or drops a child fails the type check here. Recovery may leave any
// child missing, required ones too, so every lookup here is defensive: a missing piece becomes
// `undefined` in the AST and the syntax error that caused it has already been reported by the
// parser.
import type { CstNode, IToken } from 'chevrotain';
import * as A from './ast.js';
import type * as C from './cst-types.js';
import { unescapeString, parseNumber } from './literals.js';
import { InvalidNumber, UnterminatedString } from './tokens.js';

/** A token is real when the parser did not invent it to recover from an error. */
function realToken(t: IToken | undefined): t is IToken {
  return t !== undefined && !t.isInsertedInRecovery && Number.isFinite(t.startOffset);
}

function tokenRange(t: IToken): A.Range {
  return { start: t.startOffset, end: t.startOffset + t.image.length };
}

/** The first real token of a child list (recovery may have left it out or invented it). */
function tok(list: readonly IToken[] | undefined): IToken | undefined {
  const t = list?.[0];
  return realToken(t) ? t : undefined;
}

/** The real tokens of a child list. */
function tokens(list: readonly IToken[] | undefined): IToken[] {
  return (list ?? []).filter(realToken);
}

/** The first node of a child list, if recovery left one. */
function node<N extends CstNode>(list: readonly N[] | undefined): N | undefined {
  return list?.[0];
}

/** The smallest range covering all the given ranges; `fallback` when none is known. */
function cover(ranges: (A.Range | undefined)[], fallback: A.Range): A.Range {
  let start = Infinity;
  let end = -Infinity;
  for (const r of ranges) {
    if (!r) continue;
    if (r.start < start) start = r.start;
    if (r.end > end) end = r.end;
  }
  return start === Infinity ? fallback : { start, end };
}

/**
 * The range of a bracketed construct (a body, a call's arguments, a list, a parenthesis): from
 * its opening to its closing bracket, stretched over what it holds where the parser recovered
 * without one of them.
 */
function bracketed(open: readonly IToken[] | undefined, close: readonly IToken[] | undefined, inside: readonly { readonly range: A.Range }[]): A.Range {
  const first = tok(open);
  const last = tok(close);
  return cover([first && tokenRange(first), last && tokenRange(last), ...inside.map((i) => i.range)], { start: 0, end: 0 });
}

/** Ranges of runs of skipped tokens, adjacent tokens merged into one range. */
function strayRuns(strays: readonly (C.StrayCstNode | C.BodyStrayCstNode)[] | undefined, text: string): A.Range[] {
  const ranges = (strays ?? [])
    .map((n) => tok(n.children.token))
    .filter((t): t is IToken => t !== undefined)
    .map(tokenRange)
    .sort((a, b) => a.start - b.start);
  const runs: A.Range[] = [];
  for (const r of ranges) {
    const last = runs[runs.length - 1];
    if (last && /^\s*$/.test(text.slice(last.end, r.start))) last.end = r.end;
    else runs.push({ ...r });
  }
  return runs;
}

export class CstToAst {
  /** Syntax errors only the tree shape reveals (operator misuse the flat grammar lets through). */
  readonly errors: { message: string; range: A.Range }[] = [];

  constructor(private readonly text: string) {}

  /** The AST of the tree the grammar's `file` rule built (grammar.ts). */
  file(cst: CstNode, comments: A.Comment[]): A.SourceFile {
    const c = (cst as C.FileCstNode).children;
    const imports = (c.importDecl ?? []).map((n) => this.importDecl(n));
    const declarations = (c.declaration ?? []).map((n) => this.declaration(n, comments));
    return { kind: 'File', imports, declarations, comments, range: { start: 0, end: this.text.length } };
  }

  /** Ranges of runs of tokens skipped at the top level of the `file` rule's tree, adjacent tokens merged into one range. */
  strayRuns(cst: CstNode): A.Range[] {
    return strayRuns((cst as C.FileCstNode).children.stray, this.text);
  }

  private importDecl(cst: C.ImportDeclCstNode): A.Import {
    const c = cst.children;
    const kw = tok(c.Kw_import);
    const str = tok(c.String);
    const path = str ? this.stringLiteral(str) : undefined;
    return { kind: 'Import', path, range: cover([kw && tokenRange(kw), path?.range], { start: 0, end: 0 }) };
  }

  private declaration(cst: C.DeclarationCstNode, comments: A.Comment[]): A.Declaration {
    const c = cst.children;
    const kw = tok(c.declKeyword)!;
    const nameTok = tok(c.name);
    const name = nameTok ? this.identifier(nameTok) : undefined;
    const baseCst = node(c.baseRef);
    const base = baseCst ? this.baseRef(baseCst) : undefined;
    const overCst = node(c.over);
    const over = overCst ? this.qualifiedName(overCst) : undefined;
    // `env X = {` or `sweep S over {`: the name is missing (a syntax error says so). Keep the
    // empty name, but place it just after `=` / `over` rather than at the start of the file.
    const eq = tok(c.Equals);
    if (base && base.name.parts.length === 0 && eq) {
      const at = { start: tokenRange(eq).end, end: tokenRange(eq).end };
      base.name.range = at;
      base.range = base.args ? { start: at.start, end: Math.max(at.end, base.range.end) } : at;
    }
    const overTok = tok(c.Kw_over);
    if (over && over.parts.length === 0 && overTok) over.range = { start: tokenRange(overTok).end, end: tokenRange(overTok).end };
    const bodyCst = node(c.body);
    const body = bodyCst ? this.body(bodyCst) : undefined;
    const keywordRange = tokenRange(kw);
    const range = cover([keywordRange, name?.range, base?.range, over?.range, body?.range], keywordRange);
    return {
      kind: 'Declaration',
      declKind: kw.image as A.DeclKind,
      keywordRange,
      name,
      base,
      over,
      body,
      doc: this.docAbove(range.start, comments),
      range,
    };
  }

  /** The `///` lines directly above `offset`: consecutive, with nothing but line breaks between. */
  private docAbove(offset: number, comments: A.Comment[]): string | undefined {
    const lines: string[] = [];
    let end = offset;
    for (let i = comments.length - 1; i >= 0; i--) {
      const comment = comments[i];
      if (comment.range.end > end) continue;
      const gap = this.text.slice(comment.range.end, end);
      if (comment.style !== 'doc' || !/^[ \t]*\r?\n[ \t]*$/.test(gap)) break;
      lines.unshift(comment.text.replace(/^\/\/\/ ?/, ''));
      end = comment.range.start;
    }
    return lines.length > 0 ? lines.join('\n') : undefined;
  }

  private baseRef(cst: C.BaseRefCstNode): A.BaseRef {
    const c = cst.children;
    const name = this.qualifiedName(node(c.qualifiedName)!);
    const argsCst = node(c.callArgs);
    const args = argsCst ? this.callArgs(argsCst) : undefined;
    return { kind: 'BaseRef', name, args: args?.args, range: cover([name.range, args?.range], name.range) };
  }

  private body(cst: C.BodyCstNode): A.Body {
    const c = cst.children;
    const members = (c.member ?? []).map((m) => this.member(m)).filter((m): m is A.Member => m !== undefined);
    // Tokens skipped between members. Usually the parser already reported the first one (a broken
    // value), and parse() keeps one error per offset; a run that starts elsewhere is reported here.
    for (const range of strayRuns(c.bodyStray, this.text)) {
      const found = this.text.slice(range.start, Math.min(range.end, range.start + 20));
      this.errors.push({ message: `unexpected '${found}': expected a property ('name: value'), a block ('name { ... }'), 'term' or 'stage'`, range });
    }
    return {
      kind: 'Body',
      members,
      closed: tok(c.RBrace) !== undefined,
      range: bracketed(c.LBrace, c.RBrace, members),
    };
  }

  private member(cst: C.MemberCstNode): A.Member | undefined {
    const c = cst.children;
    const named = node(c.named);
    if (named) return this.named(named);
    const block = node(c.block);
    if (block) return this.block(block);
    const property = node(c.property);
    if (property) return this.property(property);
    return undefined;
  }

  private named(cst: C.NamedCstNode): A.NamedMember | undefined {
    const c = cst.children;
    const kw = tok(c.namedKeyword);
    if (!kw) return undefined;
    const nameTok = tok(c.name);
    const name = nameTok ? this.identifier(nameTok) : undefined;
    const exprCst = node(c.expression);
    const expr = exprCst ? this.expression(exprCst) : undefined;
    const bodyCst = node(c.body);
    const body = bodyCst ? this.body(bodyCst) : undefined;
    const keywordRange = tokenRange(kw);
    const range = cover([keywordRange, name?.range, expr?.range, body?.range], keywordRange);
    let base: A.BaseRef | undefined;
    let value: A.Expression | undefined = expr;
    // `stage main = Grpo { ... }`: the expression before a body is the base, a name or a call.
    if (body && expr && (expr.kind === 'Name' || expr.kind === 'Call')) {
      base = expr.kind === 'Name'
        ? { kind: 'BaseRef', name: expr, args: undefined, range: expr.range }
        : { kind: 'BaseRef', name: expr.callee, args: expr.args, range: expr.range };
      value = undefined;
    }
    return { kind: 'Named', memberKind: kw.image as 'term' | 'stage', keywordRange, name, value, base, body, range };
  }

  private block(cst: C.BlockCstNode): A.Block | undefined {
    const c = cst.children;
    const nameTok = tok(c.name);
    const bodyCst = node(c.body);
    if (!nameTok || !bodyCst) return undefined;
    const name = this.identifier(nameTok);
    const body = this.body(bodyCst);
    return { kind: 'Block', name, body, range: cover([name.range, body.range], name.range) };
  }

  private property(cst: C.PropertyCstNode): A.Property | undefined {
    const c = cst.children;
    const path = tokens(c.segment).map((t) => this.identifier(t));
    if (path.length === 0) return undefined;
    const exprCst = node(c.expression);
    const value = exprCst ? this.expression(exprCst) : undefined;
    const colon = tok(c.Colon);
    const inline = node(c.inlineBody);
    if (inline) {
      // Left out of the tree: the value stands, so the body's other members are checked as written.
      const key = path.map((p) => p.text).join('.');
      const base = value?.kind === 'Name' ? value.parts.map((p) => p.text).join('.') : value?.kind === 'Call' ? value.callee.parts.map((p) => p.text).join('.') : 'Base';
      const kind = path.length === 1 && ['env', 'policy', 'algorithm', 'reward'].includes(key) ? key : undefined;
      const instead = kind === undefined ? 'remove it'
        : `declare the settings (\`${kind} Tuned = ${base} { ... }\`) and write \`${key}: Tuned\`${kind === 'algorithm' ? `, or train it as a stage (\`stage main = ${base} { ... }\`)` : ''}`;
      this.errors.push({ message: `a property's value takes no { } body: ${instead}`, range: this.body(inline).range });
    }
    return {
      kind: 'Property',
      path,
      value,
      range: cover([path[0].range, colon && tokenRange(colon), value?.range], path[0].range),
    };
  }

  private qualifiedName(cst: C.QualifiedNameCstNode): A.QualifiedName {
    return this.nameFrom(cst.children);
  }

  /** The `segment` tokens of a rule as a dotted name (qualifiedName, and names inside `unary`). */
  private nameFrom(c: Pick<C.QualifiedNameCstChildren, 'segment' | 'Dot'>): A.QualifiedName {
    const parts = tokens(c.segment).map((t) => this.identifier(t));
    const dots = tokens(c.Dot).map(tokenRange);
    const range = cover([...parts.map((p) => p.range), ...dots], { start: 0, end: 0 });
    return { kind: 'Name', parts, range };
  }

  private callArgs(cst: C.CallArgsCstNode): { args: A.Argument[]; range: A.Range } {
    const c = cst.children;
    // An argument recovery left empty (`abs(x, )`) is dropped: the syntax error covers it.
    const args = (c.argument ?? []).map((a) => this.argument(a)).filter((a) => a.name !== undefined || a.value !== undefined);
    return { args, range: bracketed(c.LParen, c.RParen, args) };
  }

  private argument(cst: C.ArgumentCstNode): A.Argument {
    const c = cst.children;
    const nameTok = tok(c.argName);
    const name = nameTok ? this.identifier(nameTok) : undefined;
    const exprCst = node(c.expression);
    const value = exprCst ? this.expression(exprCst) : undefined;
    return { kind: 'Argument', name, value, range: cover([name?.range, value?.range], { start: 0, end: 0 }) };
  }

  // ---- expressions: the grammar gives operands (each with its prefix operators) and binary
  // operators in source order; precedence climbing (a Pratt loop) builds the tree. It also
  // enforces what the EBNF's levels did: one comparison per level (`a < b < c` is an error),
  // `not` only where a Not may stand, no doubled prefixes (`--a`, `not not a`).

  expression(cst: C.ExpressionCstNode): A.Expression | undefined {
    const c = cst.children;
    const stream: StreamItem[] = [];
    const operators = tokens(c.operator);
    (c.operand ?? []).forEach((operand, i) => {
      const oc = operand.children;
      for (const prefix of tokens(oc.prefix)) stream.push({ prefix });
      stream.push({ atom: this.atom(oc) });
      if (operators[i]) stream.push({ operator: operators[i] });
    });
    return new Precedence(stream, this.errors).parse();
  }

  private atom(c: C.UnaryCstChildren): A.Expression | undefined {
    const num = tok(c.Number);
    if (num?.tokenType === InvalidNumber) return undefined; // reported by parse(); no value to check
    if (num) return { kind: 'Number', value: parseNumber(num.image), raw: num.image, range: tokenRange(num) };
    const str = tok(c.String);
    if (str) return this.stringLiteral(str);
    const t = tok(c.Kw_true) ?? tok(c.Kw_false);
    if (t) return { kind: 'Boolean', value: t.image === 'true', range: tokenRange(t) };
    const none = tok(c.Kw_none);
    if (none) return { kind: 'None', range: tokenRange(none) };
    const list = node(c.list);
    if (list) return this.list(list);
    const paren = node(c.paren);
    if (paren) return this.paren(paren);
    if (!c.segment) return undefined;
    const callee = this.nameFrom(c);
    if (callee.parts.length === 0) return undefined;
    const argsCst = node(c.callArgs);
    if (!argsCst) return callee;
    const { args, range } = this.callArgs(argsCst);
    return { kind: 'Call', callee, args, range: cover([callee.range, range], callee.range) };
  }

  private list(cst: C.ListCstNode): A.ListExpression {
    const c = cst.children;
    const items = (c.item ?? []).map((n) => this.expression(n)).filter((e): e is A.Expression => e !== undefined);
    return { kind: 'List', items, range: bracketed(c.LBracket, c.RBracket, items) };
  }

  private paren(cst: C.ParenCstNode): A.ParenExpression {
    const c = cst.children;
    const exprCst = node(c.expression);
    const expression = exprCst ? this.expression(exprCst) : undefined;
    return { kind: 'Paren', expression, range: bracketed(c.LParen, c.RParen, expression ? [expression] : []) };
  }

  private stringLiteral(t: IToken): A.StringLiteral {
    // An unterminated string (reported by parse()) reads as if closed at the end of its line.
    const closed = t.tokenType === UnterminatedString ? t.image + '"' : t.image;
    return { kind: 'String', value: unescapeString(closed), raw: t.image, range: tokenRange(t) };
  }

  private identifier(t: IToken): A.Identifier {
    return { kind: 'Identifier', text: t.image, range: tokenRange(t) };
  }
}

type StreamItem = { prefix: IToken } | { atom: A.Expression | undefined } | { operator: IToken };

/** Binding powers, loosest first; a left-associative operator binds its right side one tighter. */
const INFIX: Record<string, { left: number; right: number; comparison?: boolean }> = {
  or: { left: 1, right: 2 },
  and: { left: 3, right: 4 },
  '==': { left: 7, right: 8, comparison: true },
  '!=': { left: 7, right: 8, comparison: true },
  '<': { left: 7, right: 8, comparison: true },
  '<=': { left: 7, right: 8, comparison: true },
  '>': { left: 7, right: 8, comparison: true },
  '>=': { left: 7, right: 8, comparison: true },
  '+': { left: 9, right: 10 },
  '-': { left: 9, right: 10 },
  '*': { left: 11, right: 12 },
  '/': { left: 11, right: 12 },
  '^': { left: 15, right: 14 }, // right-associative, and its right side may be negated: 2^-1
};
/** `not` takes a comparison; unary minus takes a power (`-x^2` is `-(x^2)`). */
const PREFIX: Record<string, { power: number; allowedBelow: number }> = {
  not: { power: 5, allowedBelow: 5 },
  '-': { power: 13, allowedBelow: 15 },
};

/** Operators of one chain (a + b + ...) the tree keeps; see Precedence.expression. */
export const MAX_OPERATORS = 1000;

class Precedence {
  private position = 0;
  /** A doubled prefix is one mistake: the second prefix is not reported again. */
  private afterReportedPrefix = false;

  constructor(private readonly stream: StreamItem[], private readonly errors: { message: string; range: A.Range }[]) {}

  parse(): A.Expression | undefined {
    return this.expression(0);
  }

  private expression(minPower: number): A.Expression | undefined {
    let left = this.operand(minPower);
    let operators = 0;
    for (;;) {
      const item = this.stream[this.position];
      if (!item || !('operator' in item)) return left;
      const op = item.operator.image;
      const power = INFIX[op];
      if (power.left < minPower) return left;
      this.position++;
      const right = this.expression(power.right);
      // The tree of a long chain is as deep as the chain, and the checks walk it recursively.
      if (++operators > MAX_OPERATORS) {
        if (operators === MAX_OPERATORS + 1) {
          this.errors.push({ message: `expression too long: more than ${MAX_OPERATORS} operators in a row; split it into several terms (a reward's terms are summed)`, range: tokenRange(item.operator) });
        }
        continue;
      }
      if (power.comparison && left?.kind === 'Binary' && INFIX[left.operator]?.comparison) {
        this.errors.push({ message: `comparisons do not chain: write 'a < b and b < c' instead of 'a < b < c'`, range: tokenRange(item.operator) });
      }
      if (!left) {
        left = right;
        continue;
      }
      left = { kind: 'Binary', operator: op as A.BinaryOperator, left, right, range: cover([left.range, tokenRange(item.operator), right?.range], left.range) };
    }
  }

  private operand(minPower: number): A.Expression | undefined {
    const item = this.stream[this.position++];
    if (!item) return undefined;
    if ('atom' in item) return item.atom;
    if ('operator' in item) return undefined; // cannot happen: the grammar puts an operand first
    const op = item.prefix.image;
    const rule = PREFIX[op];
    const next = this.stream[this.position];
    const doubled = next !== undefined && 'prefix' in next;
    if ((minPower >= rule.allowedBelow || doubled) && !this.afterReportedPrefix) {
      const what = next && 'prefix' in next ? `'${op}' cannot be followed by another '${next.prefix.image}'` : `'${op}' cannot stand here; put the ${op === 'not' ? 'negated condition' : 'negated value'} in parentheses`;
      this.errors.push({ message: what, range: tokenRange(item.prefix) });
      this.afterReportedPrefix = doubled;
    } else {
      this.afterReportedPrefix = false;
    }
    const operand = this.expression(rule.power);
    return {
      kind: 'Unary',
      operator: op === 'not' ? 'not' : '-',
      operand,
      range: cover([tokenRange(item.prefix), operand?.range], tokenRange(item.prefix)),
    };
  }
}
