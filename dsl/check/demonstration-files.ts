// A file of demonstrations (a `file` setting of format `examples`: SFT's `data`, GRPO's
// `sft_data`) in an experiment whose env is a text env but not a TextTask (GuessNumber, a text
// module): its rows take a TextTask's prompt and answer layout, so the trainer refuses it.
// Reported here with the trainer's reason (dsl/schema/dataset.ts examplesNeedTextTask), at the
// value, in the file that states it: a spec that checks clean trains.
import type * as A from '../syntax/ast.js';
import type { DeclSymbol, Effective, Target } from '../semantics/model.js';
import { examplesNeedTextTask } from '../schema/dataset.js';
import { algorithmSpec, fileTypeOf, type AlgorithmSpec } from '../schema/index.js';
import type { CheckContext } from './context.js';

export function checkDemonstrationFiles(ctx: CheckContext, experiment: DeclSymbol, stages: Effective<A.NamedMember>[]): void {
  const { model } = ctx;
  const envTarget = model.referencedTarget(experiment, 'env');
  const env = model.envSpec(envTarget);
  if (!envTarget || env?.action !== 'text' || env.name === 'TextTask') return;
  const envName = envTarget.kind === 'builtin' ? envTarget.spec.name : envTarget.symbol.name;

  /** Each stated value of `spec`'s file settings of examples, from `properties` (a body's own, or a declaration's effective ones). */
  const report = (spec: AlgorithmSpec, stated: (name: string) => { value: A.Expression | undefined; unit: DeclSymbol['unit'] } | undefined) => {
    for (const param of spec.params) {
      const at = stated(param.name);
      if (at?.value?.kind !== 'String' || fileTypeOf(param.type, at.value.value)?.format !== 'examples') continue;
      ctx.forUnit(at.unit).accept('error', 'incompatible-env', `${examplesNeedTextTask(spec.name, param.name, at.value.value)} (experiment ${experiment.name}, env ${envName})`, at.value.range);
    }
  };
  const fromDeclaration = (target: Target | undefined, own?: A.Body, ownUnit?: DeclSymbol['unit']) => {
    const spec = target?.kind === 'builtin' ? algorithmSpec(target.spec.name) : target ? model.rootBuiltin(target.symbol) : undefined;
    if (spec?.declKind !== 'algorithm') return;
    const properties = target?.kind === 'decl' ? model.effective(target.symbol).properties : undefined;
    report(spec, (name) => {
      const local = own?.members.find((m): m is A.Property => m.kind === 'Property' && m.path.length === 1 && m.path[0].text === name);
      if (local) return { value: local.value, unit: ownUnit! };
      const inherited = properties?.get(name);
      return inherited ? { value: inherited.node.value, unit: inherited.owner.unit } : undefined;
    });
  };
  if (stages.length === 0) fromDeclaration(model.referencedTarget(experiment, 'algorithm'));
  for (const stage of stages) {
    const baseName = stage.node.base?.name.parts[0];
    fromDeclaration(baseName ? model.lookup(stage.owner.unit, baseName.text) : undefined, stage.node.body, stage.owner.unit);
  }
}
