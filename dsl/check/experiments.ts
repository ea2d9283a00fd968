// Checks that look at an experiment as a whole: required parts, whether the algorithm, policy
// and reward fit the environment, and seeds.
import { algorithmSpec, builtinsOfKind, stageHandoverProblem, ALGORITHMS, type AlgorithmSpec, type BuiltinSpec, type EnvSpec } from '../schema/index.js';
import { PYTHON_GOAL_ENV } from '../schema/python-env.js';
import type * as A from '../syntax/ast.js';
import { declaredObservations, pythonEnvLabel, pythonEnvRoot, type DeclSymbol, type Effective, type Target } from '../semantics/model.js';
import type { CheckContext } from './context.js';
import { checkCompletionLength } from './completion-length.js';
import { checkCharacterFit } from './character-fit.js';
import { checkOverlongEnv } from './sample-filters.js';
import { checkCurriculum } from './curriculum.js';
import { checkRewardTerm, type PairedEnv } from './expressions.js';
import { taskRows } from './dataset-columns.js';
import { insertPropertiesFix } from './members.js';
import { checkTextEval } from './text-eval.js';
import { checkPrecision } from './precision.js';
import { checkDemonstrationFiles } from './demonstration-files.js';
import { checkTransitionFiles } from './transition-files.js';
import { checkTurnCredit } from './turn-credit.js';
import { checkRecurrentCore } from './recurrent-core.js';

function specOf(ctx: CheckContext, target: Target | undefined): BuiltinSpec | undefined {
  if (!target) return undefined;
  return target.kind === 'builtin' ? target.spec : ctx.model.rootBuiltin(target.symbol);
}

function targetLabel(target: Target): string {
  return target.kind === 'builtin' ? target.spec.name : target.symbol.name;
}

/** The env an experiment trains in, as reward terms and compatibility checks need it. */
export function pairedEnv(ctx: CheckContext, experiment: DeclSymbol): PairedEnv {
  const target = ctx.model.referencedTarget(experiment, 'env');
  if (!target) return undefined;
  const spec = ctx.model.envSpec(target);
  if (spec) {
    const rows = taskRows(ctx.model, target);
    return { kind: 'builtin', spec, label: targetLabel(target), ...(rows ? { rows } : {}) };
  }
  if (target.kind !== 'decl' || ctx.model.effective(target.symbol).root.kind !== 'module') return undefined;
  // A Python env that names its observations has them checked like a built-in's fields.
  const effective = ctx.model.effective(target.symbol);
  const python = pythonEnvRoot(effective.root);
  const names = declaredObservations(effective);
  return python && names ? { kind: 'module', observations: { names, label: `${target.symbol.name} (${pythonEnvLabel(python)})` } } : { kind: 'module' };
}

export function checkExperiment(ctx: CheckContext, symbol: DeclSymbol): void {
  const effective = ctx.model.effective(symbol);
  if (effective.cyclic || effective.root.kind === 'unresolved') return;
  const props = effective.properties;
  const stages = [...effective.named.values()].filter((n) => n.node.memberKind === 'stage');
  const required = ['env', 'policy', ...(stages.length === 0 ? ['algorithm', 'budget'] : [])].filter((p) => !props.has(p));
  if (required.length > 0 && symbol.decl.name) {
    const lines = required.map((name) => `${name}: ${suggestValue(ctx, symbol, name)}`);
    ctx.accept('error', 'missing-property', `experiment ${symbol.name} needs ${required.map((r) => `'${r}'`).join(' and ')}${stages.length === 0 && required.includes('algorithm') ? ' (or stages)' : ''}`,
      // No fix for a body whose '}' is missing: where it ends is a guess, and the edit would be one.
      symbol.decl.name.range, symbol.decl.body?.closed ? { fixes: [insertPropertiesFix(symbol.unit.text, symbol.decl.body, lines)] } : undefined);
  }
  if (stages.length > 0 && props.has('algorithm')) {
    const algorithm = props.get('algorithm')!;
    const message = "an experiment has either 'algorithm' and 'budget' or stages, not both";
    // Reported where this declaration adds the conflict: its own algorithm, else its first own stage.
    const ownStage = stages.find((s) => s.owner === symbol);
    if (algorithm.owner === symbol) ctx.accept('error', 'conflicting-properties', message, algorithm.node.path[0].range);
    else if (ownStage) ctx.accept('error', 'conflicting-properties', `${message} (the algorithm is inherited from ${algorithm.owner.name})`, ownStage.node.keywordRange);
  }
  if (props.has('seed') && props.has('seeds')) {
    const seed = props.get('seed')!;
    const seeds = props.get('seeds')!;
    const later = seed.owner === symbol ? seed : seeds;
    if (later.owner === symbol) {
      ctx.accept('warning', 'conflicting-properties', "both 'seed' and 'seeds' are set; 'seed' wins. Keep one of them", later.node.path[0].range);
    }
  }
  checkCompatibility(ctx, symbol, stages);
  checkStageHandover(ctx, symbol, stages);
  checkRecurrentCore(ctx, symbol, stages);
  checkCompletionLength(ctx, symbol, stages);
  checkCharacterFit(ctx, symbol);
  checkOverlongEnv(ctx, symbol, stages);
  checkTurnCredit(ctx, symbol, stages);
  checkDemonstrationFiles(ctx, symbol, stages);
  checkTransitionFiles(ctx, symbol, stages);
  checkRewardPairing(ctx, symbol);
  checkCurriculum(ctx, symbol);
  checkTextEval(ctx, symbol);
  checkPrecision(ctx, symbol);
}

