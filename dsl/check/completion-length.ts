// A text learner's `max_new_tokens` above its env's `max_tokens`: the trainer samples at most
// max_tokens (runtime/text/env.ts clamps it), so the stated length silently does nothing. Warned
// at the stated value, once per experiment that pairs the two, in the file that states it.
import type * as A from '../syntax/ast.js';
import type { DeclSymbol, Effective, Target } from '../semantics/model.js';
import { algorithmSpec, type PlanValue } from '../schema/index.js';
import { constantNumber } from '../semantics/constant.js';
import type { CheckContext } from './context.js';

/** A stated number: its value, where it is written, and in which file. */
interface Stated {
  value: number;
  range: A.Range;
  unit: DeclSymbol['unit'];
}

export function checkCompletionLength(ctx: CheckContext, experiment: DeclSymbol, stages: Effective<A.NamedMember>[]): void {
  const { model } = ctx;
  const envTarget = model.referencedTarget(experiment, 'env');
  const env = model.envSpec(envTarget);
  const maxTokensParam = env?.params.find((p) => p.name === 'max_tokens');
  if (!envTarget || !env || !maxTokensParam) return;
  const maxTokens = envTarget.kind === 'decl' ? statedNumber(model.effective(envTarget.symbol).properties.get('max_tokens'))?.value : undefined;
  const limit = maxTokens ?? numberDefault(maxTokensParam.default);
  if (limit === undefined) return;
  const envName = envTarget.kind === 'builtin' ? envTarget.spec.name : envTarget.symbol.name;

  const lengths: Stated[] = [];
  const fromAlgorithm = (target: Target | undefined) => {
    if (target?.kind !== 'decl') return; // a built-in's default is not a choice the user made
    const stated = statedNumber(model.effective(target.symbol).properties.get('max_new_tokens'));
    if (stated) lengths.push(stated);
  };
  fromAlgorithm(model.referencedTarget(experiment, 'algorithm'));
  for (const stage of stages) {
    const own = stage.node.body?.members.find((m): m is A.Property => m.kind === 'Property' && m.path.length === 1 && m.path[0].text === 'max_new_tokens');
    const value = own ? constantNumber(own.value) : undefined;
    if (own?.value && value !== undefined) {
      lengths.push({ value, range: own.value.range, unit: stage.owner.unit });
      continue;
    }
    const baseName = stage.node.base?.name.parts[0];
    const target = baseName ? model.lookup(stage.owner.unit, baseName.text) : undefined;
    if (target?.kind === 'builtin' && !algorithmSpec(target.spec.name)) continue;
    fromAlgorithm(target);
  }
  for (const length of lengths) {
    if (length.value <= limit) continue;
    ctx.forUnit(length.unit).accept('warning', 'suspicious-value',
      `max_new_tokens is ${length.value}, but ${envName}'s max_tokens is ${limit} (experiment ${experiment.name}): completions stop at ${limit} tokens; raise max_tokens on the env or lower max_new_tokens`,
      length.range);
  }
}

function statedNumber(stated: Effective<A.Property> | undefined): Stated | undefined {
  const value = constantNumber(stated?.node.value);
  return stated?.node.value && value !== undefined ? { value, range: stated.node.value.range, unit: stated.owner.unit } : undefined;
}

function numberDefault(value: PlanValue | undefined): number | undefined {
  return typeof value === 'number' ? value : undefined;
}
