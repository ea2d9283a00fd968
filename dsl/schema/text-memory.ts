// How a text learner's update goes through memory (runtime/algorithms/text/token-step.ts): rows
// per forward/backward (the gradients summed before the one optimiser step), rows sampled at
// once, and whether blocks are run again in the backward instead of kept. `auto` lets the
// memory estimate choose for the machine (or GPU) the run is on; the choice is recorded in hparams.
import { bool, choice, count, oneOf, option, param } from './build.js';
import type { ParamSpec } from './types.js';

const AUTO_MICRO_BATCH = 'The most rows whose forward and backward fit in the free memory with headroom, at most the whole update (the memory estimate chooses; hparams record it).';

const microBatch = param('micro_batch', oneOf(choice(option('auto', AUTO_MICRO_BATCH)), count({ max: 1e5 })), 'auto',
  'Rows per forward/backward pass; their gradients are summed before the one optimiser step, so the update is the same at any micro_batch (TRL\'s per_device_train_batch_size, with gradient_accumulation_steps = the rows of an update / micro_batch). A last smaller micro-batch is fine: the loss is normalised over the whole update.');
const generationBatch = param('generation_batch', oneOf(choice(option('auto', 'The most rows whose key/value cache fits in the free memory with headroom, at most the whole update.')), count({ max: 1e5 })), 'auto',
  'Rows sampled at once (TRL\'s generation_batch_size); the update\'s completions are sampled in chunks of this many.');
const gradientCheckpointing = param('gradient_checkpointing', oneOf(choice(option('auto', 'On where the memory estimate says the step does not fit otherwise: pretrained models only.')), bool), 'auto',
  'Keep only each block\'s input in the forward and run the block again in the backward, with the head and its vocabulary-wide logits over chunks of tokens (a pretrained policy only): about a third more compute, a fraction of the memory (TRL\'s gradient_checkpointing).');

/** The memory settings of the built-in text learners, in the order their bodies list them. */
export const TEXT_MEMORY_PARAMS: readonly ParamSpec[] = [microBatch, generationBatch, gradientCheckpointing];

/**
 * A text learner module's: its loss is the user's graph, so micro-batches hold whole groups (the
 * module may reshape rows by group_size) and are used only where the loss is a sum over rows
 * (runtime/algorithms/module/row-additivity.ts); its blocks are never recomputed (a recomputed
 * head sees chunks of tokens, not rows).
 */
export const MODULE_MEMORY_PARAMS: readonly ParamSpec[] = [
  param('micro_batch', oneOf(choice(option('auto', `${AUTO_MICRO_BATCH} Whole groups; the whole update where the loss is not a sum over rows.`)), count({ max: 1e5 })), 'auto',
    'Rows per forward/backward pass, a multiple of group_size; their gradients are summed before the one optimiser step. The loss must then be a sum over rows (a mean over the update written with batch.invRows or batch.invTokens): rlx checks that on stand-in rows when the stage starts and refuses a micro_batch that would change the update.'),
  generationBatch,
];
