// The printer behind `format`: it walks the syntax tree in source order and writes the canonical
// layout, placing each comment where its offset falls between the nodes (gofmt's approach: the
// tree decides the layout, comments are interleaved by position). Every comment is consumed
// exactly once through one cursor (`next`), so none can be dropped or doubled.
//
// Layout rules (the examples of docs/language.md are the reference; they print unchanged):
// - Imports first, then declarations, each group in source order. Exactly one blank line before
//   and after a declaration, except that comments directly above it stay glued to it.
// - Inside a body one member per line, with at most one blank line where the author left some;
//   no blank line after `{` or before `}`. Consecutive `term`/`stage` members align their `=`.
// - A body written on one line stays `{ a: 1, b: 2 }` if it fits in lineWidth and holds no
//   comments and no nested bodies; an empty one is `{}`.
// - Trailing comments keep the spaces the author put before them (at least one): docs/language.md
//   aligns them by hand, and a formatter that undid that would fight its own design document.
// - Inside expressions, tokens are spaced by the operator rules; a comment there stays inline
//   (a line comment ends the line and the expression continues one level deeper).
import type * as A from '../syntax/ast.js';

export interface Layout {
  indent: number;
  lineWidth: number;
}

type TopItem = A.Import | A.Declaration;
type TopKind = 'import' | 'decl' | 'comment';

interface Unit {
  item: TopItem;
  /** Index of the unit's first comment: those above it, inside it and after it on its last line. */
  firstComment: number;
  /** Where the next item starts in the source: the item's trailing comments stop there. */
  limit: number;
}

export class Printer {
  private readonly out: string[] = [];
  /** The line being written; undefined before the first one. */
  private line: string | undefined;
  private depth = 0;
  /** The first comment not printed yet. */
  private next = 0;
  /** A block comment was just written inline: the next token needs a space before it. */
  private spaceNext = false;

  constructor(
    private readonly text: string,
    private readonly comments: readonly A.Comment[],
    private readonly layout: Layout,
  ) {}

  print(file: A.SourceFile): string {
    const items: TopItem[] = [...file.imports, ...file.declarations].sort((a, b) => a.range.start - b.range.start);
    const units: Unit[] = [];
    let cursor = 0;
    items.forEach((item, k) => {
      const limit = items[k + 1]?.range.start ?? this.text.length;
      units.push({ item, firstComment: cursor, limit });
      while (cursor < this.comments.length && this.comments[cursor].range.start < item.range.end) cursor++;
      let end = item.range.end;
      while (cursor < this.comments.length && this.isTrailing(this.comments[cursor], end, limit)) end = this.comments[cursor++].range.end;
    });
    const tail = cursor;

    let prev: TopKind | undefined;
    const separator = (kind: TopKind) => (start: number) => {
      const blank = topBlankLine(prev, kind, () => this.blankBefore(start));
      prev = kind;
      return blank;
    };
    // Imports move to the top with the comments above them; otherwise the source order stays.
    const ordered = [...units.filter((u) => u.item.kind === 'Import'), ...units.filter((u) => u.item.kind !== 'Import')];
    for (const { item, firstComment, limit } of ordered) {
      this.next = firstComment;
      this.ownLineComments(item.range.start, separator('comment'));
      const kind = item.kind === 'Import' ? 'import' : 'decl';
      this.startLine(separator(kind)(item.range.start));
      if (item.kind === 'Import') this.importDecl(item);
      else this.declaration(item);
      this.trailing(item.range.end, limit);
    }
    this.next = tail;
    this.ownLineComments(Infinity, separator('comment'));

    if (this.line !== undefined) this.out.push(this.line);
    if (this.out.length === 0) return '';
    // Block comments are copied verbatim, so their inner lines may still carry trailing blanks.
    return this.out.join('\n').replace(/[^\S\n]+$/gm, '') + '\n';
  }

  // ---- top level

  private importDecl(node: A.Import): void {
    this.write('import');
    if (node.path) {
      this.write(' ');
      this.token(node.path.range.start, node.path.raw);
    }
  }

  private declaration(node: A.Declaration): void {
    this.write(node.declKind);
    if (node.name) {
      this.write(' ');
      this.identifier(node.name);
    }
    if (node.base) {
      this.write(' = ');
      this.baseRef(node.base);
    }
    if (node.over) {
      this.write(' over ');
      this.qualifiedName(node.over);
    }
    if (node.body) this.body(node.body);
  }

