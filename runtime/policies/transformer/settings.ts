// The `transformer` policy's settings as the model uses them, read from the plan. Names,
// defaults, docs and ranges are the registry's: dsl/schema/policies.ts.
import { PlanParams } from '../../plan-params.js';

export interface TransformerSettings {
  /** Transformer blocks. */
  readonly layers: number;
  /** Model width C (embedding size), a multiple of `heads`. */
  readonly width: number;
  readonly heads: number;
  /** Longest sequence (prompt + completion) in tokens: the rows of the position table. */
  readonly context: number;
}

/** Reads the plan's `transformer` settings (defaults from the registry); errors name the param. */
export function transformerSettings(params: Readonly<Record<string, unknown>>): TransformerSettings {
  const p = PlanParams.of('transformer', params, 'policy transformer');
  const settings = { layers: p.count('layers'), width: p.count('width'), heads: p.count('heads'), context: p.count('context') };
  if (settings.width % settings.heads !== 0) {
    p.fail('width', `a multiple of heads (${settings.heads}), so that every head gets width / heads channels`);
  }
  return settings;
}
