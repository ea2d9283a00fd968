// An experiment's `curriculum { param, from, to, step, advance }` against its env: the parameter
// must be a numeric parameter of an observation env that leaves the observation and action
// sizes alone, `from` and `to` within its range (whole numbers for a whole-number parameter),
// and `advance` able to hold (an eval.* metric needs an `eval` block to have a value).
import type { NumberType } from '../schema/index.js';
import type * as A from '../syntax/ast.js';
import { nameText } from '../syntax/ast.js';
import { pythonEnvLabel, pythonEnvRoot, type DeclSymbol, type Effective } from '../semantics/model.js';
import { GYMNASIUM_ENV_PARAMS } from '../schema/python-env.js';
import { fixedGoalProblem } from '../../shared/geometry/grid-world.js';
import { constantNumber } from '../semantics/constant.js';
import { fixedGridGoal } from './consistency.js';
import type { CheckContext } from './context.js';

export function checkCurriculum(ctx: CheckContext, symbol: DeclSymbol): void {
  const effective = ctx.model.effective(symbol);
  const block = effective.blocks.get('curriculum');
  if (!block) return;
  // Each problem is reported where this experiment states the value, else left to the base that does.
  const own = (name: string): Effective<A.Property> | undefined => {
    const p = block.get(name);
    return p && p.owner === symbol && p.node.value ? p : undefined;
  };
  const param = own('param');
  const path = block.get('param')?.node.value;
  const env = ctx.model.envSpec(ctx.model.referencedTarget(symbol, 'env'));
  if (param && env?.action === 'text') {
    ctx.accept('error', 'incompatible-env', `a curriculum moves a parameter of an observation env; ${env.name} is a text task, whose parameters fix its token model: remove the curriculum`, param.node.value!.range);
    return;
  }
  checkAdvance(ctx, symbol, own('advance'));
  if (param && path?.kind === 'Name' && checkPythonEnvParam(ctx, symbol, path)) return;
  if (path?.kind !== 'Name' || path.parts.length !== 2) return;
  const [head, name] = path.parts;
  if (head.text === 'policy' || head.text === 'algorithm') {
    if (param) ctx.accept('error', 'type-mismatch', `a curriculum moves an env parameter (env.NAME), not ${head.text}.${name.text}`, head.range);
    return;
  }
  // A user module's parameters are its own: the trainer checks their effect when it rebuilds the copies.
  const spec = env?.params.find((p) => p.name === name.text);
  if (head.text !== 'env' || !spec || spec.type.kind !== 'number') return;
  if (spec.changesSpaces) {
    if (param) ctx.accept('error', 'type-mismatch', `env.${spec.name} changes the size of ${env!.name}'s observations or actions, which the policy cannot follow: a curriculum cannot move it`, name.range);
    return;
  }
  const type = spec.type;
  for (const bound of ['from', 'to'] as const) {
    const stated = own(bound);
    const value = constantNumber(stated?.node.value);
    if (stated && value !== undefined) checkValue(ctx, `${bound} (env.${spec.name})`, value, type, stated.node.value!.range);
  }
  const step = own('step');
  const stepValue = constantNumber(step?.node.value);
  if (step && type.integer && stepValue !== undefined && !Number.isInteger(stepValue)) {
    ctx.accept('error', 'type-mismatch', `env.${spec.name} is a whole number, so its curriculum moves in whole steps; found step ${stepValue}`, step.node.value!.range);
  }
  if (env!.name === 'GridWorld' && spec.name === 'size' && param) checkGridSizes(ctx, symbol, block, param);
}

/**
 * A gymnasium(...) or python(...) env's curriculum moves one of its keyword arguments,
 * `env.kwargs.NAME`: each advance makes copies with the new value. Its other settings
 * (max_steps, copies_per_process, ...) run the workers, and are refused. True when the env is one.
 */
