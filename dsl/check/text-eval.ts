// `eval { episodes, deterministic }` of an experiment on a text env. Its evaluation is fixed: the
// env's held-out prompts (or dialogues), each answered once, greedily (runtime/text/env.ts), so
// the same number every time and comparable across runs. A repeated prompt would get the same
// answer, and sampled training prompts would not be held out, so a stated count cannot be
// honoured: warned at the value rather than ignored in silence (`rlx eval --episodes` says the same).
import { DECLARATION_SCHEMAS } from '../schema/index.js';
import type * as A from '../syntax/ast.js';
import type { DeclSymbol, Effective } from '../semantics/model.js';
import { constantNumber } from '../semantics/constant.js';
import type { CheckContext } from './context.js';

/** The eval block's settings the trainer does not read on an env of this action kind (the schema registry says which). */
function unusedEvalParams(action: string): Set<string> {
  const block = DECLARATION_SCHEMAS.experiment.blocks.find((b) => b.name === 'eval');
  return new Set(block?.params.filter((p) => p.unusedOn?.some((a) => a === action)).map((p) => p.name));
}

export function checkTextEval(ctx: CheckContext, symbol: DeclSymbol): void {
  const block = ctx.model.effective(symbol).blocks.get('eval');
  const env = ctx.model.envSpec(ctx.model.referencedTarget(symbol, 'env'));
  if (!block || env?.action !== 'text') return;
  const unused = unusedEvalParams(env.action);
  // Reported where this experiment states the value, else left to the base that does.
  const own = (name: string): Effective<A.Property> | undefined => {
    const p = unused.has(name) ? block.get(name) : undefined;
    return p && p.owner === symbol && p.node.value ? p : undefined;
  };
  const held = env.dialogue ? 'dialogues' : 'prompts';
  const episodes = own('episodes');
  if (episodes && constantNumber(episodes.node.value) !== undefined) {
    ctx.accept('warning', 'suspicious-value',
      `eval.episodes is not used on ${env.name}, a text env: each evaluation answers every one of its held-out ${held} once, greedily (a repeated one gets the same answer); remove episodes`,
      episodes.node.value!.range);
  }
  const deterministic = own('deterministic');
  const value = deterministic?.node.value;
  if (value?.kind === 'Boolean' && !value.value) {
    ctx.accept('warning', 'suspicious-value', `eval.deterministic is not used on ${env.name}, a text env: its held-out ${held} are always answered greedily; remove deterministic`, value.range);
  }
}
