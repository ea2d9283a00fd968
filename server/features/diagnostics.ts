// The checker's diagnostics for one document, as LSP diagnostics: severity, stable code, source
// 'rlx', and related locations that may lie in other files (where a name was first declared).
import { DiagnosticSeverity, type Diagnostic, type Location } from 'vscode-languageserver';
import type { Diagnostic as RlxDiagnostic, HiddenDiagnostics, Model, Range, Severity } from '../../dsl/index.js';
import { MAX_DIAGNOSTICS_PER_FILE } from '../limits.js';
import { locationOf, pathToUri, toLspRange, type DocumentContext } from '../context.js';

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
};

export function toLspDiagnostics(doc: DocumentContext): Diagnostic[] {
  const shown = (doc.analysis.diagnostics.get(doc.unit.path) ?? []).map((d) => toLspDiagnostic(doc, d));
  const hidden = doc.analysis.hidden?.get(doc.unit.path);
  return hidden ? [...shown, hiddenSummary(doc, hidden)] : shown;
}

/** The one diagnostic that stands for those over the limit, where the first of them is. */
function hiddenSummary(doc: DocumentContext, hidden: HiddenDiagnostics): Diagnostic {
  const { error, warning, info } = hidden.counts;
  const count = (n: number, what: string) => `${n.toLocaleString('en-US')} more ${what}${n === 1 ? '' : 's'}`;
  const parts = [error && count(error, 'error'), warning && count(warning, 'warning'), info && count(info, 'note')].filter(Boolean);
  return {
    range: toLspRange(doc.lines, hidden.first),
    severity: error > 0 ? DiagnosticSeverity.Error : warning > 0 ? DiagnosticSeverity.Warning : DiagnosticSeverity.Information,
    code: 'too-many-diagnostics',
    source: 'rlx',
    message: `${parts.join(' and ')} not shown: the first ${MAX_DIAGNOSTICS_PER_FILE.toLocaleString('en-US')} are; fix those and check again`,
  };
}

/** One diagnostic; code actions attach exactly this object so the editor pairs fix and problem. */
export function toLspDiagnostic(doc: DocumentContext, d: RlxDiagnostic): Diagnostic {
  const out: Diagnostic = {
    range: toLspRange(doc.lines, d.range),
    severity: SEVERITY[d.severity],
    code: d.code,
    source: 'rlx',
    message: d.message,
  };
  if (d.related?.length) {
    out.relatedInformation = d.related.map((r) => ({ location: relatedLocation(doc.analysis.model, r.file, r.range), message: r.message }));
  }
  return out;
}

function relatedLocation(model: Model, file: string, range: Range): Location {
  const unit = model.unitByPath(file);
  if (unit) return locationOf(unit, range);
  // A file outside the analysis (should not happen): point at its start rather than guess lines.
  const start = { line: 0, character: 0 };
  return { uri: pathToUri(file), range: { start, end: start } };
}
