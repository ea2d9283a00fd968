// Turns Chevrotain's concrete syntax tree into the typed AST of ast.ts. Recovery may leave any
// child missing, so every lookup here is defensive: a missing piece becomes `undefined` in the
// AST and the syntax error that caused it has already been reported by the parser.
import type { CstElement, CstNode, IToken } from 'chevrotain';
import * as A from './ast.js';
import { unescapeString, parseNumber } from './literals.js';
import { InvalidNumber, UnterminatedString } from './tokens.js';

type Children = Record<string, CstElement[] | undefined>;

function isToken(e: CstElement): e is IToken {
  return (e as IToken).image !== undefined;
}

/** A token is real when the parser did not invent it to recover from an error. */
function realToken(t: IToken | undefined): t is IToken {
  return t !== undefined && !t.isInsertedInRecovery && Number.isFinite(t.startOffset);
}

function tokenRange(t: IToken): A.Range {
  return { start: t.startOffset, end: t.startOffset + t.image.length };
}

function tok(c: Children, key: string, index = 0): IToken | undefined {
  const e = c[key]?.[index];
  return e && isToken(e) && realToken(e) ? e : undefined;
}

function tokens(c: Children, key: string): IToken[] {
  return (c[key] ?? []).filter((e): e is IToken => isToken(e) && realToken(e));
}

function node(c: Children, key: string, index = 0): CstNode | undefined {
  const e = c[key]?.[index];
  return e && !isToken(e) ? e : undefined;
}

