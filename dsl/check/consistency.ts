// Checks across several parameters of one built-in: values that are each valid alone but not
// together (a goal outside the grid, a transformer width that the heads do not divide).
import { constantNumber } from './constant.js';
import type { CheckContext } from './context.js';
import type { DeclSymbol, Effective } from '../semantics/model.js';
import type * as A from '../syntax/ast.js';
import { builtin, type PlanValue } from '../schema/index.js';

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
  if (root.name === 'GridWorld') {
    const size = numberIn(ctx, symbol, 'size');
    const goal = ctx.model.effective(symbol).properties.get('goal');
    const v = goal?.node.value;
    if (size && v?.kind === 'Call' && goal!.owner === symbol) {
      for (const arg of v.args) {
        const n = constantNumber(arg.value);
        if (n !== undefined && arg.value && (n < 1 || n > size.value - 2)) {
          ctx.accept('error', 'out-of-range', `the goal must be inside the walls: 1 to ${size.value - 2} for size ${size.value}; found ${n}`, arg.value.range);
        }
      }
    }
  }
}
