// Moving around the code: definition, references, highlights, the outline (a tree, or a flat
// list for a client that cannot show one) and workspace symbols, folding and selection ranges.
import { definition } from '../features/definition.js';
import { foldingRanges } from '../features/folding.js';
import { documentHighlights } from '../features/highlight.js';
import { references } from '../features/references.js';
import { selectionRanges } from '../features/selection.js';
import { documentSymbols, flatSymbols, workspaceSymbols } from '../features/symbols.js';
import type { Session } from './session.js';

export function registerNavigation(session: Session): void {
  const { connection, workspace } = session;
  connection.onDefinition(session.onDocument('definition', [], (doc, p) => definition(doc, p.position)));
  connection.onReferences(session.onDocument('references', [], (doc, p) => references(doc, p.position, p.context.includeDeclaration)));
  connection.onDocumentHighlight(session.onDocument('document highlight', [], (doc, p) => documentHighlights(doc, p.position)));
  connection.onDocumentSymbol(session.onDocument('document symbols', [], (doc, _p, support) => {
    const outline = documentSymbols(doc);
    return support.hierarchicalSymbols ? outline : flatSymbols(doc.uri, outline);
  }));
  connection.onWorkspaceSymbol(session.onWorkspace('workspace symbols', [], (p) => workspaceSymbols(workspace.workspaceModel(), p.query)));
  connection.onFoldingRanges(session.onDocument('folding ranges', [], (doc) => foldingRanges(doc)));
  connection.onSelectionRanges(session.onDocument('selection ranges', [], (doc, p) => selectionRanges(doc, p.positions)));
}
