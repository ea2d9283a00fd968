// A text learner's micro_batch and generation_batch (runtime/algorithms/text/token-step.ts) against
// the rows of its update, as the algorithm's work says them: more rows per micro-batch than the
// update has is an error at the value (the setting would mean nothing; `auto` or at most the
// update's rows). One that does not divide the update is fine: the last micro-batch is smaller and
// the loss is normalised over the whole update; a learner module's must hold whole groups (rowGroup). Reported at what this declaration states.
import { fillParams } from '../compile/compiler.js';
import { algorithmWork } from '../schema/work.js';
import type { DeclSymbol } from '../semantics/model.js';
import type { CheckContext } from './context.js';

const SETTINGS = [
  { name: 'micro_batch', rows: 'trainRows', what: 'trains' },
  { name: 'generation_batch', rows: 'sampleRows', what: 'samples' },
] as const;

export function checkMicroBatch(ctx: CheckContext, symbol: DeclSymbol): void {
  const spec = ctx.model.rootBuiltin(symbol);
  if (spec?.declKind !== 'algorithm' || !spec.params.some((p) => p.name === 'micro_batch')) return;
  const props = ctx.model.effective(symbol).properties;
  const params = fillParams(spec, (name) => props.get(name)?.node.value);
  const work = algorithmWork(spec, params, { text: true, envs: 1, rowsPerEpisode: 1 });
  for (const s of SETTINGS) {
    const stated = props.get(s.name);
    const value = params[s.name];
    const range = stated?.owner === symbol ? stated.node.value?.range : undefined;
    const rows = work[s.rows];
    if (!range || typeof value !== 'number' || rows <= 0) continue;
    if (value > rows) ctx.accept('error', 'out-of-range', `${s.name} ${value} is more rows than an update ${s.what} (${rows}: ${work.what}); use at most ${rows}, or auto`, range);
    else if (s.name === 'micro_batch' && work.rowGroup && value % work.rowGroup !== 0) {
      ctx.accept('error', 'out-of-range', `micro_batch ${value} splits a group: a learner module's micro-batches hold whole groups of group_size ${work.rowGroup} rows (its loss may reshape rows by group); use a multiple of ${work.rowGroup}, or auto`, range);
    }
  }
}
