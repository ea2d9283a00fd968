// Signature help inside calls: schedules (`linear(from, to, over = 1)`), reward functions and
// verifiers, options that take arguments (`future(k = 4)`), `module(path)`, `pretrained(path)`. The active parameter
// follows the argument being written, by name when it is named (`over: |`), else by position.
import { MarkupKind, type Position, type SignatureHelp } from 'vscode-languageserver';
import { toOffset, type DocumentContext } from '../context.js';
import { declarationAt, descend, valueScope } from '../../dsl/navigation/cursor.js';
import { callsBefore } from '../../dsl/navigation/prefix.js';
import { activeParameter, MODULE_SIGNATURE, signatureOf, type Signature } from '../../dsl/navigation/signatures.js';

export function signatureHelp(doc: DocumentContext, position: Position): SignatureHelp | null {
  const { model } = doc.analysis;
  const open = callsBefore(doc.unit.text, doc.unit.parse.file, toOffset(doc.lines, position));
  if (open.baseArgument !== undefined) {
    // module("./env.ts") or pretrained("./models/x"): the callee is the name before the open parenthesis.
    const callee = /(\w+)\s*\([^()]*$/.exec(doc.unit.text.slice(0, toOffset(doc.lines, position)))?.[1];
    const signature = (callee && signatureOf(callee, { base: true })) || MODULE_SIGNATURE;
    return help(signature, activeParameter(signature, open.baseArgument, undefined));
  }
  const owner = declarationAt(model, doc.unit, open.declarationAt);
  if (!open.value || !owner) return null;
  const { calls } = descend(valueScope(model, doc.unit, owner, open.value), open.value.open);
  const call = calls[calls.length - 1];
  return call ? help(call.signature, activeParameter(call.signature, call.open.index, call.open.named, call.open.given.length > 0)) : null;
}

function help(signature: Signature, activeIndex: number | undefined): SignatureHelp {
  // Parameters as [start, end) offsets into the label, so that clients highlight the exact text.
  let from = signature.name.length + 1;
  const parameters = signature.params.map((p) => {
    const start = signature.label.indexOf(p.label, from);
    from = start + p.label.length;
    return { label: [start, from] as [number, number], ...(p.doc ? { documentation: p.doc } : {}) };
  });
  // null (LSP 3.18): an argument past the last parameter highlights none, rather than the first.
  const active = activeIndex ?? null;
  return {
    signatures: [{ label: signature.label, documentation: { kind: MarkupKind.Markdown, value: signature.doc }, parameters, activeParameter: active }],
    activeSignature: 0,
    activeParameter: active,
  };
}
