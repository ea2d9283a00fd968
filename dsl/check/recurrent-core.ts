// A policy with a recurrent core (`core: gru(64)`, dsl/schema/policies.ts) needs an algorithm
// that carries its state through rollouts and trains it over sequences: those whose registry
// entry says `recurrent` (PPO). Any other (DQN's replay, SAC's, the offline learners) is an
// error, reported at the experiment's own choice of algorithm (or stage), with the core's
// setting as related information; a base that made both choices reports it itself.
import { algorithmSpec, type AlgorithmSpec } from '../schema/index.js';
import type * as A from '../syntax/ast.js';
import type { DeclSymbol, Effective } from '../semantics/model.js';
import type { CheckContext } from './context.js';
import { constantNumber } from '../semantics/constant.js';
import { EXPERIMENT } from '../schema/declarations.js';

export function checkRecurrentCore(ctx: CheckContext, symbol: DeclSymbol, stages: readonly Effective<A.NamedMember>[]): void {
  const { model } = ctx;
  const policyTarget = model.referencedTarget(symbol, 'policy');
  if (policyTarget?.kind !== 'decl') return;
  const core = model.effective(policyTarget.symbol).properties.get('core');
  const value = core?.node.value;
  const coreName = value?.kind === 'Name' ? value.parts[0]?.text : value?.kind === 'Call' ? value.callee.parts[0]?.text : undefined;
  if (!core || !value || coreName === undefined || coreName === 'none') return;
  const related = [{ file: core.owner.unit.path, range: value.range, message: `policy ${policyTarget.symbol.name} has core: ${coreName} here` }];
  const refuse = (alg: AlgorithmSpec, at: A.Range, settings?: DeclSymbol) => {
    if (alg.recurrent) {
      checkMinibatches(ctx, symbol, alg, at, settings);
      return;
    }
    ctx.accept('error', 'incompatible-policy',
      `policy ${policyTarget.symbol.name} has a recurrent core (core: ${coreName}), which ${alg.name} cannot carry yet; use PPO, or set core: none in the policy`,
      at, { related });
  };
  const algProp = model.effective(symbol).properties.get('algorithm');
  const algTarget = model.referencedTarget(symbol, 'algorithm');
  const alg = algTarget?.kind === 'builtin' ? algTarget.spec : algTarget ? model.rootBuiltin(algTarget.symbol) : undefined;
  if (algProp?.owner === symbol && algProp.node.value && alg?.declKind === 'algorithm') refuse(alg, algProp.node.value.range, algTarget?.kind === 'decl' ? algTarget.symbol : undefined);
  for (const stage of stages) {
    const baseName = stage.node.base?.name.parts[0];
    if (!baseName || stage.owner !== symbol) continue;
    const target = model.lookup(stage.owner.unit, baseName.text);
    const spec = target?.kind === 'builtin' ? algorithmSpec(target.spec.name) : target ? model.rootBuiltin(target.symbol) : undefined;
    if (spec?.declKind === 'algorithm') refuse(spec, baseName.range, target?.kind === 'decl' ? target.symbol : undefined);
  }
}

/**
 * A recurrent learner splits each rollout into minibatches of whole env copies (runtime/algorithms/
 * ppo/recurrent.ts envsPerMinibatch), so `minibatches` must divide the experiment's `envs`: said
 * here, at minibatches where it is written (else at the algorithm), as train would refuse it.
 * A stage's own minibatches (written in its body) are not read: the trainer still refuses those.
 */
function checkMinibatches(ctx: CheckContext, experiment: DeclSymbol, alg: AlgorithmSpec, at: A.Range, settings: DeclSymbol | undefined): void {
  const { model } = ctx;
  const stated = settings ? model.effective(settings).properties.get('minibatches') : undefined;
  const minibatches = constantNumber(stated?.node.value) ?? numberDefault(alg.params.find((p) => p.name === 'minibatches')?.default);
  const envs = constantNumber(model.effective(experiment).properties.get('envs')?.node.value) ?? numberDefault(EXPERIMENT.params.find((p) => p.name === 'envs')?.default);
  if (minibatches === undefined || envs === undefined || !Number.isInteger(minibatches) || !Number.isInteger(envs) || minibatches < 1 || envs % minibatches === 0) return;
  const divisors = Array.from({ length: envs }, (_, i) => i + 1).filter((d) => envs % d === 0);
  const message = `${alg.name} with a recurrent core splits each rollout into minibatches of whole env copies, so minibatches (${minibatches}) must divide envs (${envs}, experiment ${experiment.name}); `
    + `set minibatches to one of ${divisors.join(', ')}, or envs to a multiple of ${minibatches}`;
  if (stated?.node.value) ctx.forUnit(stated.owner.unit).accept('error', 'out-of-range', message, stated.node.value.range);
  else ctx.accept('error', 'out-of-range', message, at);
}

function numberDefault(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}
