// Completion of values, by the type the schema declares where the cursor is: names of the right
// kind, options, true/false, schedules; inside a call, its argument names and the type of the
// argument; in a reward term, reward names, functions and the paired env's observation fields;
// in `stop:`/`advance:`, metrics.
import { CompletionItemKind, type CompletionItem } from 'vscode-languageserver';
import { ENVS, FUNCTIONS, METRICS, REWARD_NAMES, rewardNameAvailable, SCHEDULES, type EnvSpec, type RewardName, type ValueType } from '../../../dsl/schema/index.js';
import { fieldDoc, metricDoc, rewardNameDoc } from '../shared/docs.js';
import { descend, type ValueScope } from '../../../dsl/navigation/cursor.js';
import type { ExpressionPlace } from '../../../dsl/navigation/prefix.js';
import { alternatives, envsOfReward, partSchema, PARTS, type EnvUse } from '../../../dsl/navigation/body-schema.js';
import { functionSignature, scheduleSignature, type Signature } from '../../../dsl/navigation/signatures.js';
import { defaultText, describeType } from '../../../dsl/navigation/value-text.js';
import { callItem, keywordItem, markdown, nameItems, optionItem, sortKey } from './items.js';
import { taskRows } from '../../../dsl/check/dataset-columns.js';

const CONDITION_FUNCTIONS = FUNCTIONS.filter((f) => !f.text && !f.taskOnly && f.name !== 'novelty' && f.params.every((p) => p.type !== 'vector'));

export function valueItems(outer: ValueScope, place: ExpressionPlace): CompletionItem[] {
  const scope = descend(outer, place.open);
  const innermost = scope.calls[scope.calls.length - 1];
  const call = innermost && innermost.open === place.open[place.open.length - 1] && innermost.open.atStart ? innermost : undefined;
  const envs = outer.mode === 'term' ? envsOfReward(scope.model, scope.owner) : [];
  if (place.qualifier) return qualifiedItems(scope, place.qualifier, envs);
  const items = call ? argumentItems(call.signature, call.open.given, call.open.index) : [];
  if (scope.mode === 'term') items.push(...rewardNameItems(envs), ...functionItems(FUNCTIONS.filter((f) => (!f.text && !f.taskOnly) || envs.length === 0 || envs.some((e) => e.spec.action === 'text' && !(f.taskOnly && e.spec.dialogue)))));
  else if (scope.mode === 'condition') items.push(...METRICS.map((m, i) => ({ label: m.name, kind: CompletionItemKind.Variable, documentation: markdown(metricDoc(m)), sortText: sortKey(0, i) })), ...functionItems(CONDITION_FUNCTIONS));
  else if (!scope.swept) items.push(...typedItems(scope, scope.type));
  return items;
}

/** `over: ` inside `linear(1, 0, |`: arguments not given yet; positional ones only where optional. */
function argumentItems(signature: Signature, given: string[], index: number): CompletionItem[] {
  return signature.params
    .filter((p, i) => !given.includes(p.name) && i >= index && (signature.kind === 'option' || /=/.test(p.label)))
    .map((p, i) => ({ label: `${p.name}:`, kind: CompletionItemKind.Field, detail: p.label, documentation: p.doc, insertText: `${p.name}: `, sortText: sortKey(0, i) }));
}

function typedItems(scope: ValueScope, type: ValueType | undefined): CompletionItem[] {
  const items: CompletionItem[] = [];
  for (const alt of alternatives(type)) {
    if (alt.kind === 'ref') items.push(...nameItems(scope.model, scope.unit, alt.declKind));
    else if (alt.kind === 'choice') items.push(...alt.options.map((o, i) => optionItem(o, i, scope.fallback)));
    else if (alt.kind === 'bool') items.push(keywordItem('true', 0), keywordItem('false', 1));
    else if (alt.kind === 'number' && alt.schedule) items.push(...SCHEDULES.map((s, i) => callItem(scheduleSignature(s), i, (name) => s.params.find((p) => p.name === name)?.required === true)));
    else if (alt.kind === 'path') items.push(...PARTS.flatMap((part) => pathItems(scope, part, `${part}.`)));
  }
  return items;
}

