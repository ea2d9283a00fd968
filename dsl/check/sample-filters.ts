// GRPO's DAPO sample filters (dynamic_sampling, overlong; runtime/algorithms/text/collect.ts and
// overlong.ts) where a setting would do nothing, or cannot apply:
// - on the algorithm: max_sampling_rounds without dynamic_sampling, overlong_buffer without
//   overlong: penalize (warnings, at the stated setting), and a buffer as long as
//   max_new_tokens, which penalises every completion;
// - on the experiment: overlong drop/penalize with a dialogue env, whose samples are several agent
//   turns each cut at its own limit (an error: the trainer refuses it too).
import type * as A from '../syntax/ast.js';
import type { DeclSymbol, Effective, Target } from '../semantics/model.js';
import { constantNumber } from '../semantics/constant.js';
import { algorithmSpec, builtin } from '../schema/index.js';
import type { CheckContext } from './context.js';

/** A single-word value as written (`penalize`, `true`), or undefined. */
function word(value: A.Expression | undefined): string | undefined {
  if (value?.kind === 'Boolean') return String(value.value);
  return value?.kind === 'Name' && value.parts.length === 1 ? value.parts[0].text : undefined;
}

/** Warnings on one GRPO declaration; `at` is where this declaration states a property. */
export function checkSampleFilterSettings(ctx: CheckContext, symbol: DeclSymbol, at: (x: { stated?: Effective<A.Property> } | undefined) => A.Range | undefined): void {
  const props = ctx.model.effective(symbol).properties;
  const rounds = props.get('max_sampling_rounds');
  const roundsAt = at({ stated: rounds });
  if (roundsAt && word(props.get('dynamic_sampling')?.node.value) !== 'true') {
    ctx.accept('warning', 'suspicious-value', 'max_sampling_rounds has no effect without dynamic_sampling: true; set dynamic_sampling: true, or remove max_sampling_rounds', roundsAt);
  }
  const buffer = props.get('overlong_buffer');
  const bufferAt = at({ stated: buffer });
  if (!bufferAt) return;
  const overlong = word(props.get('overlong')?.node.value) ?? 'keep';
  if (overlong !== 'penalize') {
    ctx.accept('warning', 'suspicious-value', `overlong_buffer has no effect with overlong: ${overlong}: only the penalty uses it; set overlong: penalize, or remove overlong_buffer`, bufferAt);
    return;
  }
  const size = constantNumber(buffer?.node.value);
  const stated = constantNumber(props.get('max_new_tokens')?.node.value);
  const def = (ctx.model.rootBuiltin(symbol) ?? builtin(symbol.name))?.params.find((p) => p.name === 'max_new_tokens')?.default;
  const maxNew = stated ?? (typeof def === 'number' ? def : undefined);
  if (size !== undefined && maxNew !== undefined && size >= maxNew) {
    ctx.accept('warning', 'suspicious-value', `overlong_buffer (${size}) is not below max_new_tokens (${maxNew}): every completion is penalised, the shortest too; a fifth of max_new_tokens is DAPO's proportion`, bufferAt);
  }
}

/** overlong drop/penalize stated by an algorithm (or stage) of an experiment whose env is a dialogue: an error at the stated value. */
export function checkOverlongEnv(ctx: CheckContext, experiment: DeclSymbol, stages: Effective<A.NamedMember>[]): void {
  const { model } = ctx;
  const envTarget = model.referencedTarget(experiment, 'env');
  const env = model.envSpec(envTarget);
  if (!env?.dialogue) return;
  const found: { value: string; range: A.Range; unit: DeclSymbol['unit'] }[] = [];
  const stated = (property: Effective<A.Property> | undefined) => {
    const value = word(property?.node.value);
    if (property?.node.value && value && value !== 'keep') found.push({ value, range: property.node.value.range, unit: property.owner.unit });
  };
  const fromAlgorithm = (target: Target | undefined) => {
    if (target?.kind === 'decl') stated(model.effective(target.symbol).properties.get('overlong'));
  };
  fromAlgorithm(model.referencedTarget(experiment, 'algorithm'));
  for (const stage of stages) {
    const own = stage.node.body?.members.find((m): m is A.Property => m.kind === 'Property' && m.path.length === 1 && m.path[0].text === 'overlong');
    if (own) {
      stated({ node: own, owner: stage.owner } as Effective<A.Property>);
      continue;
    }
    const baseName = stage.node.base?.name.parts[0];
    const target = baseName ? model.lookup(stage.owner.unit, baseName.text) : undefined;
    if (target?.kind === 'builtin' && !algorithmSpec(target.spec.name)) continue;
    fromAlgorithm(target);
  }
  const envName = envTarget?.kind === 'builtin' ? envTarget.spec.name : envTarget?.symbol.name;
  for (const f of found) {
    ctx.forUnit(f.unit).accept('error', 'incompatible-env', `overlong: ${f.value} needs a single-turn text task (TextTask), but ${envName} is a dialogue (experiment ${experiment.name}): its agent turns are each cut at their own limit; use overlong: keep`, f.range);
  }
}
