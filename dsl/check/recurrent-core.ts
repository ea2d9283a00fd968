// A policy with a recurrent core (`core: gru(64)`, dsl/schema/policies.ts) needs an algorithm
// that carries its state through rollouts and trains it over sequences: those whose registry
// entry says `recurrent` (PPO). Any other (DQN's replay, SAC's, the offline learners) is an
// error, reported at the experiment's own choice of algorithm (or stage), with the core's
// setting as related information; a base that made both choices reports it itself.
import { algorithmSpec, type AlgorithmSpec } from '../schema/index.js';
import type * as A from '../syntax/ast.js';
import type { DeclSymbol, Effective } from '../semantics/model.js';
import type { CheckContext } from './context.js';

export function checkRecurrentCore(ctx: CheckContext, symbol: DeclSymbol, stages: readonly Effective<A.NamedMember>[]): void {
  const { model } = ctx;
  const policyTarget = model.referencedTarget(symbol, 'policy');
  if (policyTarget?.kind !== 'decl') return;
  const core = model.effective(policyTarget.symbol).properties.get('core');
  const value = core?.node.value;
  const coreName = value?.kind === 'Name' ? value.parts[0]?.text : value?.kind === 'Call' ? value.callee.parts[0]?.text : undefined;
  if (!core || !value || coreName === undefined || coreName === 'none') return;
  const related = [{ file: core.owner.unit.path, range: value.range, message: `policy ${policyTarget.symbol.name} has core: ${coreName} here` }];
  const refuse = (alg: AlgorithmSpec, at: A.Range) => {
    if (alg.recurrent) return;
    ctx.accept('error', 'incompatible-policy',
      `policy ${policyTarget.symbol.name} has a recurrent core (core: ${coreName}), which ${alg.name} cannot carry yet; use PPO, or set core: none in the policy`,
      at, { related });
  };
  const algProp = model.effective(symbol).properties.get('algorithm');
  const algTarget = model.referencedTarget(symbol, 'algorithm');
  const alg = algTarget?.kind === 'builtin' ? algTarget.spec : algTarget ? model.rootBuiltin(algTarget.symbol) : undefined;
  if (algProp?.owner === symbol && algProp.node.value && alg?.declKind === 'algorithm') refuse(alg, algProp.node.value.range);
  for (const stage of stages) {
    const baseName = stage.node.base?.name.parts[0];
    if (!baseName || stage.owner !== symbol) continue;
    const target = model.lookup(stage.owner.unit, baseName.text);
    const spec = target?.kind === 'builtin' ? algorithmSpec(target.spec.name) : target ? model.rootBuiltin(target.symbol) : undefined;
    if (spec?.declKind === 'algorithm') refuse(spec, baseName.range);
  }
}
