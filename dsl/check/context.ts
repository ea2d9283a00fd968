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

/** Diagnostics of one file that were not kept (over AnalyzeOptions.maxDiagnosticsPerFile): counts, and where the first was. */
export interface HiddenDiagnostics {
  counts: Record<Severity, number>;
  first: Range;
}

/**
 * Collects a file's diagnostics into `into`, at most `limit` of them: past it they are only
 * counted into `hidden`, so that a file of 100k errors does not hold (and send) 100k objects.
 */
export function collectingAccept(into: Diagnostic[], file: string, limit = Infinity, hidden?: (first: Range) => HiddenDiagnostics): Accept {
  return (severity, code, message, range, options) => {
    if (into.length >= limit && hidden) {
      hidden(range).counts[severity]++;
      return;
    }
    into.push({ file, range, severity, code, message, ...(options?.fixes ? { fixes: options.fixes } : {}), ...(options?.related ? { related: options.related } : {}) });
  };
}
