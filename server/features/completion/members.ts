// Completion where a member starts: the properties the body's schema allows and it does not set
// yet (an inherited one may still be overridden and says so), its blocks, `term`/`stage`; in a
// sweep, the experiment's properties and the paths into its parts (`algorithm.` then the
// algorithm's parameters).
import { CompletionItemKind, InsertTextFormat, type CompletionItem } from 'vscode-languageserver';
import { DECLARATION_SCHEMAS, type ParamSpec } from '../../../dsl/schema/index.js';
import type { DeclSymbol, Model } from '../../../dsl/index.js';
import { blockDoc, join, paramDoc } from '../shared/docs.js';
import { inheritedStatement, PARTS, sweepSegment, sweptExperiment, type BodySchema } from '../../../dsl/navigation/body-schema.js';
import { describeType, defaultText, sourceText } from '../../../dsl/navigation/value-text.js';
import { markdown, sortKey } from './items.js';

/** What the body around the cursor already holds, from the syntax tree. */
export interface Stated {
  properties: Set<string>;
  blocks: Set<string>;
}

export function propertyItems(model: Model, schema: BodySchema, stated: Stated): CompletionItem[] {
  if (schema.params === 'any') return [];
  const items = schema.params.filter((p) => !stated.properties.has(p.name)).map((p, i) => propertyItem(model, schema, p, i));
  schema.blocks.filter((b) => !stated.blocks.has(b.name)).forEach((b, i) => {
    const required = b.params.filter((p) => p.required).map((p, j) => `\n  ${p.name}: $${j + 1}`).join('');
    items.push({
      label: b.name,
      kind: CompletionItemKind.Module,
      detail: `${b.name} { }`,
      documentation: markdown(blockDoc(b)),
      insertText: `${b.name} {${required || '\n  $1'}\n}`,
      insertTextFormat: InsertTextFormat.Snippet,
      sortText: sortKey(3, i),
    });
  });
  if (schema.named === 'term') items.push(namedItem('term', 'term ${1:name} = $0', 'a reward term: an expression summed into the reward each step'));
  if (schema.named === 'stage') items.push(namedItem('stage', 'stage ${1:name} = ${2:PPO} {\n  budget: ${3:100k}\n}', 'a training stage: an algorithm with its own budget'));
  return items;
}

function namedItem(keyword: string, body: string, detail: string): CompletionItem {
  return { label: keyword, kind: CompletionItemKind.Keyword, detail, insertText: body, insertTextFormat: InsertTextFormat.Snippet, sortText: sortKey(4, 0) };
}

/** `learning_rate` with its type and default; required ones first, inherited ones last. */
function propertyItem(model: Model, schema: BodySchema, param: ParamSpec, index: number): CompletionItem {
  const inherited = inheritedStatement(model, schema.inherits, param.name, schema.block);
  const inheritedValue = inherited?.node.value && sourceText(inherited.owner.unit.text, inherited.node.value.range, 30);
  const fallback = defaultText(param);
  const description = inheritedValue !== undefined ? `inherited: ${inheritedValue}` : param.required ? 'required' : fallback !== undefined ? `default: ${fallback}` : undefined;
  return {
    label: param.name,
    kind: CompletionItemKind.Property,
    labelDetails: description ? { description } : {},
    detail: `${describeType(param.type)}${inheritedValue !== undefined ? ` (inherited from ${inherited!.owner.name}: ${inheritedValue})` : fallback !== undefined ? ` = ${fallback}` : ''}`,
    documentation: markdown(join(paramDoc(param, schema.label), inheritedValue !== undefined && `Inherited from ${inherited!.owner.name}: \`${inheritedValue}\``)),
    // The value as a placeholder to type over or Tab past: what it is now (inherited), else its default.
    insertText: `${param.name}: ${valuePlaceholder(inheritedValue ?? fallback)}`,
    insertTextFormat: InsertTextFormat.Snippet,
    sortText: sortKey(inheritedValue !== undefined ? 2 : param.required ? 0 : 1, index),
  };
}

/** `${1:0.99}`, or an empty tab stop for a value with no default; snippet syntax in the text escaped. */
function valuePlaceholder(value: string | undefined): string {
  return value === undefined || value === '' ? '$1' : `\${1:${value.replace(/[\\$}]/g, '\\$&')}}`;
}

/** A sweep's members: its settings, the experiment's own properties, and `part.` paths. */
export function sweepMemberItems(model: Model, sweep: DeclSymbol, stated: Stated): CompletionItem[] {
  const own = DECLARATION_SCHEMAS.sweep;
  const experiment = DECLARATION_SCHEMAS.experiment;
  const items = propertyItems(model, { params: own.params, blocks: own.blocks, label: 'sweep', inherits: undefined }, stated);
  const target = sweptExperiment(model, sweep);
  const swept = experiment.params.filter((p) => !own.params.some((o) => o.name === p.name) && !stated.properties.has(p.name));
  swept.forEach((p, i) => items.push({ ...propertyItem(model, { params: experiment.params, blocks: [], label: 'experiment', inherits: target }, p, i), insertText: `${p.name}: [$1]`, insertTextFormat: InsertTextFormat.Snippet, sortText: sortKey(5, i) }));
  [...PARTS, ...experiment.blocks.map((b) => b.name)].forEach((head, i) => {
    const schema = sweepSegment(model, sweep, head);
    items.push({
      label: `${head}.`,
      kind: CompletionItemKind.Module,
      detail: schema ? `parameters of ${schema.label}` : `a path into the experiment's ${head}`,
      insertText: `${head}.`,
      sortText: sortKey(6, i),
    });
  });
  return items;
}

/** After `algorithm.` in a sweep: the parameters of the experiment's algorithm, swept as lists. */
export function sweepPathItems(model: Model, sweep: DeclSymbol, head: string, stated: Stated): CompletionItem[] {
  const schema = sweepSegment(model, sweep, head);
  if (!schema || schema.params === 'any') return [];
  return schema.params.filter((p) => !stated.properties.has(`${head}.${p.name}`)).map((p, i) => ({
    ...propertyItem(model, schema, p, i),
    insertText: `${p.name}: [$1]`,
    insertTextFormat: InsertTextFormat.Snippet,
  }));
}
