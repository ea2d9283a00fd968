// Inlay hints: the defaults a body leaves unstated, so that `algorithm Tuned = PPO { ... }`
// shows what else is in effect without opening the docs. One hint per body, at the end of the
// line that opens it: `defaults: gamma 0.99, gae_lambda 0.95, … +6`. One hint (not one per
// default) because hints cannot add lines: a row of them after the last member would run off the
// screen, while the opening line is where one reads what a body is. The tooltip lists every
// default as source (`gamma: 0.99`), ready to copy. Values a body inherits from a base are not
// defaults and are not listed. Off when `settings.inlayHints.defaults` is false.
import { MarkupKind, type InlayHint, type Range } from 'vscode-languageserver';
import type { DeclSymbol, Model } from '../../dsl/index.js';
import type * as A from '../../dsl/index.js';
import { toOffset, type DocumentContext } from '../context.js';
import { bodySchema, inheritedStatement, type BodyPlace } from '../../dsl/navigation/body-schema.js';
import { defaultText } from '../../dsl/navigation/value-text.js';

/** Roughly how much of a line the listed defaults may take before the rest is counted instead. */
const MAX_LABEL = 60;

export function inlayHints(doc: DocumentContext, range: Range): InlayHint[] {
  if (!doc.settings.inlayHints.defaults) return [];
  const { model } = doc.analysis;
  const from = toOffset(doc.lines, range.start);
  const to = toOffset(doc.lines, range.end);
  const hints: InlayHint[] = [];
  for (const decl of doc.unit.parse.file.declarations) {
    const symbol = model.symbolOf(decl);
    if (!symbol || !decl.body || decl.range.end < from || decl.range.start > to) continue;
    const bodies: { body: A.Body; place: BodyPlace }[] = [{ body: decl.body, place: { kind: 'declaration' } }];
    for (const m of decl.body.members) {
      if (m.kind === 'Block') bodies.push({ body: m.body, place: { kind: 'block', name: m.name.text } });
      if (m.kind === 'Named' && m.body) bodies.push({ body: m.body, place: { kind: 'stage', base: m.base?.name.parts[0]?.text } });
    }
    for (const { body, place } of bodies) {
      const hint = defaultsHint(doc, model, symbol, body, place);
      const at = hint && toOffset(doc.lines, hint.position);
      if (hint && at !== undefined && at >= from && at <= to) hints.push(hint);
    }
  }
  return hints;
}

function defaultsHint(doc: DocumentContext, model: Model, symbol: DeclSymbol, body: A.Body, place: BodyPlace): InlayHint | undefined {
  const schema = bodySchema(model, symbol, place);
  if (!schema || schema.params === 'any' || symbol.decl.declKind === 'sweep') return undefined;
  const stated = new Set(body.members.flatMap((m) => (m.kind === 'Property' ? [m.path.map((p) => p.text).join('.')] : [])));
  // An experiment's block setting its env's kind leaves unread (eval.episodes on a text env) is no default in effect.
  const action = symbol.decl.declKind === 'experiment' && place.kind === 'block' ? model.envSpec(model.referencedTarget(symbol, 'env'))?.action : undefined;
  const unstated = schema.params.flatMap((p) => {
    const value = defaultText(p);
    if (value === undefined || stated.has(p.name) || inheritedStatement(model, schema.inherits, p.name, schema.block)) return [];
    if (action !== undefined && p.unusedOn?.includes(action)) return [];
    return [{ name: p.name, value }];
  });
  if (unstated.length === 0) return undefined;
  let label = 'defaults:';
  let shown = 0;
  for (const { name, value } of unstated) {
    const part = `${shown === 0 ? ' ' : ', '}${name} ${value}`;
    if (shown > 0 && label.length + part.length > MAX_LABEL) break;
    label += part;
    shown++;
  }
  if (shown < unstated.length) label += `, … +${unstated.length - shown}`;
  const line = doc.lines.position(body.range.start).line;
  const lineText = doc.unit.text.slice(doc.lines.offset({ line, character: 0 }), doc.lines.offset({ line: line + 1, character: 0 }));
  return {
    position: { line, character: lineText.replace(/\s+$/, '').length },
    label,
    paddingLeft: true,
    tooltip: { kind: MarkupKind.Markdown, value: `Defaults in effect (${schema.label}):\n\n\`\`\`rlx\n${unstated.map((u) => `${u.name}: ${u.value}`).join('\n')}\n\`\`\`` },
  };
}
