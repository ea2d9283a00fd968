// Why `rlx train` would refuse an experiment that checks clean: the checker's not-implemented
// warnings (dsl/check/support.ts, worded from the schema registry's `notImplemented` reasons, the
// same list runtime/not-implemented.ts re-exports and the trainer's checkPlan refuses with) on
// the declarations the experiment is made of. The Train lens says these instead of "Train".
// No second list of what the trainer supports lives here: only where the warnings sit.
import type { Analysis, Declaration, DeclSymbol, Expression } from '../../dsl/index.js';

/** The checker's words for a warning the trainer acts on (not the "never holds" hints). */
const REFUSES = /`rlx train` will refuse/;

export function refusals(analysis: Analysis, decl: Declaration): string[] {
  const { model } = analysis;
  const start = model.symbolOf(decl);
  if (!start) return [];
  const parts = declarationsUsedBy(analysis, start);
  const reasons: string[] = [];
  for (const symbol of parts) {
    for (const d of analysis.diagnostics.get(symbol.unit.path) ?? []) {
      if (d.code !== 'not-implemented' || d.severity !== 'warning' || !REFUSES.test(d.message)) continue;
      if (d.range.start < symbol.decl.range.start || d.range.end > symbol.decl.range.end) continue;
      if (!reasons.includes(d.message)) reasons.push(d.message);
    }
  }
  return reasons;
}

/** The declaration, what it inherits from (`= Base`, `over X`), and what its properties name, transitively. */
function declarationsUsedBy(analysis: Analysis, start: DeclSymbol): DeclSymbol[] {
  const { model } = analysis;
  const seen = new Set<DeclSymbol>();
  const stack = [start];
  while (stack.length > 0) {
    const symbol = stack.pop()!;
    if (seen.has(symbol)) continue;
    seen.add(symbol);
    const effective = model.effective(symbol);
    stack.push(...effective.chain);
    const over = symbol.decl.over?.parts;
    if (over?.length === 1) pushDecl(model.lookup(symbol.unit, over[0].text), stack);
    for (const { node, owner } of effective.properties.values()) {
      for (const name of namesOf(node.value)) pushDecl(model.lookup(owner.unit, name), stack);
    }
    for (const { node, owner } of effective.named.values()) {
      const base = node.base?.name.parts;
      if (base?.length === 1) pushDecl(model.lookup(owner.unit, base[0].text), stack);
    }
  }
  return [...seen];
}

function pushDecl(target: ReturnType<Analysis['model']['lookup']>, stack: DeclSymbol[]): void {
  if (target?.kind === 'decl') stack.push(target.symbol);
}

/** `env: Pole` and `env: [Pole, Other]`: the single names a value states. */
function namesOf(value: Expression | undefined): string[] {
  if (!value) return [];
  if (value.kind === 'Name') return value.parts.length === 1 ? [value.parts[0].text] : [];
  if (value.kind === 'List') return value.items.flatMap((item) => namesOf(item));
  return [];
}