function suggestValue(ctx: CheckContext, symbol: DeclSymbol, property: string): string {
  if (property === 'budget') return '100k';
  const kind = property as A.DeclKind;
  const mine = ctx.model.visibleSymbols(symbol.unit).filter((s) => s.decl.declKind === kind).map((s) => s.name);
  return mine[0] ?? builtinsOfKind(kind)[0]?.name ?? property;
}

function checkCompatibility(ctx: CheckContext, symbol: DeclSymbol, stages: Effective<A.NamedMember>[]): void {
  const { model } = ctx;
  const props = model.effective(symbol).properties;
  const envProp = props.get('env');
  const envTarget = model.referencedTarget(symbol, 'env');
  const env = model.envSpec(envTarget);
  if (!envProp || !envTarget || !env) return;
  const envLabel = `${targetLabel(envTarget)}${envTarget.kind === 'decl' ? ` (${env.name})` : ''}`;
  // A mismatch is reported where this experiment makes it: at its own choice of algorithm or
  // policy, else at its own env (the other part inherited, maybe from another file), else not
  // at all (the base that made both choices reports it).
  const reportAt = (owner: DeclSymbol, range: A.Range): A.Range | undefined =>
    owner === symbol ? range : envProp.owner === symbol ? envProp.node.value?.range ?? envProp.node.range : undefined;

  const checkAlgorithm = (alg: AlgorithmSpec, algTarget: Target | undefined, at: A.Range | undefined) => {
    if (!at) return;
    if (!alg.actions.includes(env.action)) {
      const fits = ALGORITHMS.filter((a) => a.actions.includes(env.action)).map((a) => a.name);
      ctx.accept('error', 'incompatible-env', `${alg.name} cannot train on ${envLabel}: it needs ${alg.actions.join(' or ')} actions, and ${env.name} has ${env.action} actions; algorithms that fit: ${fits.join(', ')}`, at);
    }
    if (algTarget?.kind === 'decl') {
      const relabel = model.effective(algTarget.symbol).properties.get('relabel');
      const v = relabel?.node.value;
      const relabelName = v?.kind === 'Name' ? v.parts[0]?.text : v?.kind === 'Call' ? v.callee.parts[0]?.text : undefined;
      if (relabel && relabelName && relabelName !== 'none' && !env.goalConditioned) {
        // A Python env is made a goal env in Python, not by picking another env: say what makes one.
        const python = envTarget.kind === 'decl' && model.pythonEnv(envTarget.symbol) !== undefined;
        const remedy = python ? `; ${PYTHON_GOAL_ENV}, or set relabel: none` : '; use GridWorld or set relabel: none';
        ctx.accept('error', 'incompatible-env', `${algTarget.symbol.name} relabels goals (relabel: ${relabelName}), but ${envLabel} is not goal-conditioned${remedy}`, at, {
          related: [{ file: relabel.owner.unit.path, range: relabel.node.range, message: 'relabeling is set here' }],
        });
      }
      checkActionMask(algTarget.symbol, at);
    }
  };

  // `action_mask: on` needs an env that can be masked: discrete actions, and masks given (known
  // for built-ins and probed Python envs; a module's are known only when it runs). Reported at
  // the value where this experiment's file sets it, else at the experiment's choice of algorithm.
  const checkActionMask = (algorithm: DeclSymbol, at: A.Range) => {
    const setting = model.effective(algorithm).properties.get('action_mask');
    const value = setting?.node.value;
    if (!setting || value?.kind !== 'Name' || value.parts[0]?.text !== 'on') return;
    // A module env's masks are known only when it runs; built-ins and probed Python envs say.
    const knownWithoutMasks = envTarget.kind === 'builtin' || model.envModule(envTarget.symbol) === undefined;
    const why = env.action !== 'discrete'
      ? `${envLabel} has ${env.action} actions, and action masks are for discrete actions`
      : !env.actionMask && knownWithoutMasks ? `${envLabel} gives no action masks (info["action_mask"] at reset and step)` : undefined;
    if (why === undefined) return;
    const here = setting.owner.unit === symbol.unit ? value.range : at;
    ctx.accept('error', 'incompatible-env', `action_mask is on, but ${why}; set action_mask: auto or off`, here, {
      related: here === at ? [{ file: setting.owner.unit.path, range: setting.node.range, message: 'action_mask is set here' }] : [],
    });
  };

  const algProp = props.get('algorithm');
  const algTarget = model.referencedTarget(symbol, 'algorithm');
  const alg = specOf(ctx, algTarget);
  if (algProp?.node.value && alg?.declKind === 'algorithm') {
    checkAlgorithm(alg, algTarget, reportAt(algProp.owner, algProp.node.value.range));
  }
  for (const stage of stages) {
    const baseName = stage.node.base?.name.parts[0];
    if (!baseName) continue;
    const target = model.lookup(stage.owner.unit, baseName.text);
    const spec = target?.kind === 'builtin' ? algorithmSpec(target.spec.name) : target ? model.rootBuiltin(target.symbol) : undefined;
    if (spec?.declKind === 'algorithm') checkAlgorithm(spec, target, reportAt(stage.owner, baseName.range));
  }

  const policyProp = props.get('policy');
  const policy = specOf(ctx, model.referencedTarget(symbol, 'policy'));
  const policyAt = policyProp?.node.value && reportAt(policyProp.owner, policyProp.node.value.range);
  if (policyAt && policy?.declKind === 'policy') {
    if (policy.name === 'transformer' && env.action !== 'text') {
      ctx.accept('error', 'incompatible-env', `a transformer policy reads text, but ${envLabel} has ${env.action} actions; use mlp`, policyAt);
    } else if (policy.name === 'mlp' && env.action === 'text') {
      ctx.accept('error', 'incompatible-env', `${envLabel} is a text task; an mlp cannot read or write text; use transformer`, policyAt);
    } else if (policy.name === 'cnn' && !env.image && !(envTarget.kind === 'decl' && model.envModule(envTarget.symbol))) {
      // A module env's observation shape is only known when it runs: the trainer checks it.
      const what = env.action === 'text' ? 'text' : env.obsFields.length > 0 ? `vectors of ${env.obsFields.length} numbers (${env.obsFields.join(', ')})` : 'no image';
      ctx.accept('error', 'incompatible-env', `a cnn policy reads images [C, H, W], but ${envLabel} observes ${what}; use mlp, or an env with image observations (Catch, or a Python env whose observation is a Box of uint8 pixels)`, policyAt);
    } else if (policy.name === 'cnn' && env.name === 'Catch') {
      checkNatureFits(ctx, model.referencedTarget(symbol, 'policy'), envTarget, env, envLabel, policyAt);
    }
  }
}

