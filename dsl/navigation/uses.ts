// The declaration (or built-in) a name stands for, and every place that names it, in every
// analysed file. References, highlight and rename are three views of this list.
import type { BuiltinSpec } from '../schema/index.js';
import type { Analysis, DeclSymbol, Model, Range, SourceUnit } from '../index.js';
import { fileOccurrences, occurrenceAt } from './occurrences.js';

export type Named = { kind: 'decl'; symbol: DeclSymbol } | { kind: 'builtin'; spec: BuiltinSpec };

export interface Use {
  unit: SourceUnit;
  range: Range;
  /** The name in the declaration itself (as opposed to a reference to it). */
  isDeclaration: boolean;
}

/** What the name under the cursor stands for, with the range of that name. */
export function namedAt(model: Model, unit: SourceUnit, offset: number): { named: Named; range: Range } | undefined {
  const found = occurrenceAt(model, unit, offset);
  const meaning = found?.meaning;
  if (meaning?.kind === 'declaration') return { named: { kind: 'decl', symbol: meaning.symbol }, range: found!.range };
  if (meaning?.kind === 'reference' && meaning.target) return { named: meaning.target, range: found!.range };
  return undefined;
}

function same(a: Named, b: Named): boolean {
  return a.kind === 'decl' ? b.kind === 'decl' && a.symbol === b.symbol : b.kind === 'builtin' && a.spec === b.spec;
}

/** Files that may name a declaration: its own and those that import it (imports are not transitive). */
function filesSeeing(analysis: Analysis, named: Named): SourceUnit[] {
  if (named.kind === 'builtin') return analysis.units;
  const home = named.symbol.unit;
  return analysis.units.filter((u) => u === home || u.imports.some((i) => i.path === home.path));
}

/** Every use of a declaration or built-in, declaration first, then files and offsets in order. */
export function usesOf(analysis: Analysis, named: Named, only?: SourceUnit): Use[] {
  const uses: Use[] = [];
  for (const unit of only ? [only] : filesSeeing(analysis, named)) {
    for (const o of fileOccurrences(analysis.model, unit)) {
      const m = o.meaning;
      if (m.kind === 'declaration' && named.kind === 'decl' && m.symbol === named.symbol) uses.push({ unit, range: o.range, isDeclaration: true });
      else if (m.kind === 'reference' && m.target && same(m.target, named)) uses.push({ unit, range: o.range, isDeclaration: false });
    }
  }
  return uses.sort((a, b) => Number(b.isDeclaration) - Number(a.isDeclaration));
}
