// For the extension's "Train" CodeLens: the experiments and sweeps of a document, whether they
// would compile, and their plans. Only the document's import closure counts: an error in an
// unrelated file of the workspace must not stop this one from training (the command line, which
// analyses the entry file and its imports, would not be stopped either).
import type { Range } from 'vscode-languageserver';
import { compile, userModules, type Analysis, type Plan, type SourceUnit } from '../../dsl/index.js';
import { refusals } from './refusals.js';
import { toLspRange, type DocumentContext } from '../context.js';

export interface ExperimentInfo {
  name: string;
  kind: 'experiment' | 'sweep';
  range: Range;
  nameRange: Range;
  /** The compiler would accept it: no errors anywhere in the document's import closure. */
  clean: boolean;
  /** Errors in the import closure. */
  errors: number;
  /** Why `rlx train` would refuse it (the checker's not-implemented warnings on what it uses); empty when it can train. */
  unsupported: string[];
}

export function experiments(doc: DocumentContext): ExperimentInfo[] {
  const { analysis, errors } = closureAnalysis(doc);
  return doc.unit.parse.file.declarations.flatMap((d) => {
    if ((d.declKind !== 'experiment' && d.declKind !== 'sweep') || !d.name) return [];
    const unsupported = errors === 0 ? refusals(analysis, d) : [];
    return [{ name: d.name.text, kind: d.declKind, range: toLspRange(doc.lines, d.range), nameRange: toLspRange(doc.lines, d.name.range), clean: errors === 0, errors, unsupported }];
  });
}

/** Plans sent for a sweep: the editor shows a few; the trainer makes the others itself. */
export const PLANS_SHOWN = 100;

/** The plans of an experiment, or the first PLANS_SHOWN of a sweep's `count` (a sweep may have a million). */
export function planFor(doc: DocumentContext, name: string): { ok: true; plans: Plan[]; count: number; modules: string[] } | { ok: false; error: string } {
  try {
    const result = compile(closureAnalysis(doc).analysis, doc.unit.path, name);
    if (!result.ok) return result;
    // Every member's modules, not only the shown ones': the editor asks trust for them before training.
    return { ok: true, plans: result.plans.first(PLANS_SHOWN), count: result.plans.count, modules: userModules(result.plans.variants()) };
  } catch (err) {
    // The compiler trusts a checked spec; should that trust be misplaced, say so instead of failing the request.
    return { ok: false, error: `internal compiler error: ${(err as Error).message} (please report this)` };
  }
}

/** The analysis narrowed to the document and the files it imports, transitively. */
function closureAnalysis(doc: DocumentContext): { analysis: Analysis; errors: number } {
  const { model, diagnostics } = doc.analysis;
  const units = new Map<string, SourceUnit>();
  const visit = (unit: SourceUnit) => {
    if (units.has(unit.path)) return;
    units.set(unit.path, unit);
    for (const imp of unit.imports) {
      const imported = imp.path ? model.unitByPath(imp.path) : undefined;
      if (imported) visit(imported);
    }
  };
  visit(model.unitByPath(doc.unit.path) ?? doc.unit);
  const narrowed = new Map([...units.keys()].map((p) => [p, diagnostics.get(p) ?? []]));
  const errors = [...narrowed.values()].flat().filter((d) => d.severity === 'error').length;
  return { analysis: { model, units: [...units.values()], diagnostics: narrowed }, errors };
}
