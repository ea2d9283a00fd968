// Markdown for the things an editor documents: parameters, built-ins, user declarations,
// callables, reward names, metrics. Hover shows these whole; completion shows them beside an item.
import * as path from 'node:path';
import type { BlockSpec, BuiltinSpec, ChoiceOption, MetricName, ParamSpec, RewardName } from '../../../dsl/schema/index.js';
import type { DeclSymbol, Model } from '../../../dsl/index.js';
import { linesOf, pathToUri } from '../../context.js';
import type { EnvUse } from '../../../dsl/navigation/body-schema.js';
import type { Signature } from '../../../dsl/navigation/signatures.js';
import { defaultText, describeRange, describeType, sourceText } from '../../../dsl/navigation/value-text.js';

export function code(text: string): string {
  return '```rlx\n' + text + '\n```';
}

export function join(...sections: (string | undefined | false)[]): string {
  return sections.filter((s): s is string => typeof s === 'string' && s.length > 0).join('\n\n');
}

/** Type, default and valid range of a parameter, one line each. */
export function paramFacts(param: ParamSpec): string {
  const fallback = defaultText(param);
  const range = describeRange(param.type);
  return [
    `Type: \`${describeType(param.type)}\``,
    param.required ? 'Required' : fallback !== undefined ? `Default: \`${fallback}\`` : 'No default (optional)',
    range && `Range: ${range}`,
  ].filter(Boolean).join('  \n');
}

export function paramDoc(param: ParamSpec, label: string): string {
  return join(code(`(property) ${label}.${param.name}: ${describeType(param.type)}`), param.doc, paramFacts(param));
}

export function builtinDoc(spec: BuiltinSpec): string {
  const params = spec.params.map((p) => {
    const fallback = defaultText(p);
    return `- \`${p.name}\`${fallback !== undefined ? ` = \`${fallback}\`` : ''}: ${p.doc}`;
  });
  const env = spec.declKind === 'env' && spec.obsFields.length > 0 ? `Observation fields: ${spec.obsFields.map((f) => `\`${f}\``).join(', ')}` : undefined;
  const actions = spec.declKind === 'env' ? `Actions: ${spec.action}` : spec.declKind === 'algorithm' ? `Trains on ${spec.actions.join(', ')} actions` : undefined;
  return join(code(`${spec.declKind} ${spec.name} (built-in)`), spec.doc, actions, env, params.length > 0 && `Parameters:\n${params.join('\n')}`);
}

/** `file.rlx, line 12` as a link that opens the file there. */
export function whereDeclared(symbol: DeclSymbol): string {
  const line = linesOf(symbol.unit).position(symbol.decl.range.start).line + 1;
  return `[${path.basename(symbol.unit.path)}, line ${line}](${pathToUri(symbol.unit.path)}#L${line})`;
}

/** The header of a declaration as written: `algorithm Fast = Tuned`, `sweep S over Balance`. */
export function declarationHeader(symbol: DeclSymbol): string {
  const { decl, unit } = symbol;
  const base = decl.base ? ` = ${sourceText(unit.text, decl.base.range)}` : decl.over ? ` over ${sourceText(unit.text, decl.over.range)}` : '';
  return `${decl.declKind} ${symbol.name}${base}`;
}

const MAX_LISTED = 12;

export function declarationDoc(model: Model, symbol: DeclSymbol): string {
  const effective = model.effective(symbol);
  const chain = effective.chain.map((s) => s.name);
  if (effective.root.kind === 'builtin') chain.push(effective.root.spec.name);
  const lines = [...effective.properties].map(([key, { node, owner }]) =>
    `- \`${key}: ${node.value ? sourceText(owner.unit.text, node.value.range) : ''}\`${owner === symbol ? '' : ` (from ${owner.name})`}`);
  const terms = [...effective.named.values()].filter((n) => n.node.name).map(({ node, owner }) =>
    `- \`${node.memberKind} ${node.name!.text}\`${owner === symbol ? '' : ` (from ${owner.name})`}`);
  const listed = [...lines, ...terms];
  // A learner (or env) module's own doc, from its spec: what the code says it does.
  const moduleDoc = effective.root.kind === 'module' ? model.rootBuiltin(symbol)?.doc : undefined;
  const more = listed.length > MAX_LISTED ? `\n- … and ${listed.length - MAX_LISTED} more` : '';
  return join(
    code(declarationHeader(symbol)),
    symbol.decl.doc,
    moduleDoc,
    chain.length > 2 && `Inherits: ${chain.join(' → ')}`,
    listed.length > 0 && `${listed.slice(0, MAX_LISTED).join('\n')}${more}`,
    `Declared in ${whereDeclared(symbol)}`,
  );
}

export function signatureDoc(signature: Signature): string {
  const params = signature.params.filter((p) => p.doc).map((p) => `- \`${p.name}\`: ${p.doc}`);
  return join(code(signature.label), signature.doc, params.length > 0 && params.join('\n'));
}

export function optionDoc(option: ChoiceOption): string {
  const params = (option.params ?? []).map((p) => `- \`${p.name}\`${defaultText(p) !== undefined ? ` = \`${defaultText(p)}\`` : ''}: ${p.doc}`);
  const label = option.params?.length ? `${option.name}(${option.params.map((p) => p.name).join(', ')})` : option.name;
  return join(code(`(option) ${label}`), option.doc, params.length > 0 && params.join('\n'));
}

export function blockDoc(spec: BlockSpec): string {
  const params = spec.params.map((p) => `- \`${p.name}\`${p.required ? ' (required)' : defaultText(p) !== undefined ? ` = \`${defaultText(p)}\`` : ''}: ${p.doc}`);
  return join(code(`${spec.name} { }`), spec.doc, params.join('\n'));
}

/** Where a reward's `obs` fields come from, for people: "paired with Pole (CartPole) in Balance". */
export function pairing(envs: EnvUse[]): string {
  if (envs.length === 0) return 'No experiment uses this reward yet, so no env is paired with it.';
  return `Paired with ${envs.map((e) => `${e.label} in ${e.experiment.name}`).join('; ')}.`;
}

export function rewardNameDoc(spec: RewardName, envs: EnvUse[]): string {
  const fields = spec.fields === 'obs' && envs.length > 0
    ? envs.map((e) => `Fields of ${e.label}: ${e.spec.obsFields.map((f) => `\`${f}\``).join(', ') || '(none)'}`).join('  \n')
    : undefined;
  return join(code(`${spec.name}: ${spec.type}`), spec.doc, fields, spec.fields === 'obs' && pairing(envs));
}

export function fieldDoc(of: RewardName, name: string, envs: EnvUse[]): string {
  if (of.fields === 'row') return join(code(`row.${name}`), `The field \`${name}\` of the dataset row the prompt came from.`);
  const having = envs.filter((e) => (of.fields === 'obs' ? e.spec.obsFields : e.spec.infoFields ?? []).includes(name));
  const what = of.fields === 'obs' ? 'Observation field' : 'Info value';
  const source = having.length > 0 ? `${what} of ${having.map((e) => e.label).join(', ')}.` : `${what}.`;
  return join(code(`${of.name}.${name}: number`), source, of.fields === 'obs' && pairing(envs));
}

export function metricDoc(metric: MetricName): string {
  return join(code(`(metric) ${metric.name}`), metric.doc);
}