/**
 * On an env of numbers each stage starts from the networks the one before it trained, so
 * consecutive stages must train the same ones (PPO then DQN cannot). Reported at the later
 * stage's algorithm where this experiment declares it, else at the earlier one's. Text envs
 * train one language model in every stage.
 */
function checkStageHandover(ctx: CheckContext, symbol: DeclSymbol, stages: Effective<A.NamedMember>[]): void {
  const { model } = ctx;
  if (stages.length < 2 || model.envSpec(model.referencedTarget(symbol, 'env'))?.action === 'text') return;
  const algorithmOf = (stage: Effective<A.NamedMember>) => {
    const baseName = stage.node.base?.name.parts[0];
    const target = baseName && model.lookup(stage.owner.unit, baseName.text);
    const spec = target?.kind === 'builtin' ? algorithmSpec(target.spec.name) : target ? model.rootBuiltin(target.symbol) : undefined;
    return spec?.declKind === 'algorithm' && baseName ? { name: spec.name, at: baseName.range } : undefined;
  };
  for (let i = 1; i < stages.length; i++) {
    const [previous, next] = [stages[i - 1]!, stages[i]!];
    const [from, to] = [algorithmOf(previous), algorithmOf(next)];
    if (!from || !to) continue;
    const problem = stageHandoverProblem({ name: previous.node.name?.text ?? '?', algorithm: from.name }, { name: next.node.name?.text ?? '?', algorithm: to.name });
    const at = next.owner === symbol ? to.at : previous.owner === symbol ? from.at : undefined;
    if (problem && at) ctx.accept('error', 'incompatible-stages', problem, at);
  }
}