  private baseRef(node: A.BaseRef): void {
    this.qualifiedName(node.name);
    if (node.args) this.args(node.args, node.range.end - 1);
  }

  // ---- bodies and members

  private body(node: A.Body): void {
    this.inline(node.range.start);
    const close = node.range.end - 1;
    const holdsComments = (this.comments[this.next]?.range.start ?? Infinity) < node.range.end;
    if (!holdsComments && node.members.length === 0) return this.write(' {}');
    if (!holdsComments && this.oneLine(node)) return;

    this.write(' {');
    const starts = node.members.map((m) => m.range.start);
    this.trailing(node.range.start + 1, starts[0] ?? close);
    this.depth++;
    let fresh = true; // no blank line right after `{`
    const separator = (start: number) => {
      const blank = !fresh && this.blankBefore(start);
      fresh = false;
      return blank;
    };
    const pads = this.namedPadding(node.members);
    node.members.forEach((member, i) => {
      this.ownLineComments(member.range.start, separator);
      this.startLine(separator(member.range.start));
      this.member(member, pads[i]);
      this.trailing(member.range.end, starts[i + 1] ?? close);
    });
    this.ownLineComments(close, separator);
    this.depth--;
    this.startLine(false);
    this.write('}');
  }

  /** Writes `{ a: 1, b: 2 }` when the author wrote the body on one line and it still fits. */
  private oneLine(node: A.Body): boolean {
    const nested = node.members.some((m) => m.kind === 'Block' || (m.kind === 'Named' && m.body !== undefined));
    if (nested || this.text.slice(node.range.start, node.range.end).includes('\n')) return false;
    const before = this.line;
    this.write(' { ');
    node.members.forEach((member, i) => {
      if (i > 0) this.write(', ');
      this.member(member, 0);
    });
    this.write(' }');
    if ((this.line ?? '').length <= this.layout.lineWidth) return true;
    this.line = before;
    return false;
  }

  private member(node: A.Member, pad: number): void {
    switch (node.kind) {
      case 'Property':
        node.path.forEach((part, i) => {
          if (i > 0) this.write('.');
          this.identifier(part);
        });
        this.write(': ');
        if (node.value) this.expression(node.value);
        return;
      case 'Block':
        this.identifier(node.name);
        this.body(node.body);
        return;
      case 'Named':
        this.write(node.memberKind);
        if (node.name) {
          this.write(' ');
          this.identifier(node.name);
        }
        this.write(' '.repeat(pad) + ' = ');
        if (node.value) this.expression(node.value);
        else if (node.base) this.baseRef(node.base);
        if (node.body) this.body(node.body);
        return;
    }
  }

  /** Spaces after each `term`/`stage` name so that a run of them (no blank line between) aligns its `=`. */
  private namedPadding(members: readonly A.Member[]): number[] {
    const pads = members.map(() => 0);
    let run: { index: number; width: number }[] = [];
    const endRun = () => {
      const widest = Math.max(0, ...run.map((r) => r.width));
      for (const r of run) pads[r.index] = widest - r.width;
      run = [];
    };
    members.forEach((member, index) => {
      const blankLine = index > 0 && /\n[^\S\n]*\n/.test(this.text.slice(members[index - 1].range.end, member.range.start));
      if (member.kind !== 'Named' || !member.name || blankLine) endRun();
      if (member.kind === 'Named' && member.name) run.push({ index, width: member.memberKind.length + 1 + member.name.text.length });
    });
    endRun();
    return pads;
  }

  // ---- expressions

  private expression(node: A.Expression): void {
    this.inline(node.range.start);
    switch (node.kind) {
      case 'Number':
      case 'String':
        return this.write(node.raw); // as written: `2.5e-4`, `500k`, escapes
      case 'Boolean':
        return this.write(String(node.value));
      case 'None':
        return this.write('none');
      case 'Name':
        return this.qualifiedName(node);
      case 'Call':
        this.qualifiedName(node.callee);
        return this.args(node.args, node.range.end - 1);
      case 'List':
        this.write('[');
        node.items.forEach((item, i) => {
          if (i > 0) this.write(', ');
          this.expression(item);
        });
        this.inline(node.range.end - 1);
        return this.write(']');
      case 'Unary':
        this.write(node.operator === 'not' ? 'not ' : '-');
        if (node.operand) this.expression(node.operand);
        return;
      case 'Binary':
        this.expression(node.left);
        this.write(node.operator === '^' ? '^' : ` ${node.operator} `);
        if (node.right) this.expression(node.right);
        return;
      case 'Paren':
        this.write('(');
        if (node.expression) this.expression(node.expression);
        this.inline(node.range.end - 1);
        return this.write(')');
    }
  }

