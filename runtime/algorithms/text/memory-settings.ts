// The text learners' memory settings (`micro_batch`, `generation_batch`, `gradient_checkpointing`:
// dsl/schema/algorithms.ts) as a learner reads them from its plan params. What they do is
// token-step.ts's.
import type { PlanParams } from '../../plan-params.js';

export interface TextMemoryParams {
  micro_batch: number | 'auto';
  generation_batch: number | 'auto';
  gradient_checkpointing: boolean | 'auto';
}

/** A count or `auto` (micro_batch, generation_batch). */
export function countOrAuto(p: PlanParams, name: string): number | 'auto' {
  return p.value(name) === 'auto' ? 'auto' : p.count(name);
}

/** micro_batch and gradient_checkpointing (every text learner); generation_batch where the learner samples (`sampling`). */
export function readTextMemory(p: PlanParams): Omit<TextMemoryParams, 'generation_batch'>;
export function readTextMemory(p: PlanParams, sampling: true): TextMemoryParams;
export function readTextMemory(p: PlanParams, sampling = false): Partial<TextMemoryParams> {
  const checkpointing = p.value('gradient_checkpointing');
  return {
    micro_batch: countOrAuto(p, 'micro_batch'),
    ...(sampling ? { generation_batch: countOrAuto(p, 'generation_batch') } : {}),
    gradient_checkpointing: checkpointing === 'auto' ? 'auto' : p.flag('gradient_checkpointing'),
  };
}