/** The ranges of the `row.NAME` names of an expression. */
function rowNamesOf(expr: A.Expression | undefined): A.Range[] {
  if (!expr) return [];
  switch (expr.kind) {
    case 'Name': return expr.parts[0]?.text === 'row' ? [expr.range] : [];
    case 'Paren': return rowNamesOf(expr.expression);
    case 'Unary': return rowNamesOf(expr.operand);
    case 'Binary': return [...rowNamesOf(expr.left), ...rowNamesOf(expr.right)];
    case 'Call': return expr.args.flatMap((a) => rowNamesOf(a.value));
    case 'List': return expr.items.flatMap(rowNamesOf);
    default: return [];
  }
}

/** Reward terms are checked against the env they are paired with, at the term, in the reward's file. */
function checkRewardPairing(ctx: CheckContext, symbol: DeclSymbol): void {
  const { model } = ctx;
  const props = model.effective(symbol).properties;
  const rewardProp = props.get('reward');
  const envProp = props.get('env');
  if (!rewardProp || !envProp || (rewardProp.owner !== symbol && envProp.owner !== symbol)) return;
  const rewardTarget = model.referencedTarget(symbol, 'reward');
  if (rewardTarget?.kind !== 'decl' || rewardTarget.symbol.decl.declKind !== 'reward') return;
  const env = pairedEnv(ctx, symbol);
  if (!env || (env.kind === 'module' && !env.observations)) return;
  const related = [{ file: envProp.owner.unit.path, range: envProp.node.value?.range ?? envProp.node.range, message: `paired with env ${env.kind === 'builtin' ? env.label : env.observations!.label} in experiment ${symbol.name}` }];
  for (const term of model.effective(rewardTarget.symbol).named.values()) {
    if (term.node.memberKind !== 'term' || !term.node.value) continue;
    const termCtx = ctx.forUnit(term.owner.unit);
    // A row field's type comes from the paired dataset: a misuse of it (text in arithmetic) is heard only here.
    const rowNames = new Set(rowNamesOf(term.node.value).map((r) => `${r.start}:${r.end}`));
    checkRewardTerm(termCtx, term.node.value, env, (severity, code, message, range, options) => {
      // Only what depends on the env: name errors alone are reported by the reward's own check.
      if (code === 'unknown-field' || (code === 'type-mismatch' && rowNames.has(`${range.start}:${range.end}`))) termCtx.accept(severity, code, message, range, { ...options, related });
    });
  }
}


/** The nature encoder's strides need images of at least 36x36; Catch's are `size` by `size`. */
function checkNatureFits(ctx: CheckContext, policyTarget: Target | undefined, envTarget: Target, env: EnvSpec, envLabel: string, at: A.Range): void {
  const { model } = ctx;
  const written = (target: Target | undefined, key: string) => (target?.kind === 'decl' ? model.effective(target.symbol).properties.get(key)?.node.value : undefined);
  const encoder = written(policyTarget, 'encoder');
  const encoderName = encoder === undefined ? 'nature' : encoder.kind === 'Name' ? encoder.parts[0]?.text : undefined;
  if (encoderName !== 'nature') return;
  const size = written(envTarget, 'size');
  const byDefault = env.params.find((p) => p.name === 'size')?.default;
  const side = size === undefined ? (typeof byDefault === 'number' ? byDefault : undefined) : size.kind === 'Number' ? size.value : undefined;
  if (side !== undefined && side < 36) {
    ctx.accept('error', 'incompatible-env', `the cnn policy's nature encoder needs images of at least 36x36 (its strides 4 and 2), but ${envLabel} observes ${side}x${side}: use encoder: impala, or size: 36 or more`, at);
  }
}
