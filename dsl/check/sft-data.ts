// GRPO's auxiliary supervised term (sft_data, sft_coef, sft_batch_size; runtime/algorithms/text/demos.ts):
// a file that sft_data names is checked as a task's dataset("...") is (there, inside the spec's
// folder, one {"prompt", "target"} object a line), and sft_coef or sft_batch_size without
// sft_data, which the trainer would ignore, is a warning. Reported at what this declaration states.
import type { DeclSymbol } from '../semantics/model.js';
import type * as A from '../syntax/ast.js';
import type { CheckContext } from './context.js';
import { checkDatasetFile } from './datasets.js';

/** Whether a value is `none` (its own literal, or the option's name). */
function isNone(value: A.Expression | undefined): boolean {
  return value === undefined || value.kind === 'None' || (value.kind === 'Name' && value.parts.length === 1 && value.parts[0].text === 'none');
}

export function checkSftData(ctx: CheckContext, symbol: DeclSymbol): void {
  if (ctx.model.rootBuiltin(symbol)?.name !== 'GRPO') return;
  const props = ctx.model.effective(symbol).properties;
  const data = props.get('sft_data');
  const value = data?.node.value;
  if (data?.owner === symbol && value?.kind === 'String' && value.value !== '') checkDatasetFile(ctx, value, 'sft_data');
  if (!isNone(value)) return;
  for (const name of ['sft_coef', 'sft_batch_size']) {
    const stated = props.get(name);
    const range = stated?.owner === symbol ? stated.node.value?.range : undefined;
    if (range) ctx.accept('warning', 'suspicious-value', `${name} has no effect: there is no sft_data, so no demonstrations to learn from; set sft_data to demos or a JSONL file's path, or remove ${name}`, range);
  }
}
