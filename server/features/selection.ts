// Expand selection: from the name or literal under the cursor outwards through the syntax
// tree (expression, argument, call, property, body, declaration with its doc comment, file).
// Ranges that would not grow the selection are skipped.
import type { Position, SelectionRange } from 'vscode-languageserver';
import { nodePathAt } from '../../dsl/index.js';
import type * as A from '../../dsl/index.js';
import { toLspRange, toOffset, type DocumentContext } from '../context.js';

export function selectionRanges(doc: DocumentContext, positions: Position[]): SelectionRange[] {
  return positions.map((position) => {
    const offset = toOffset(doc.lines, position);
    const ranges = enclosingRanges(doc, offset);
    let result: SelectionRange | undefined;
    for (const range of ranges) result = { range: toLspRange(doc.lines, range), ...(result ? { parent: result } : {}) };
    return result ?? { range: toLspRange(doc.lines, { start: offset, end: offset }) };
  });
}

/** Outermost first: file, declaration with doc, declaration, body, ..., innermost node. */
function enclosingRanges(doc: DocumentContext, offset: number): A.Range[] {
  const { file } = doc.unit.parse;
  const ranges: A.Range[] = [];
  const path = nodePathAt(file, offset);
  path.forEach((node, i) => {
    if (node.kind === 'Declaration') ranges.push(withDocComment(file, node));
    const child = path[i + 1];
    // A dotted property path (`algorithm.learning_rate`) selects as a whole before the property.
    if (node.kind === 'Property' && child?.kind === 'Identifier' && node.path.length > 1) {
      ranges.push(node.range, { start: node.path[0].range.start, end: node.path[node.path.length - 1].range.end });
      return;
    }
    ranges.push(node.range);
  });
  // Keep only ranges that strictly grow outwards (the innermost is the last).
  const kept: A.Range[] = [];
  for (let i = ranges.length - 1; i >= 0; i--) {
    const r = ranges[i];
    const inner = kept[kept.length - 1];
    if (!inner || (r.start <= inner.start && r.end >= inner.end && (r.start < inner.start || r.end > inner.end))) kept.push(r);
  }
  return kept.reverse();
}

function withDocComment(file: A.SourceFile, decl: A.Declaration): A.Range {
  if (!decl.doc) return decl.range;
  // The doc text is made of the comments directly above, one per line: the last n before the declaration.
  const above = file.comments.filter((c) => c.range.end <= decl.range.start);
  const first = above[above.length - decl.doc.split('\n').length];
  return { start: first?.range.start ?? decl.range.start, end: decl.range.end };
}
