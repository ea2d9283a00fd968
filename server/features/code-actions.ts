// Quick fixes: every diagnostic in the requested range that comes with fixes (did you mean,
// add a missing property, remove an unknown one, clamp a value) becomes one code action per fix,
// with the diagnostic attached. The checker lists a diagnostic's fixes best first; the first is
// marked preferred (applied by "auto fix" without a look) only when it is not one of several of
// the same sort (two equally close "did you mean" names) and does not just delete what the user
// wrote (an unknown property may be a name we cannot guess).
import { CodeActionKind, type CodeAction, type Command, type Range, type WorkspaceEdit } from 'vscode-languageserver';
import type { Diagnostic as RlxDiagnostic, Fix } from '../../dsl/index.js';
import { toLspRange, toOffset, type DocumentContext } from '../context.js';
import { toLspDiagnostic } from './diagnostics.js';

export function codeActions(doc: DocumentContext, range: Range, only?: string[]): CodeAction[] {
  if (only && !only.some((kind) => kind === '' || CodeActionKind.QuickFix === kind || CodeActionKind.QuickFix.startsWith(`${kind}.`))) return [];
  const start = toOffset(doc.lines, range.start);
  const end = toOffset(doc.lines, range.end);
  const touching = (d: RlxDiagnostic) => d.range.start <= end && start <= d.range.end;
  return (doc.analysis.diagnostics.get(doc.unit.path) ?? [])
    .filter((d) => d.fixes?.length && touching(d))
    .flatMap((d) => {
      const diagnostic = toLspDiagnostic(doc, d);
      const fixes = d.fixes!;
      return fixes.map((fix, i): CodeAction => ({
        title: fix.title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        isPreferred: i === 0 && !(fixes[1] && verb(fixes[1]) === verb(fix)) && !deletesOnly(fix),
        edit: { changes: { [doc.uri]: fix.edits.map((e) => ({ range: toLspRange(doc.lines, e.range), newText: e.newText })) } },
      }));
    });
}

/**
 * The server command behind a fix for a client that takes only Commands (no CodeAction
 * literals): its argument is the fix's WorkspaceEdit, which the server asks the client to apply.
 */
export const APPLY_FIX_COMMAND = 'rlx.server.applyFix';

export function asCommands(actions: CodeAction[]): Command[] {
  return actions.filter((a) => a.edit).map((a) => ({ title: a.title, command: APPLY_FIX_COMMAND, arguments: [a.edit] }));
}

/** The edit a fix command carries, or undefined when its argument is not one. */
export function fixEdit(args: unknown[] | undefined): WorkspaceEdit | undefined {
  const edit = args?.[0];
  return typeof edit === 'object' && edit !== null && ('changes' in edit || 'documentChanges' in edit) ? (edit as WorkspaceEdit) : undefined;
}

function deletesOnly(fix: Fix): boolean {
  return fix.edits.every((e) => e.newText === '');
}

/** "Change", "Remove", "Add", "Clamp": what sort of fix this is. */
function verb(fix: Fix): string {
  return fix.title.split(' ')[0];
}