/** Numeric parameters of one part of the experiment, for a curriculum's `param:`. */
function pathItems(scope: ValueScope, part: string, prefix: string): CompletionItem[] {
  const schema = partSchema(scope.model, scope.owner, part);
  if (!schema || schema.params === 'any') return [];
  return schema.params.filter((p) => p.type.kind === 'number').map((p, i) => ({
    label: `${prefix}${p.name}`, kind: CompletionItemKind.Property, detail: `${describeType(p.type)}${defaultText(p) !== undefined ? ` = ${defaultText(p)}` : ''}`, documentation: p.doc, sortText: sortKey(0, i),
  }));
}

function qualifiedItems(scope: ValueScope, qualifier: string[], envs: EnvUse[]): CompletionItem[] {
  const head = qualifier.join('.');
  if (scope.mode === 'condition') {
    return METRICS.filter((m) => m.name.startsWith(`${head}.`)).map((m, i) => ({ label: m.name.slice(head.length + 1), kind: CompletionItemKind.Variable, documentation: markdown(metricDoc(m)), sortText: sortKey(0, i) }));
  }
  if (scope.mode === 'term' && qualifier.length === 1) {
    const spec = REWARD_NAMES.find((n) => n.name === head);
    if (spec?.fields === 'row') return rowItems(scope, envs);
    return spec?.fields ? fieldItems(spec, envs) : [];
  }
  if (alternatives(scope.type).some((t) => t.kind === 'path') && qualifier.length === 1) return pathItems(scope, head, '');
  return [];
}

/** `obs.` fields of the paired envs; with no experiment using the reward yet, of every env, marked with their envs. */
function fieldItems(of: RewardName, envs: EnvUse[]): CompletionItem[] {
  const fieldsOf = (e: EnvSpec) => (of.fields === 'obs' ? e.obsFields : e.infoFields ?? []);
  const sources: { label: string; spec: EnvSpec }[] = envs.length > 0 ? envs : ENVS.map((spec) => ({ label: spec.name, spec }));
  const byField = new Map<string, string[]>();
  for (const source of sources) for (const field of fieldsOf(source.spec)) byField.set(field, [...(byField.get(field) ?? []), source.label]);
  return [...byField].map(([field, owners], i) => ({
    label: field,
    kind: CompletionItemKind.Field,
    labelDetails: { description: owners.join(', ') },
    detail: envs.length > 0 ? `field of ${owners.join(', ')}` : `field of ${owners.join(', ')} (no experiment pairs this reward with an env yet)`,
    documentation: markdown(fieldDoc(of, field, envs)),
    sortText: sortKey(0, i),
  }));
}

/** `row.` fields: the columns of the datasets of the TextTasks this reward is paired with, typed from their first rows. */
function rowItems(scope: ValueScope, envs: EnvUse[]): CompletionItem[] {
  const byField = new Map<string, { type: string; files: string[] }>();
  for (const use of envs) {
    const rows = taskRows(scope.model, scope.model.referencedTarget(use.experiment, 'env'));
    if (rows?.kind !== 'dataset') continue;
    for (const [field, type] of rows.columns) {
      const known = byField.get(field);
      if (known) known.files.push(rows.written);
      else byField.set(field, { type, files: [rows.written] });
    }
  }
  return [...byField].map(([field, { type, files }], i) => ({
    label: field,
    kind: CompletionItemKind.Field,
    labelDetails: { description: files.join(', ') },
    detail: `${type} (a column of ${files.join(', ')})`,
    documentation: markdown(`\`row.${field}\`: the field \`${field}\` of the dataset row the prompt came from (${type} in the first rows of ${files.join(', ')}).`),
    sortText: sortKey(0, i),
  }));
}

function rewardNameItems(envs: EnvUse[]): CompletionItem[] {
  return REWARD_NAMES.filter((n) => envs.length === 0 || envs.some((e) => rewardNameAvailable(n, e.spec))).map((n, i) => ({
    label: n.name, kind: CompletionItemKind.Variable, detail: n.type, documentation: markdown(rewardNameDoc(n, envs)), sortText: sortKey(0, i),
  }));
}

function functionItems(functions: typeof FUNCTIONS): CompletionItem[] {
  return functions.map((f, i) => callItem(functionSignature(f), i, (name) => f.params.find((p) => p.name === name)?.default === undefined));
}
