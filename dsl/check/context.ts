// What every check receives: the semantic model and a way to report. Checks never throw on
// purpose; the runner turns an accidental throw into an `internal-error` diagnostic.
import type { Diagnostic, DiagnosticCode, Fix, RelatedInformation, Severity } from '../diagnostics.js';
import type { Range } from '../syntax/ast.js';
import type { DeclSymbol, Model } from '../semantics/model.js';
import type { SourceUnit } from '../semantics/workspace.js';

export interface ReportOptions {
  fixes?: Fix[];
  related?: RelatedInformation[];
}

export type Accept = (severity: Severity, code: DiagnosticCode, message: string, range: Range, options?: ReportOptions) => void;

export interface CheckContext {
  model: Model;
  unit: SourceUnit;
  accept: Accept;
  /** The same context reporting into another file (a reward term checked from an experiment). */
  forUnit(unit: SourceUnit): CheckContext;
  /** Bytes of memory free on this machine, for the memory estimate of pretrained models (Workspace.freeMemory). */
  freeMemory?(): number;
}

/** Where a value sits, for checks that depend on its surroundings (reward terms need the env). */
export interface ValueScope {
  /** The declaration whose body holds the value. */
  owner: DeclSymbol;
  /** The experiment around it, when there is one (for `env.size` paths). */
  experiment?: DeclSymbol;
}

export function collectingAccept(into: Diagnostic[], file: string): Accept {
  return (severity, code, message, range, options) => {
    into.push({ file, range, severity, code, message, ...(options?.fixes ? { fixes: options.fixes } : {}), ...(options?.related ? { related: options.related } : {}) });
  };
}
