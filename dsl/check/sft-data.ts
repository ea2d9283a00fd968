// GRPO's auxiliary supervised term (sft_data, sft_coef, sft_batch_size; runtime/algorithms/text/demos.ts):
// sft_coef or sft_batch_size without sft_data, which the trainer would ignore, is a warning,
// reported at what this declaration states. (A file that sft_data, or SFT's data, names is
// checked as every `file` setting's is: values.ts.)
import type { DeclSymbol } from '../semantics/model.js';
import type * as A from '../syntax/ast.js';
import type { CheckContext } from './context.js';

/** Whether a value is `none` (its own literal, or the option's name). */
function isNone(value: A.Expression | undefined): boolean {
  return value === undefined || value.kind === 'None' || (value.kind === 'Name' && value.parts.length === 1 && value.parts[0].text === 'none');
}

export function checkSftData(ctx: CheckContext, symbol: DeclSymbol): void {
  if (ctx.model.rootBuiltin(symbol)?.name !== 'GRPO') return;
  const props = ctx.model.effective(symbol).properties;
  if (!isNone(props.get('sft_data')?.node.value)) return;
  for (const name of ['sft_coef', 'sft_batch_size']) {
    const stated = props.get(name);
    const range = stated?.owner === symbol ? stated.node.value?.range : undefined;
    if (range) ctx.accept('warning', 'suspicious-value', `${name} has no effect: there is no sft_data, so no demonstrations to learn from; set sft_data to demos or a JSONL file's path, or remove ${name}`, range);
  }
}