  /** `(a, b, name: v)`; `close` is the offset of the `)`, so comments before it are kept. */
  private args(args: readonly A.Argument[], close: number): void {
    this.write('(');
    args.forEach((arg, i) => {
      if (i > 0) this.write(', ');
      if (arg.name) {
        this.identifier(arg.name);
        this.write(': ');
      }
      if (arg.value) this.expression(arg.value);
    });
    this.inline(close);
    this.write(')');
  }

  private qualifiedName(node: A.QualifiedName): void {
    node.parts.forEach((part, i) => {
      if (i > 0) this.write('.');
      this.identifier(part);
    });
  }

  private identifier(node: A.Identifier): void {
    this.token(node.range.start, node.text);
  }

  private token(start: number, text: string): void {
    this.inline(start);
    this.write(text);
  }

  // ---- comments

  /** Comments that start on a line of their own before `before`, each on its own output line. */
  private ownLineComments(before: number, blankLine: (start: number) => boolean): void {
    while (this.next < this.comments.length && this.comments[this.next].range.start < before) {
      const comment = this.comments[this.next++];
      this.startLine(blankLine(comment.range.start));
      this.write(commentText(comment));
      this.trailing(comment.range.end, before);
    }
  }

  /** Comments after `after` on the same source line (and before `limit`) stay at the end of the output line. */
  private trailing(after: number, limit: number): void {
    let end = after;
    while (this.next < this.comments.length && this.isTrailing(this.comments[this.next], end, limit)) {
      const comment = this.comments[this.next++];
      this.line = (this.line ?? '') + this.gapBefore(comment) + commentText(comment);
      this.spaceNext = false;
      end = comment.range.end;
    }
  }

  /** A `///` comment is never trailing: it documents what follows it, so it keeps its own line. */
  private isTrailing(comment: A.Comment, after: number, limit: number): boolean {
    return comment.range.start < limit && comment.style !== 'doc' && !this.text.slice(after, comment.range.start).includes('\n');
  }

  /** Comments between tokens inside a member or header: written in place. */
  private inline(before: number): void {
    while (this.next < this.comments.length && this.comments[this.next].range.start < before) {
      const comment = this.comments[this.next++];
      const line = this.line ?? '';
      const space = line.trim() === '' || /[\s([]$/.test(line) ? '' : ' ';
      this.line = line + space + commentText(comment);
      this.spaceNext = comment.style === 'block';
      // A line comment ends the line; what follows continues one level deeper.
      if (comment.style !== 'block') this.startLine(false, this.depth + 1);
    }
  }

  /** The author's spaces before a trailing comment (tabs count as one), at least one. */
  private gapBefore(comment: A.Comment): string {
    let i = comment.range.start;
    while (i > 0 && (this.text[i - 1] === ' ' || this.text[i - 1] === '\t')) i--;
    return ' '.repeat(Math.max(1, comment.range.start - i));
  }

  // ---- lines

  /** Whether the author left an empty line just before `start`. */
  private blankBefore(start: number): boolean {
    let newlines = 0;
    for (let i = start - 1; i >= 0 && /\s/.test(this.text[i]); i--) if (this.text[i] === '\n') newlines++;
    return newlines >= 2;
  }

  private startLine(blank: boolean, depth = this.depth): void {
    if (this.line !== undefined) {
      this.out.push(this.line);
      if (blank) this.out.push('');
    }
    this.line = ' '.repeat(depth * this.layout.indent);
    this.spaceNext = false;
  }

  private write(text: string): void {
    const line = this.line ?? '';
    // At the start of a line (after a comment broke it) a separator space is not wanted.
    if (line.trim() === '') text = text.trimStart();
    else if (this.spaceNext && !/^[\s,)\]]/.test(text)) text = ' ' + text;
    this.spaceNext = false;
    this.line = line + text;
  }
}

/** Blank lines at the top level: always around declarations (unless a comment is glued above one), else as the author had them. */
function topBlankLine(prev: TopKind | undefined, kind: TopKind, authorLeftOne: () => boolean): boolean {
  if (prev === undefined) return false;
  if (kind === 'decl') return prev !== 'comment' || authorLeftOne();
  return prev === 'decl' || authorLeftOne();
}

/** A line comment's text without trailing blanks; a block comment verbatim. */
export function commentText(comment: A.Comment): string {
  return comment.style === 'block' ? comment.text : comment.text.trimEnd();
}
