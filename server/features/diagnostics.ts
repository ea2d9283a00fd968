// The checker's diagnostics for one document, as LSP diagnostics: severity, stable code, source
// 'rlx', and related locations that may lie in other files (where a name was first declared).
import { DiagnosticSeverity, type Diagnostic, type Location } from 'vscode-languageserver';
import type { Diagnostic as RlxDiagnostic, Model, Range, Severity } from '../../dsl/index.js';
import { locationOf, pathToUri, toLspRange, type DocumentContext } from '../context.js';

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
};

export function toLspDiagnostics(doc: DocumentContext): Diagnostic[] {
  return (doc.analysis.diagnostics.get(doc.unit.path) ?? []).map((d) => toLspDiagnostic(doc, d));
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