function checkPythonEnvParam(ctx: CheckContext, symbol: DeclSymbol, path: A.QualifiedName): boolean {
  const target = ctx.model.referencedTarget(symbol, 'env');
  const python = target?.kind === 'decl' ? pythonEnvRoot(ctx.model.effective(target.symbol).root) : undefined;
  if (!python || path.parts[0]?.text !== 'env') return false;
  const second = path.parts[1];
  if (path.parts.length === 3 && second!.text === 'kwargs') return true;
  const env = `${target!.kind === 'decl' ? target!.symbol.name : ''} (${pythonEnvLabel(python)})`;
  const suggestion = path.parts.length === 2 ? `env.kwargs.${second!.text}` : 'env.kwargs.NAME';
  ctx.accept('error', 'type-mismatch', `a curriculum over ${env} moves one of its keyword arguments: write ${suggestion}${path.parts.length === 2 && GYMNASIUM_ENV_PARAMS.some((p) => p.name === second!.text) ? ` (env.${second!.text} is a setting of its Python workers, which a curriculum cannot move)` : ''}`,
    (second ?? path).range);
  return true;
}

/** Every size a GridWorld curriculum reaches must hold the env's fixed goal. */
function checkGridSizes(ctx: CheckContext, symbol: DeclSymbol, block: Map<string, Effective<A.Property>>, param: Effective<A.Property>): void {
  const target = ctx.model.referencedTarget(symbol, 'env');
  const fixed = target?.kind === 'decl' ? fixedGridGoal(ctx, target.symbol) : undefined;
  const [from, to] = [constantNumber(block.get('from')?.node.value), constantNumber(block.get('to')?.node.value)];
  const step = block.has('step') ? constantNumber(block.get('step')!.node.value) : 1;
  if (!fixed || from === undefined || to === undefined || step === undefined || !(step > 0) || ![from, to, step].every(Number.isInteger)) return;
  const direction = Math.sign(to - from);
  for (let size = from, n = 0; n < 1000; size = direction > 0 ? Math.min(to, size + step) : Math.max(to, size - step), n++) {
    const problem = fixedGoalProblem(fixed.layout, size, fixed.x, fixed.y);
    if (problem) {
      ctx.accept('error', 'out-of-range', `at env.size ${size} the goal ${problem}: every size the curriculum reaches must hold env ${target!.kind === 'decl' ? target!.symbol.name : ''}'s fixed goal`, param.node.value!.range);
      return;
    }
    if (size === to) return;
  }
}

function checkValue(ctx: CheckContext, label: string, value: number, type: NumberType, range: A.Range): void {
  if (type.integer && !Number.isInteger(value)) {
    ctx.accept('error', 'type-mismatch', `${label} expects a whole number; found ${value}`, range);
    return;
  }
  const below = type.min !== undefined && (value < type.min || (type.exclusiveMin === true && value === type.min));
  const above = type.max !== undefined && (value > type.max || (type.exclusiveMax === true && value === type.max));
  if (below || above) {
    const lo = type.min === undefined ? undefined : `${type.exclusiveMin ? '>' : '>='} ${type.min}`;
    const hi = type.max === undefined ? undefined : `${type.exclusiveMax ? '<' : '<='} ${type.max}`;
    ctx.accept('error', 'out-of-range', `${label} must be ${[lo, hi].filter(Boolean).join(' and ')}; found ${value}`, range);
  }
}

/** `advance` over eval.* in an experiment without evaluations never holds. */
function checkAdvance(ctx: CheckContext, symbol: DeclSymbol, advance: Effective<A.Property> | undefined): void {
  if (!advance || ctx.model.effective(symbol).blocks.has('eval')) return;
  const evalNames = namesIn(advance.node.value).filter((n) => n.startsWith('eval.'));
  if (evalNames.length === 0) return;
  ctx.accept('warning', 'suspicious-value', `advance reads ${evalNames.join(', ')}, which has no value without an \`eval { every: N }\` block: the curriculum would never advance; add one, or test train.* metrics`,
    advance.node.value!.range);
}

function namesIn(expr: A.Expression | undefined): string[] {
  if (!expr) return [];
  switch (expr.kind) {
    case 'Name': return [nameText(expr)];
    case 'Paren': return namesIn(expr.expression);
    case 'Unary': return namesIn(expr.operand);
    case 'Binary': return [...namesIn(expr.left), ...namesIn(expr.right)];
    case 'Call': return expr.args.flatMap((a) => namesIn(a.value));
    case 'List': return expr.items.flatMap(namesIn);
    default: return [];
  }
}
