// Warnings where a spec uses something the language declares but the trainer does not run
// yet (a `notImplemented` reason in dsl/schema, the same words `rlx train` refuses with), so
// that a spec never checks clean and then fails at train time. Each warning sits at the name
// the user wrote: the built-in, the block, the stage, the metric.
import {
  algorithmSpec, METRICS, type AlgorithmSpec, type EnvSpec,
} from '../schema/index.js';
import type * as A from '../syntax/ast.js';
import { nameText } from '../syntax/ast.js';
import type { DeclSymbol } from '../semantics/model.js';
import type { CheckContext } from './context.js';

/** Properties whose value names a built-in. */
const REFERENCE_PROPERTIES = ['env', 'policy', 'algorithm'];

export function checkSupport(ctx: CheckContext, symbol: DeclSymbol): void {
  const { decl } = symbol;
  const base = decl.base?.name.parts;
  if (base?.length === 1) warnIfBuiltinNotImplemented(ctx, symbol.unit, base[0]);
  for (const member of decl.body?.members ?? []) {
    if (member.kind === 'Property') {
      const key = member.path.map((p) => p.text).join('.');
      if (REFERENCE_PROPERTIES.includes(key)) {
        // A sweep lists several: `env: [CartPole, GuessNumber]`.
        const values = member.value?.kind === 'List' ? member.value.items : member.value ? [member.value] : [];
        for (const v of values) if (v.kind === 'Name' && v.parts.length === 1) warnIfBuiltinNotImplemented(ctx, symbol.unit, v.parts[0]);
      }
    } else if (member.kind === 'Named' && member.memberKind === 'stage') {
      const stageBase = member.base?.name.parts;
      if (stageBase?.length === 1) warnIfBuiltinNotImplemented(ctx, symbol.unit, stageBase[0]);
    }
  }
  if (decl.declKind === 'experiment') checkExperimentSupport(ctx, symbol);
}

function warnIfBuiltinNotImplemented(ctx: CheckContext, unit: CheckContext['unit'], name: A.Identifier): void {
  const target = ctx.model.lookup(unit, name.text);
  if (target?.kind !== 'builtin' || target.spec.notImplemented === undefined) return;
  const spec = target.spec;
  ctx.accept('warning', 'not-implemented', `${spec.declKind} ${spec.name} is not implemented in the trainer yet (\`rlx train\` will refuse it): ${spec.notImplemented}`, name.range);
}

/** The built-in env at the root of what the experiment trains in; `module` for user code. */
function envOf(ctx: CheckContext, experiment: DeclSymbol): EnvSpec | 'module' | undefined {
  const target = ctx.model.referencedTarget(experiment, 'env');
  if (!target) return undefined;
  if (target.kind === 'builtin') return target.spec.declKind === 'env' ? target.spec : undefined;
  const root = ctx.model.effective(target.symbol).root;
  // A module that declares its spec (a text env, say) is paired like the built-in it resembles.
  if (root.kind === 'module') return ctx.model.envSpec(target) ?? 'module';
  return root.kind === 'builtin' && root.spec.declKind === 'env' ? root.spec : undefined;
}

/** What depends on the pairing of parts: an algorithm not yet run on this kind of env, stages, text-only metrics. */
function checkExperimentSupport(ctx: CheckContext, symbol: DeclSymbol): void {
  const { model } = ctx;
  const effective = model.effective(symbol);
  if (effective.cyclic) return;
  const env = envOf(ctx, symbol);
  if (!env) return;
  const text = env !== 'module' && env.action === 'text';
  const envProp = effective.properties.get('env')!;
  const ownEnv = envProp.owner === symbol ? envProp.node.value?.range : undefined;
  const stages = [...effective.named.values()].filter((n) => n.node.memberKind === 'stage');

  const warnAction = (spec: AlgorithmSpec, at: A.Range | undefined) => {
    const why = env !== 'module' ? spec.actionsNotImplemented?.[env.action] : undefined;
    if (why && at) ctx.accept('warning', 'not-implemented', `${spec.name} on ${env === 'module' ? 'a user env' : env.name} is not implemented in the trainer yet (\`rlx train\` will refuse it): ${why}`, at);
  };
  const algProp = effective.properties.get('algorithm');
  const algTarget = model.referencedTarget(symbol, 'algorithm');
  const alg = algTarget?.kind === 'builtin' ? algorithmSpec(algTarget.spec.name) : algTarget ? model.rootBuiltin(algTarget.symbol) : undefined;
  if (algProp && alg?.declKind === 'algorithm' && stages.length === 0) warnAction(alg, algProp.owner === symbol ? algProp.node.value?.range : ownEnv);
  for (const stage of stages) {
    const name = stage.node.base?.name.parts[0];
    const target = name && model.lookup(stage.owner.unit, name.text);
    const spec = target?.kind === 'builtin' ? algorithmSpec(target.spec.name) : target ? model.rootBuiltin(target.symbol) : undefined;
    if (spec?.declKind === 'algorithm') warnAction(spec, stage.owner === symbol ? name!.range : ownEnv);
  }

  const stop = effective.properties.get('stop');
  if (stop?.owner === symbol && stop.node.value) {
    // Only an `eval { }` block gives eval.* a value: without one the condition never holds and
    // the run trains its whole budget (the same as curriculum.ts says of `advance`).
    // Metrics warned about below (or unknown ones, an error of their own) are left to that.
    const measured = (n: string) => METRICS.some((m) => m.name === n && m.notImplemented === undefined && (!m.textOnly || text));
    const evalNames = effective.blocks.has('eval') ? [] : [...new Set(namesIn(stop.node.value).map(nameText).filter((n) => n.startsWith('eval.') && measured(n)))];
    if (evalNames.length > 0) {
      ctx.accept('warning', 'suspicious-value', `stop reads ${evalNames.join(', ')}, which has no value without an \`eval { every: N }\` block: the run would never stop early and train its whole budget; add one, or test train.* metrics`,
        stop.node.value.range);
    }
    for (const name of namesIn(stop.node.value)) {
      const metric = METRICS.find((m) => m.name === nameText(name));
      if (!metric) continue; // the condition's own check reports unknown metrics
      if (metric.notImplemented !== undefined) {
        ctx.accept('warning', 'not-implemented', `\`rlx train\` will refuse a stop condition on ${metric.name}: ${metric.notImplemented}`, name.range);
      } else if (metric.textOnly && !text) {
        ctx.accept('warning', 'not-implemented', `${metric.name} is reported by text tasks only; with ${env === 'module' ? 'a user env' : env.name} this condition never holds`, name.range);
      }
    }
  }
}

/** The names in an expression, left to right (iteratively: expressions may be long). */
function namesIn(expr: A.Expression): A.QualifiedName[] {
  const out: A.QualifiedName[] = [];
  const stack: (A.Expression | undefined)[] = [expr];
  while (stack.length > 0) {
    const e = stack.pop();
    if (!e) continue;
    switch (e.kind) {
      case 'Name': out.push(e); break;
      case 'Paren': stack.push(e.expression); break;
      case 'Unary': stack.push(e.operand); break;
      case 'Binary': stack.push(e.right, e.left); break;
      case 'Call': stack.push(...e.args.map((a) => a.value).reverse()); break;
      case 'List': stack.push(...[...e.items].reverse()); break;
      default: break;
    }
  }
  return out;
}

