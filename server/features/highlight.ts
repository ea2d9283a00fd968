// Document highlight: the other places in this file that name what the cursor is on; the
// declaration's own name counts as a write, every use as a read.
import { DocumentHighlightKind, type DocumentHighlight, type Position } from 'vscode-languageserver';
import { toLspRange, toOffset, type DocumentContext } from '../context.js';
import { namedAt, usesOf } from '../../dsl/navigation/uses.js';

export function documentHighlights(doc: DocumentContext, position: Position): DocumentHighlight[] {
  const found = namedAt(doc.analysis.model, doc.unit, toOffset(doc.lines, position));
  if (!found) return [];
  return usesOf(doc.analysis, found.named, doc.unit).map((use) => ({
    range: toLspRange(doc.lines, use.range),
    kind: use.isDeclaration ? DocumentHighlightKind.Write : DocumentHighlightKind.Read,
  }));
}
