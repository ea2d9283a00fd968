// `credit: turn` (GRPO, REINFORCE) where the experiment's env is not a dialogue: a TextTask sample
// is one turn, whose return-to-go is its reward, and a numeric env's REINFORCE credits every step
// with its episode's return whatever `credit` says; the setting silently does nothing. Warned at
// the stated value, once per experiment that pairs the two, in the file that states it.
import type * as A from '../syntax/ast.js';
import type { DeclSymbol, Effective, Target } from '../semantics/model.js';
import { algorithmSpec } from '../schema/index.js';
import type { CheckContext } from './context.js';

export function checkTurnCredit(ctx: CheckContext, experiment: DeclSymbol, stages: Effective<A.NamedMember>[]): void {
  const { model } = ctx;
  const envTarget = model.referencedTarget(experiment, 'env');
  const env = model.envSpec(envTarget);
  if (!envTarget || !env || env.dialogue) return;
  const envName = envTarget.kind === 'builtin' ? envTarget.spec.name : `${envTarget.symbol.name} (${env.name})`;

  const stated: { range: A.Range; unit: DeclSymbol['unit'] }[] = [];
  const isTurn = (value: A.Expression | undefined) => value?.kind === 'Name' && value.parts.length === 1 && value.parts[0].text === 'turn';
  const fromAlgorithm = (target: Target | undefined) => {
    if (target?.kind !== 'decl') return; // a built-in's default is episode
    const credit = model.effective(target.symbol).properties.get('credit');
    if (credit?.node.value && isTurn(credit.node.value)) stated.push({ range: credit.node.value.range, unit: credit.owner.unit });
  };
  fromAlgorithm(model.referencedTarget(experiment, 'algorithm'));
  for (const stage of stages) {
    const own = stage.node.body?.members.find((m): m is A.Property => m.kind === 'Property' && m.path.length === 1 && m.path[0].text === 'credit');
    if (own?.value) {
      if (isTurn(own.value)) stated.push({ range: own.value.range, unit: stage.owner.unit });
      continue;
    }
    const baseName = stage.node.base?.name.parts[0];
    const target = baseName ? model.lookup(stage.owner.unit, baseName.text) : undefined;
    if (target?.kind === 'builtin' && !algorithmSpec(target.spec.name)) continue;
    fromAlgorithm(target);
  }
  const why = env.action === 'text'
    ? `${envName} is single-turn: each sample is one turn, whose return-to-go is its reward`
    : `${envName} is not a text dialogue, and REINFORCE credits each of its steps with the episode's return`;
  for (const at of stated) {
    ctx.forUnit(at.unit).accept('warning', 'suspicious-value',
      `credit: turn has no effect: ${why} (experiment ${experiment.name}); it applies to dialogues (GuessNumber, a text module): remove it or use credit: episode`,
      at.range);
  }
}
