// Hover: what the name under the cursor is, in markdown. For a property, its documentation and
// the value actually in effect, saying where it comes from (set here, inherited, the default).
import * as path from 'node:path';
import { MarkupKind, type Hover, type Position } from 'vscode-languageserver';
import type { Model } from '../../dsl/index.js';
import { pathToUri, toLspRange, toOffset, type DocumentContext } from '../context.js';
import {
  blockDoc, builtinDoc, code, declarationDoc, fieldDoc, join, metricDoc, optionDoc, paramDoc, rewardNameDoc, signatureDoc,
} from './shared/docs.js';
import { occurrenceAt, type Meaning } from '../../dsl/navigation/occurrences.js';
import { inheritedStatement } from '../../dsl/navigation/body-schema.js';
import { MODULE_SIGNATURE } from '../../dsl/navigation/signatures.js';
import { pretrainedHover } from './pretrained-hover.js';
import { defaultText, sourceText } from '../../dsl/navigation/value-text.js';

export function hover(doc: DocumentContext, position: Position): Hover | null {
  const pretrained = pretrainedHover(doc, toOffset(doc.lines, position));
  if (pretrained) return pretrained;
  const { model } = doc.analysis;
  const found = occurrenceAt(model, doc.unit, toOffset(doc.lines, position));
  const markdown = found && describe(model, found.meaning);
  if (!found || !markdown) return null;
  return { contents: { kind: MarkupKind.Markdown, value: markdown }, range: toLspRange(doc.lines, found.range) };
}

function describe(model: Model, meaning: Meaning): string | undefined {
  switch (meaning.kind) {
    case 'declaration': return declarationDoc(model, meaning.symbol);
    case 'reference':
      if (!meaning.target) return undefined;
      return meaning.target.kind === 'decl' ? declarationDoc(model, meaning.target.symbol) : builtinDoc(meaning.target.spec);
    case 'module': return signatureDoc(MODULE_SIGNATURE);
    case 'property': return property(model, meaning);
    case 'block': return meaning.spec && blockDoc(meaning.spec);
    case 'member': return member(model, meaning);
    case 'option': return optionDoc(meaning.option);
    case 'call': return signatureDoc(meaning.signature);
    case 'argument': {
      const param = meaning.signature.params.find((p) => p.name === meaning.name);
      return param && join(code(`(argument) ${meaning.signature.name}(${param.label})`), param.doc);
    }
    case 'reward-name': return rewardNameDoc(meaning.spec, meaning.envs);
    case 'field': return fieldDoc(meaning.of, meaning.name, meaning.envs);
    case 'metric': return metricDoc(meaning.metric);
    case 'import':
      return join(code('import'), meaning.path ? `Imports [${path.basename(meaning.path)}](${pathToUri(meaning.path)})` : undefined);
  }
}

/** The parameter's documentation, then the value in effect and where it comes from. */
function property(model: Model, meaning: Meaning & { kind: 'property' }): string | undefined {
  const { param, schema, node, owner } = meaning;
  if (!param || !schema) return undefined;
  const inherited = inheritedStatement(model, schema.inherits, param.name, schema.block);
  const inheritedText = inherited?.node.value && `\`${sourceText(inherited.owner.unit.text, inherited.node.value.range)}\` from ${inherited.owner.name}`;
  const fallback = defaultText(param);
  const underlying = inheritedText ?? (fallback !== undefined ? `the default \`${fallback}\`` : undefined);
  let effect: string | undefined;
  if (node?.value && owner.decl.declKind === 'sweep' && schema.label !== 'sweep') {
    effect = `Swept over \`${sourceText(owner.unit.text, node.value.range)}\`${underlying ? `; otherwise ${underlying}` : ''}.`;
  } else if (node?.value) {
    effect = `In effect: \`${sourceText(owner.unit.text, node.value.range)}\`, set here${underlying ? ` (overrides ${underlying})` : ''}.`;
  } else if (inheritedText) {
    effect = `In effect: ${inheritedText.replace(' from ', ', inherited from ')}.`;
  } else if (fallback !== undefined) {
    effect = `In effect: the default \`${fallback}\`.`;
  }
  return join(paramDoc(param, schema.label), effect);
}

function member(model: Model, meaning: Meaning & { kind: 'member' }): string {
  const { node, owner } = meaning;
  const text = sourceText(owner.unit.text, node.range, 80);
  const name = node.name?.text;
  // A derived reward (or experiment) replaces a term (or stage) of its base that has the same name.
  const overridden = owner.decl.base && name ? model.effective(owner).chain.slice(1).find((s) => s.decl.body?.members.some((m) => m.kind === 'Named' && m.name?.text === name)) : undefined;
  return join(
    code(text),
    `${node.memberKind === 'term' ? 'Term of reward' : 'Stage of experiment'} ${owner.name}.`,
    overridden && `Replaces the ${node.memberKind} \`${name}\` of ${overridden.name}.`,
  );
}
