// Completion: reads where the cursor is from the text before it (dsl/navigation/prefix.ts
// works on incomplete text), finds the schema that applies there (dsl/navigation/cursor.ts), and
// asks the module for that place: declarations.ts (top level, bases), members.ts (property
// names), values.ts (values). Every item replaces the whole word under the cursor.
import { CompletionItemKind, type CompletionItem, type Position } from 'vscode-languageserver';
import type { DeclSymbol, Model, SourceUnit } from '../../../dsl/index.js';
import type * as A from '../../../dsl/index.js';
import { toLspRange, toOffset, type DocumentContext } from '../../context.js';
import { bodyPlace, cursorAt, valueScope } from '../../../dsl/navigation/cursor.js';
import type { BodyFrame, Place } from '../../../dsl/navigation/prefix.js';
import { bodySchema } from '../../../dsl/navigation/body-schema.js';
import { baseItems, topLevelItems } from './declarations.js';
import { couldMatch, keywordItem, nameItems } from './items.js';
import { propertyItems, sweepMemberItems, sweepPathItems, type Stated } from './members.js';
import { valueItems } from './values.js';
import { folderItems } from './folders.js';
import { PATH_TRIGGERS } from '../../capabilities.js';

export interface CompletionRequest {
  /** The character typed that asked for completion, when one did (`.`, `:`, `=`, a space). */
  triggerCharacter?: string;
}

export function completion(doc: DocumentContext, position: Position, request: CompletionRequest = {}): CompletionItem[] {
  const offset = toOffset(doc.lines, position);
  const folders = folderItems(doc, offset);
  if (folders) return folders;
  if (!answersTrigger(doc.unit.text, offset, request.triggerCharacter)) return [];
  const { scan, symbol } = cursorAt(doc.analysis.model, doc.unit, offset);
  const range = toLspRange(doc.lines, scan.word);
  // Renaming a key that already has its colon (`lea|rning_rate: 1`): insert the name alone.
  const keyOnly = /^[ \t]*:/.test(doc.unit.text.slice(scan.word.end));
  return itemsAt(doc.analysis.model, doc.unit, scan.place, symbol, offset)
    .filter((item) => couldMatch(scan.typed, item.filterText ?? item.label))
    .map(({ insertText, insertTextFormat, ...item }) => {
      const asKey = keyOnly && item.kind === CompletionItemKind.Property;
      const newText = asKey ? item.label : insertText ?? item.label;
      return { ...item, ...(insertTextFormat && !asKey ? { insertTextFormat } : {}), textEdit: { range, newText } };
    });
}

/**
 * A space is a trigger character (capabilities.ts) so that values and bases pop up after `env: `
 * and `= `; anywhere else a space is just typing, and an answer would be noise.
 */
function answersTrigger(text: string, offset: number, triggerCharacter: string | undefined): boolean {
  if (PATH_TRIGGERS.includes(triggerCharacter ?? '')) return false; // they ask for folders only (folders.ts)
  if (triggerCharacter !== ' ') return true;
  const before = text.slice(text.lastIndexOf('\n', offset - 1) + 1, offset).trimEnd();
  return before.endsWith(':') || before.endsWith('=');
}

function itemsAt(model: Model, unit: SourceUnit, place: Place, symbol: DeclSymbol | undefined, offset: number): CompletionItem[] {
  switch (place.kind) {
    case 'top': return topLevelItems(model, unit);
    case 'after-name': return place.declKind === 'sweep' ? [keywordItem('over', 0, 'the experiment this sweep varies')] : [];
    case 'base': return baseItems(model, unit, place.declKind, symbol);
    case 'over': return nameItems(model, unit, 'experiment');
    case 'stage-base': return nameItems(model, unit, 'algorithm');
    case 'member': case 'path': case 'value': break;
    default: return [];
  }
  if (!symbol) return [];
  if (place.kind === 'value') return valueItems(valueScope(model, unit, symbol, place), place.expression);
  const stated = statedIn(astBody(symbol.decl, place.body, offset), offset);
  const inSweep = symbol.decl.declKind === 'sweep' && place.body.length === 1;
  if (place.kind === 'path') return inSweep && place.segments.length === 1 ? sweepPathItems(model, symbol, place.segments[0], stated) : [];
  if (inSweep) return sweepMemberItems(model, symbol, stated);
  const where = bodyPlace(place.body);
  const schema = where && bodySchema(model, symbol, where);
  return schema ? propertyItems(model, schema, stated) : [];
}

/** The syntax tree's body for a frame stack, so that members after the cursor count as stated too. */
function astBody(decl: A.Declaration, frames: BodyFrame[], offset: number): A.Body | undefined {
  let body = decl.body;
  for (const frame of frames.slice(1)) {
    const candidates = (body?.members ?? []).filter((m) => (frame.kind === 'block' ? m.kind === 'Block' && m.name.text === frame.name : m.kind === 'Named' && m.body !== undefined));
    const around = candidates.find((m) => m.range.start <= offset && offset <= m.range.end) ?? candidates.filter((m) => m.range.start <= offset).pop();
    body = around?.kind === 'Block' || around?.kind === 'Named' ? around.body : undefined;
  }
  return body;
}

/** Properties and blocks a body already has, leaving out the one being typed at the cursor. */
function statedIn(body: A.Body | undefined, offset: number): Stated {
  const stated: Stated = { properties: new Set(), blocks: new Set() };
  const at = (range: A.Range) => range.start <= offset && offset <= range.end;
  for (const m of body?.members ?? []) {
    if (m.kind === 'Property' && !at({ start: m.path[0].range.start, end: m.path[m.path.length - 1].range.end })) stated.properties.add(m.path.map((p) => p.text).join('.'));
    if (m.kind === 'Block' && !at(m.name.range)) stated.blocks.add(m.name.text);
  }
  return stated;
}
