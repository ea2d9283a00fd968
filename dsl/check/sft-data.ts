// SFT's `data` and GRPO's auxiliary supervised term (sft_data, sft_coef, sft_batch_size; runtime/algorithms/text/demos.ts):
// a file that sft_data names is checked as a task's dataset("...") is (there, inside the spec's
// folder, one {"prompt", "target"} object a line), and sft_coef or sft_batch_size without
// sft_data, which the trainer would ignore, is a warning. SFT's data from a file is not trained
// yet: refused, with the trainer's reason. Reported at what this declaration states.
import { SFT_DATA_FILE_NOT_IMPLEMENTED } from '../schema/algorithms.js';
import type { DeclSymbol } from '../semantics/model.js';
import type * as A from '../syntax/ast.js';
import type { CheckContext } from './context.js';
import { checkDatasetFile } from './datasets.js';

/** Whether a value is `none` (its own literal, or the option's name). */
function isNone(value: A.Expression | undefined): boolean {
  return value === undefined || value.kind === 'None' || (value.kind === 'Name' && value.parts.length === 1 && value.parts[0].text === 'none');
}

export function checkSftData(ctx: CheckContext, symbol: DeclSymbol): void {
  const root = ctx.model.rootBuiltin(symbol)?.name;
  if (root === 'SFT') return checkSftFile(ctx, symbol);
  if (root !== 'GRPO') return;
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

/** SFT's `data: "x.jsonl"`, refused as `rlx train` refuses it. */
function refuseSftFile(ctx: CheckContext, value: A.Expression | undefined): void {
  if (value?.kind !== 'String') return;
  ctx.accept('error', 'not-implemented', `SFT: data must be \`demos\` (${SFT_DATA_FILE_NOT_IMPLEMENTED}); \`rlx train\` refuses ${JSON.stringify(value.value)}`, value.range);
}

/** At the setting an SFT declaration states. */
function checkSftFile(ctx: CheckContext, symbol: DeclSymbol): void {
  const data = ctx.model.effective(symbol).properties.get('data');
  if (data?.owner === symbol) refuseSftFile(ctx, data.node.value);
}

/** At the setting an experiment's SFT stage states in its own body (`stage warm = SFT { data: "x.jsonl" }`). */
export function checkSftStages(ctx: CheckContext, experiment: DeclSymbol): void {
  for (const stage of ctx.model.effective(experiment).named.values()) {
    const name = stage.node.memberKind === 'stage' && stage.owner === experiment ? stage.node.base?.name.parts[0] : undefined;
    const target = name && ctx.model.lookup(stage.owner.unit, name.text);
    const spec = !target ? undefined : target.kind === 'builtin' ? target.spec : ctx.model.rootBuiltin(target.symbol);
    if (spec?.name !== 'SFT' || spec.declKind !== 'algorithm') continue;
    for (const m of stage.node.body?.members ?? []) if (m.kind === 'Property' && m.path.length === 1 && m.path[0].text === 'data') refuseSftFile(ctx, m.value);
  }
}