function nodes(c: Children, key: string): CstNode[] {
  return (c[key] ?? []).filter((e): e is CstNode => !isToken(e));
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

export class CstToAst {
  constructor(private readonly text: string) {}

  file(cst: CstNode, comments: A.Comment[]): A.SourceFile {
    const c = cst.children as Children;
    const imports = nodes(c, 'importDecl').map((n) => this.importDecl(n));
    const declarations = nodes(c, 'declaration').map((n) => this.declaration(n, comments));
    return { kind: 'File', imports, declarations, comments, range: { start: 0, end: this.text.length } };
  }

  /** Ranges of runs of tokens skipped at the top level, adjacent tokens merged into one range. */
  strayRuns(cst: CstNode): A.Range[] {
    const strays = nodes(cst.children as Children, 'stray')
      .map((n) => tok(n.children as Children, 'token'))
      .filter((t): t is IToken => t !== undefined)
      .map(tokenRange)
      .sort((a, b) => a.start - b.start);
    const runs: A.Range[] = [];
    for (const r of strays) {
      const last = runs[runs.length - 1];
      if (last && /^\s*$/.test(this.text.slice(last.end, r.start))) last.end = r.end;
      else runs.push({ ...r });
    }
    return runs;
  }

  private importDecl(cst: CstNode): A.Import {
    const c = cst.children as Children;
    const kw = tok(c, 'Kw_import');
    const str = tok(c, 'String');
    const path = str ? this.stringLiteral(str) : undefined;
    return { kind: 'Import', path, range: cover([kw && tokenRange(kw), path?.range], { start: 0, end: 0 }) };
  }

  private declaration(cst: CstNode, comments: A.Comment[]): A.Declaration {
    const c = cst.children as Children;
    const kw = tok(c, 'declKeyword')!;
    const nameTok = tok(c, 'name');
    const name = nameTok ? this.identifier(nameTok) : undefined;
    const baseCst = node(c, 'baseRef');
    const base = baseCst ? this.baseRef(baseCst) : undefined;
    const overCst = node(c, 'over');
    const over = overCst ? this.qualifiedName(overCst) : undefined;
    // `env X = {` or `sweep S over {`: the name is missing (a syntax error says so). Keep the
    // empty name, but place it just after `=` / `over` rather than at the start of the file.
    const eq = tok(c, 'Equals');
    if (base && base.name.parts.length === 0 && eq) {
      const at = { start: tokenRange(eq).end, end: tokenRange(eq).end };
      base.name.range = at;
      base.range = base.args ? { start: at.start, end: Math.max(at.end, base.range.end) } : at;
    }
    const overTok = tok(c, 'Kw_over');
    if (over && over.parts.length === 0 && overTok) over.range = { start: tokenRange(overTok).end, end: tokenRange(overTok).end };
    const bodyCst = node(c, 'body');
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

  private baseRef(cst: CstNode): A.BaseRef {
    const c = cst.children as Children;
    const name = this.qualifiedName(node(c, 'qualifiedName')!);
    const argsCst = node(c, 'callArgs');
    const args = argsCst ? this.callArgs(argsCst) : undefined;
    return { kind: 'BaseRef', name, args: args?.args, range: cover([name.range, args?.range], name.range) };
  }

  private body(cst: CstNode): A.Body {
    const c = cst.children as Children;
    const open = tok(c, 'LBrace');
    const close = tok(c, 'RBrace');
    const members = nodes(c, 'member').map((m) => this.member(m)).filter((m): m is A.Member => m !== undefined);
    const fallback = open ? tokenRange(open) : { start: 0, end: 0 };
    return {
      kind: 'Body',
      members,
      closed: close !== undefined,
      range: cover([open && tokenRange(open), close && tokenRange(close), ...members.map((m) => m.range)], fallback),
    };
  }

  private member(cst: CstNode): A.Member | undefined {
    const c = cst.children as Children;
    const named = node(c, 'named');
    if (named) return this.named(named);
    const block = node(c, 'block');
    if (block) return this.block(block);
    const property = node(c, 'property');
    if (property) return this.property(property);
    return undefined;
  }

  private named(cst: CstNode): A.NamedMember | undefined {
    const c = cst.children as Children;
    const kw = tok(c, 'namedKeyword');
    if (!kw) return undefined;
    const nameTok = tok(c, 'name');
    const name = nameTok ? this.identifier(nameTok) : undefined;
    const exprCst = node(c, 'expression');
    const expr = exprCst ? this.expression(exprCst) : undefined;
    const bodyCst = node(c, 'body');
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

  private block(cst: CstNode): A.Block | undefined {
    const c = cst.children as Children;
    const nameTok = tok(c, 'name');
    const bodyCst = node(c, 'body');
    if (!nameTok || !bodyCst) return undefined;
    const name = this.identifier(nameTok);
    const body = this.body(bodyCst);
    return { kind: 'Block', name, body, range: cover([name.range, body.range], name.range) };
  }

  private property(cst: CstNode): A.Property | undefined {
    const c = cst.children as Children;
    const path = nodes(c, 'nameSegment').map((n) => this.segment(n)).filter((s): s is A.Identifier => s !== undefined);
    if (path.length === 0) return undefined;
    const exprCst = node(c, 'expression');
    const value = exprCst ? this.expression(exprCst) : undefined;
    const colon = tok(c, 'Colon');
    return {
      kind: 'Property',
      path,
      value,
      range: cover([path[0].range, colon && tokenRange(colon), value?.range], path[0].range),
    };
  }

  private segment(cst: CstNode): A.Identifier | undefined {
    const t = tok(cst.children as Children, 'segment');
    return t ? this.identifier(t) : undefined;
  }

  private qualifiedName(cst: CstNode): A.QualifiedName {
    const c = cst.children as Children;
    const parts = nodes(c, 'nameSegment').map((n) => this.segment(n)).filter((s): s is A.Identifier => s !== undefined);
    const dots = tokens(c, 'Dot').map(tokenRange);
    const range = cover([...parts.map((p) => p.range), ...dots], { start: 0, end: 0 });
    return { kind: 'Name', parts, range };
  }

  private callArgs(cst: CstNode): { args: A.Argument[]; range: A.Range } {
    const c = cst.children as Children;
    // An argument recovery left empty (`abs(x, )`) is dropped: the syntax error covers it.
    const args = nodes(c, 'argument').map((a) => this.argument(a)).filter((a) => a.name !== undefined || a.value !== undefined);
    const open = tok(c, 'LParen');
    const close = tok(c, 'RParen');
    return {
      args,
      range: cover([open && tokenRange(open), close && tokenRange(close), ...args.map((a) => a.range)], { start: 0, end: 0 }),
    };
  }

  private argument(cst: CstNode): A.Argument {
    const c = cst.children as Children;
    const nameCst = node(c, 'argName');
    const name = nameCst ? this.segment(nameCst) : undefined;
    const exprCst = node(c, 'expression');
    const value = exprCst ? this.expression(exprCst) : undefined;
    return { kind: 'Argument', name, value, range: cover([name?.range, value?.range], { start: 0, end: 0 }) };
  }

  // ---- expressions: each precedence level has `operand` children and `operator` tokens,
  // interleaved in source order (operand, operator, operand, ...).

  expression(cst: CstNode): A.Expression | undefined {
    return this.binaryLevel(cst, (n) => this.andExpr(n));
  }

  private andExpr(cst: CstNode): A.Expression | undefined {
    return this.binaryLevel(cst, (n) => this.notExpr(n));
  }

  private binaryLevel(cst: CstNode, sub: (n: CstNode) => A.Expression | undefined): A.Expression | undefined {
    const c = cst.children as Children;
    const operands = nodes(c, 'operand').map(sub);
    const operators = tokens(c, 'operator');
    let left = operands[0];
    for (let i = 0; i < operators.length; i++) {
      const right = operands[i + 1];
      if (!left) return right;
      left = {
        kind: 'Binary',
        operator: operators[i].image as A.BinaryOperator,
        left,
        right,
        range: cover([left.range, tokenRange(operators[i]), right?.range], left.range),
      };
    }
    return left;
  }

  private notExpr(cst: CstNode): A.Expression | undefined {
    const c = cst.children as Children;
    const operandCst = node(c, 'operand');
    const operand = operandCst ? this.cmpExpr(operandCst) : undefined;
    const op = tok(c, 'operator');
    if (!op) return operand;
    return { kind: 'Unary', operator: 'not', operand, range: cover([tokenRange(op), operand?.range], tokenRange(op)) };
  }

  private cmpExpr(cst: CstNode): A.Expression | undefined {
    return this.binaryLevel(cst, (n) => this.sumExpr(n));
  }

  private sumExpr(cst: CstNode): A.Expression | undefined {
    return this.binaryLevel(cst, (n) => this.prodExpr(n));
  }

  private prodExpr(cst: CstNode): A.Expression | undefined {
    return this.binaryLevel(cst, (n) => this.unaryExpr(n));
  }

  private unaryExpr(cst: CstNode): A.Expression | undefined {
    const c = cst.children as Children;
    const operandCst = node(c, 'operand');
    const operand = operandCst ? this.powExpr(operandCst) : undefined;
    const op = tok(c, 'operator');
    if (!op) return operand;
    return { kind: 'Unary', operator: '-', operand, range: cover([tokenRange(op), operand?.range], tokenRange(op)) };
  }

  private powExpr(cst: CstNode): A.Expression | undefined {
    const c = cst.children as Children;
    const baseCst = node(c, 'operand');
    const base = baseCst ? this.primary(baseCst) : undefined;
    const op = tok(c, 'operator');
    if (!op || !base) return base;
    const expCst = node(c, 'exponent');
    const exponent = expCst ? this.unaryExpr(expCst) : undefined;
    return { kind: 'Binary', operator: '^', left: base, right: exponent, range: cover([base.range, tokenRange(op), exponent?.range], base.range) };
  }

  private primary(cst: CstNode): A.Expression | undefined {
    const c = cst.children as Children;
    const num = tok(c, 'Number');
    if (num?.tokenType === InvalidNumber) return undefined; // reported by parse(); no value to check
    if (num) return { kind: 'Number', value: parseNumber(num.image), raw: num.image, range: tokenRange(num) };
    const str = tok(c, 'String');
    if (str) return this.stringLiteral(str);
    const t = tok(c, 'Kw_true') ?? tok(c, 'Kw_false');
    if (t) return { kind: 'Boolean', value: t.image === 'true', range: tokenRange(t) };
    const none = tok(c, 'Kw_none');
    if (none) return { kind: 'None', range: tokenRange(none) };
    const nameOrCall = node(c, 'nameOrCall');
    if (nameOrCall) return this.nameOrCall(nameOrCall);
    const list = node(c, 'list');
    if (list) return this.list(list);
    const paren = node(c, 'paren');
    if (paren) return this.paren(paren);
    return undefined;
  }

  private nameOrCall(cst: CstNode): A.Expression | undefined {
    const c = cst.children as Children;
    const qn = node(c, 'qualifiedName');
    if (!qn) return undefined;
    const callee = this.qualifiedName(qn);
    if (callee.parts.length === 0) return undefined;
    const argsCst = node(c, 'callArgs');
    if (!argsCst) return callee;
    const { args, range } = this.callArgs(argsCst);
    return { kind: 'Call', callee, args, range: cover([callee.range, range], callee.range) };
  }

  private list(cst: CstNode): A.ListExpression {
    const c = cst.children as Children;
    const items = nodes(c, 'item').map((n) => this.expression(n)).filter((e): e is A.Expression => e !== undefined);
    const open = tok(c, 'LBracket');
    const close = tok(c, 'RBracket');
    return {
      kind: 'List',
      items,
      range: cover([open && tokenRange(open), close && tokenRange(close), ...items.map((i) => i.range)], { start: 0, end: 0 }),
    };
  }

  private paren(cst: CstNode): A.ParenExpression {
    const c = cst.children as Children;
    const exprCst = node(c, 'expression');
    const expression = exprCst ? this.expression(exprCst) : undefined;
    const open = tok(c, 'LParen');
    const close = tok(c, 'RParen');
    return {
      kind: 'Paren',
      expression,
      range: cover([open && tokenRange(open), close && tokenRange(close), expression?.range], { start: 0, end: 0 }),
    };
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
