// Find references: every place, in every analysed file, that names the declaration (or built-in)
// under the cursor; the declaration itself only when the editor asks for it.
import type { Location, Position } from 'vscode-languageserver';
import { locationOf, toOffset, type DocumentContext } from '../context.js';
import { namedAt, usesOf } from '../../dsl/navigation/uses.js';

export function references(doc: DocumentContext, position: Position, includeDeclaration: boolean): Location[] {
  const found = namedAt(doc.analysis.model, doc.unit, toOffset(doc.lines, position));
  if (!found) return [];
  return usesOf(doc.analysis, found.named)
    .filter((use) => includeDeclaration || !use.isDeclaration)
    .map((use) => locationOf(use.unit, use.range));
}
