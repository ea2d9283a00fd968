// The outline of a document (declarations with their properties, blocks, terms and stages) and
// workspace symbols (declarations of every analysed file, matched loosely against a query).
import * as path from 'node:path';
import { SymbolKind, type DocumentSymbol, type SymbolInformation } from 'vscode-languageserver';
import type { Analysis } from '../../dsl/index.js';
import type * as A from '../../dsl/index.js';
import { locationOf, toLspRange, type DocumentContext } from '../context.js';
import { KIND_STYLES } from './shared/kinds.js';
import { sourceText } from '../../dsl/navigation/value-text.js';

export function documentSymbols(doc: DocumentContext): DocumentSymbol[] {
  const text = doc.unit.text;
  const symbol = (name: string, detail: string, kind: SymbolKind, range: A.Range, selection: A.Range, children?: DocumentSymbol[]): DocumentSymbol => ({
    name, detail, kind, range: toLspRange(doc.lines, range), selectionRange: toLspRange(doc.lines, selection), ...(children ? { children } : {}),
  });
  const members = (body: A.Body | undefined): DocumentSymbol[] => (body?.members ?? []).map((m) => {
    switch (m.kind) {
      case 'Property': {
        const path = { start: m.path[0].range.start, end: m.path[m.path.length - 1].range.end };
        return symbol(text.slice(path.start, path.end), m.value ? sourceText(text, m.value.range) : '', SymbolKind.Property, m.range, path);
      }
      case 'Block': return symbol(m.name.text, '', SymbolKind.Object, m.range, m.name.range, members(m.body));
      case 'Named': {
        const shown = m.memberKind === 'term' ? m.value : m.base;
        return symbol(m.name?.text ?? `(unnamed ${m.memberKind})`, `${m.memberKind}${shown ? ` = ${sourceText(text, shown.range)}` : ''}`,
          m.memberKind === 'term' ? SymbolKind.Variable : SymbolKind.Method, m.range, m.name?.range ?? m.keywordRange, m.body && members(m.body));
      }
    }
  });
  return doc.unit.parse.file.declarations.map((d) => symbol(
    d.name?.text ?? `(unnamed ${d.declKind})`,
    header(text, d),
    KIND_STYLES[d.declKind].symbol,
    d.range,
    d.name?.range ?? d.keywordRange,
    members(d.body),
  ));
}

/** The outline as a flat list, for a client that cannot show a tree: each symbol names its parent. */
export function flatSymbols(uri: string, symbols: DocumentSymbol[], containerName?: string): SymbolInformation[] {
  return symbols.flatMap((s) => [
    { name: s.name, kind: s.kind, location: { uri, range: s.range }, ...(containerName ? { containerName } : {}) },
    ...flatSymbols(uri, s.children ?? [], s.name),
  ]);
}

/** `algorithm = PPO`, `sweep over Balance`, `experiment`. */
function header(text: string, d: A.Declaration): string {
  if (d.base) return `${d.declKind} = ${sourceText(text, d.base.range)}`;
  if (d.over) return `${d.declKind} over ${sourceText(text, d.over.range)}`;
  return d.declKind;
}

export function workspaceSymbols(analysis: Analysis, query: string): SymbolInformation[] {
  const found: { info: SymbolInformation; score: number }[] = [];
  for (const unit of analysis.units) {
    for (const d of unit.parse.file.declarations) {
      if (!d.name) continue;
      const score = matchScore(query, d.name.text);
      if (score === undefined) continue;
      found.push({
        score,
        info: { name: d.name.text, kind: KIND_STYLES[d.declKind].symbol, location: locationOf(unit, d.range), containerName: path.basename(unit.path) },
      });
    }
  }
  return found.sort((a, b) => a.score - b.score || a.info.name.localeCompare(b.info.name)).map((f) => f.info);
}

/** 0: starts with the query, 1: contains it, 2: has its letters in order (`blz` finds BalanceZoo); case ignored. */
export function matchScore(query: string, name: string): number | undefined {
  const q = query.toLowerCase();
  const n = name.toLowerCase();
  if (n.startsWith(q)) return 0;
  if (n.includes(q)) return 1;
  let at = 0;
  for (const ch of n) if (ch === q[at]) at++;
  return at === q.length ? 2 : undefined;
}
