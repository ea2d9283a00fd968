// Rename a declaration and every reference to it, across files. Refusals throw RenameError with
// a message the editor shows as it is: built-ins, names that are not identifiers, keywords, and
// names that would clash with another declaration (or built-in) where the renamed one is seen.
import * as path from 'node:path';
import type { Position, Range, TextEdit, WorkspaceEdit } from 'vscode-languageserver';
import type { Analysis, DeclSymbol } from '../../dsl/index.js';
import { builtinNameKind } from '../../dsl/schema/index.js';
import { linesOf, pathToUri, toLspRange, toOffset, type DocumentContext } from '../context.js';
import { KEYWORDS } from '../../dsl/syntax/tokens.js';
import { IDENTIFIER } from './shared/kinds.js';
import { namedAt, usesOf, type Named } from '../../dsl/navigation/uses.js';

/** A rename the editor should refuse, with the reason to show. */
export class RenameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RenameError';
  }
}

export function prepareRename(doc: DocumentContext, position: Position): { range: Range; placeholder: string } | null {
  const found = namedAt(doc.analysis.model, doc.unit, toOffset(doc.lines, position));
  if (!found) return null;
  const symbol = renamable(found.named);
  return { range: toLspRange(doc.lines, found.range), placeholder: symbol.name };
}

export function rename(doc: DocumentContext, position: Position, newName: string): WorkspaceEdit {
  const found = namedAt(doc.analysis.model, doc.unit, toOffset(doc.lines, position));
  if (!found) throw new RenameError('Only declarations can be renamed: put the cursor on a declaration\'s name or on a reference to it.');
  const symbol = renamable(found.named);
  if (newName === symbol.name) return { changes: {} };
  checkName(doc.analysis, symbol, newName);
  const changes: Record<string, TextEdit[]> = {};
  for (const use of usesOf(doc.analysis, { kind: 'decl', symbol })) {
    const uri = pathToUri(use.unit.path);
    (changes[uri] ??= []).push({ range: toLspRange(linesOf(use.unit), use.range), newText: newName });
  }
  return { changes };
}

function renamable(named: Named): DeclSymbol {
  if (named.kind === 'builtin') {
    throw new RenameError(`'${named.spec.name}' is a built-in ${named.spec.declKind} and cannot be renamed; rename your own declarations instead.`);
  }
  return named.symbol;
}

function checkName(analysis: Analysis, symbol: DeclSymbol, newName: string): void {
  if (!IDENTIFIER.test(newName)) {
    throw new RenameError(`'${newName}' is not a valid name: a name starts with a letter or '_' and has only letters, digits and '_'.`);
  }
  if (KEYWORDS.includes(newName) || newName === 'module') throw new RenameError(`'${newName}' is a keyword of rlx and cannot name a declaration.`);
  // Functions and schedules are not in the declarations' scope, so the lookup below misses them.
  const builtinKind = builtinNameKind(newName);
  if (builtinKind) throw new RenameError(`'${newName}' is the name of a ${builtinKind}; choose another name.`);
  const home = symbol.unit;
  // Every file that sees the declaration must not see another meaning of the new name.
  for (const unit of analysis.units.filter((u) => u === home || u.imports.some((i) => i.path === home.path))) {
    const existing = analysis.model.lookup(unit, newName);
    if (!existing || (existing.kind === 'decl' && existing.symbol === symbol)) continue;
    if (existing.kind === 'builtin') throw new RenameError(`'${newName}' is the name of a built-in ${existing.spec.declKind}; choose another name.`);
    const other = existing.symbol;
    throw new RenameError(`'${newName}' is already declared in ${path.basename(other.unit.path)} (${other.decl.declKind} ${other.name}); choose another name.`);
  }
}
