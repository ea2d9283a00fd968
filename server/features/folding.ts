// Folding: bodies and blocks, lists and calls written over several lines, runs of line comments
// (doc comments included), block comments, and a run of imports. A closing bracket that starts
// its line stays visible, as in other languages' folding.
import { FoldingRangeKind, type FoldingRange } from 'vscode-languageserver';
import { walk } from '../../dsl/index.js';
import type * as A from '../../dsl/index.js';
import type { DocumentContext } from '../context.js';

export function foldingRanges(doc: DocumentContext): FoldingRange[] {
  const { file } = doc.unit.parse;
  const line = (offset: number) => doc.lines.position(offset).line;
  const ranges: FoldingRange[] = [];
  const add = (startLine: number, endLine: number, kind?: FoldingRangeKind) => {
    if (endLine > startLine) ranges.push(kind ? { startLine, endLine, kind } : { startLine, endLine });
  };
  /** From the opening bracket's line to the line before the closing one (or its own line when code precedes it). */
  const bracketed = (range: A.Range, closed: boolean) => {
    const close = closed ? range.end - 1 : range.end;
    const closeStartsLine = closed && /^[ \t]*$/.test(doc.unit.text.slice(doc.unit.text.lastIndexOf('\n', close - 1) + 1, close));
    add(line(range.start), line(close) - (closeStartsLine ? 1 : 0));
  };

  for (const decl of file.declarations) {
    for (const node of walk(decl)) {
      if (node.kind === 'Body') bracketed(node.range, node.closed);
      else if (node.kind === 'List') bracketed(node.range, doc.unit.text[node.range.end - 1] === ']');
      else if (node.kind === 'Call' && node.args.length > 0) {
        const open = doc.unit.text.indexOf('(', node.callee.range.end);
        bracketed({ start: open, end: node.range.end }, doc.unit.text[node.range.end - 1] === ')');
      }
    }
  }
  commentRuns(doc.unit.text, file.comments, line, add);
  if (file.imports.length > 1) add(line(file.imports[0].range.start), line(file.imports[file.imports.length - 1].range.end), FoldingRangeKind.Imports);
  return ranges.sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
}

function commentRuns(text: string, comments: A.Comment[], line: (offset: number) => number, add: (s: number, e: number, k: FoldingRangeKind) => void): void {
  let run: { start: number; end: number } | undefined;
  const flush = () => {
    if (run) add(run.start, run.end, FoldingRangeKind.Comment);
    run = undefined;
  };
  for (const c of comments) {
    if (c.style === 'block') {
      flush();
      add(line(c.range.start), line(c.range.end), FoldingRangeKind.Comment);
      continue;
    }
    // Only comments on lines of their own: a comment after code on consecutive lines is not a run.
    const ownLine = /^[ \t]*$/.test(text.slice(text.lastIndexOf('\n', c.range.start - 1) + 1, c.range.start));
    const at = line(c.range.start);
    if (!ownLine) {
      flush();
      continue;
    }
    if (run && run.end === at - 1) run.end = at;
    else {
      flush();
      run = { start: at, end: at };
    }
  }
  flush();
}
