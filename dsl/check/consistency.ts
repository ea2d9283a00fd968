// Checks across several parameters of one built-in: values that are each valid alone but not
// together (a goal outside the grid, a transformer width that the heads do not divide).
import { constantNumber } from '../semantics/constant.js';
import type { CheckContext } from './context.js';
import type { DeclSymbol, Effective } from '../semantics/model.js';
import type * as A from '../syntax/ast.js';
import { builtin, type PlanValue } from '../schema/index.js';
import { bindArguments } from '../semantics/arguments.js';
import { checkSampleFilterSettings } from './sample-filters.js';
// The grid's geometry is the env's own, import-free (test/architecture.test.ts allows it).
import { fixedGoalProblem, type GridLayout } from '../../shared/geometry/grid-world.js';

/** The number a parameter has in effect: stated (here or in a base) or the default. */
function numberIn(ctx: CheckContext, symbol: DeclSymbol, name: string): { value: number; stated?: Effective<A.Property> } | undefined {
  const stated = ctx.model.effective(symbol).properties.get(name);
  if (stated) {
    const value = constantNumber(stated.node.value);
    return value === undefined ? undefined : { value, stated };
  }
  const spec = ctx.model.rootBuiltin(symbol) ?? builtin(symbol.name);
  const def: PlanValue | undefined = spec?.params.find((p) => p.name === name)?.default;
  return typeof def === 'number' ? { value: def } : undefined;
}

export function checkConsistency(ctx: CheckContext, symbol: DeclSymbol): void {
  const root = ctx.model.rootBuiltin(symbol);
  if (!root) return;
  const at = (x: { stated?: Effective<A.Property> } | undefined) =>
    x?.stated && x.stated.owner === symbol ? x.stated.node.value?.range : undefined;
  if (root.name === 'transformer') {
    const width = numberIn(ctx, symbol, 'width');
    const heads = numberIn(ctx, symbol, 'heads');
    const range = at(width) ?? at(heads);
    if (width && heads && range && width.value % heads.value !== 0) {
      ctx.accept('error', 'out-of-range', `width (${width.value}) must be a multiple of heads (${heads.value})`, range);
    }
  }
  if (root.name === 'GuessNumber') {
    const low = numberIn(ctx, symbol, 'low');
    const high = numberIn(ctx, symbol, 'high');
    const range = at(high) ?? at(low);
    if (low && high && range && low.value >= high.value) {
      ctx.accept('error', 'out-of-range', `low (${low.value}) must be smaller than high (${high.value})`, range);
    }
  }
  if (root.name === 'GridWorld') checkGridGoal(ctx, symbol, at);
  if (root.name === 'GRPO') {
    checkKlSettings(ctx, symbol, at);
    checkClipSettings(ctx, symbol, at);
  }
  if (root.name === 'GRPO') checkSampleFilterSettings(ctx, symbol, at);

}

/** The layout a GridWorld has in effect, when it is a constant name (or the default). */
function layoutIn(ctx: CheckContext, symbol: DeclSymbol): { value: GridLayout; stated?: Effective<A.Property> } | undefined {
  const stated = ctx.model.effective(symbol).properties.get('layout');
  if (!stated) return { value: 'open' };
  const v = stated.node.value;
  const name = v?.kind === 'Name' && v.parts.length === 1 ? v.parts[0].text : undefined;
  return name === 'open' || name === 'four_rooms' || name === 'maze' ? { value: name, stated } : undefined;
}

/** A GridWorld's fixed goal and layout, where both are constants; undefined for a random goal. */
export function fixedGridGoal(ctx: CheckContext, symbol: DeclSymbol): { x: number; y: number; layout: GridLayout; goal: Effective<A.Property>; layoutStated?: Effective<A.Property> } | undefined {
  const goal = ctx.model.effective(symbol).properties.get('goal');
  const call = goal?.node.value;
  if (!goal || call?.kind !== 'Call' || call.callee.parts[0]?.text !== 'fixed') return undefined;
  const layout = layoutIn(ctx, symbol);
  const { bound } = bindArguments(call.args, [{ name: 'x' }, { name: 'y' }], 'fixed', call.range);
  const x = constantNumber(bound.get('x')?.value);
  const y = constantNumber(bound.get('y')?.value);
  if (!layout || x === undefined || y === undefined || !Number.isInteger(x) || !Number.isInteger(y)) return undefined;
  return { x, y, layout: layout.value, goal, layoutStated: layout.stated };
}

/** A fixed goal off the grid or on a wall of the layout, where layout, size and goal are constants. */
function checkGridGoal(ctx: CheckContext, symbol: DeclSymbol, at: (x: { stated?: Effective<A.Property> } | undefined) => A.Range | undefined): void {
  const fixed = fixedGridGoal(ctx, symbol);
  const size = numberIn(ctx, symbol, 'size');
  if (!fixed || !size || !Number.isInteger(size.value)) return;
  // Reported where this declaration makes the conflict: its goal, else its size or layout.
  const range = fixed.goal.owner === symbol ? fixed.goal.node.value!.range : at(size) ?? at({ stated: fixed.layoutStated });
  const problem = fixedGoalProblem(fixed.layout, size.value, fixed.x, fixed.y);
  if (problem && range) ctx.accept('error', 'out-of-range', `the goal ${problem}; pick a free cell or goal: random`, range);
}

/**
 * GRPO's clip settings (clip, clip_high) with one gradient step per batch (iterations 1): the
 * step's pi_old is its own forward pass, so the ratio is 1 and the clip never acts (the gradient
 * is REINFORCE's). Reported at the clip setting this declaration states.
 */
function checkClipSettings(ctx: CheckContext, symbol: DeclSymbol, at: (x: { stated?: Effective<A.Property> } | undefined) => A.Range | undefined): void {
  if (numberIn(ctx, symbol, 'iterations')?.value !== 1) return;
  const props = ctx.model.effective(symbol).properties;
  for (const name of ['clip', 'clip_high']) {
    const range = at({ stated: props.get(name) });
    if (range) ctx.accept('warning', 'suspicious-value', `${name} has no effect: with iterations 1 each batch takes one gradient step, where the ratio pi/pi_old is 1 and the clip never acts; set iterations above 1 (GRPO's mu), or remove ${name}`, range);
  }
}

/**
 * GRPO's KL settings (kl_estimator, kl_in_reward) where there is no KL: kl_coef 0, or reference
 * none. The trainer would keep no reference and silently ignore them. Reported at the KL setting
 * this declaration states.
 */
function checkKlSettings(ctx: CheckContext, symbol: DeclSymbol, at: (x: { stated?: Effective<A.Property> } | undefined) => A.Range | undefined): void {
  const props = ctx.model.effective(symbol).properties;
  const klCoef = numberIn(ctx, symbol, 'kl_coef');
  const reference = props.get('reference')?.node.value;
  // `none` parses as its own literal (the option values are names, so a name is checked too).
  const noReference = reference?.kind === 'None' || (reference?.kind === 'Name' && reference.parts.length === 1 && reference.parts[0].text === 'none');
  const why = klCoef?.value === 0 ? 'kl_coef is 0' : noReference ? 'reference is none' : undefined;
  if (!why) return;
  for (const name of ['kl_estimator', 'kl_in_reward']) {
    const stated = props.get(name);
    const value = stated?.node.value;
    if (name === 'kl_in_reward' && !(value?.kind === 'Boolean' && value.value)) continue;
    const range = at({ stated });
    if (range) ctx.accept('warning', 'suspicious-value', `${name} has no effect: ${why}, so there is no KL penalty; set kl_coef above 0 with reference: initial, or remove ${name}`, range);
  }
}
