// `rlx/learner`: the stable surface a learner module is written against (package.json
// "exports"; docs/learners.md#the-rlxlearner-surface). Version LEARNER_API_VERSION: what is
// exported here keeps its meaning within a version and only grows; rlx's internals (its Graph,
// Tensor, sessions, optimisers) are not part of it.
//
// A learner module imports it as `import type { ... } from 'rlx/learner'` (types) or for the
// values below; rlx bundles the module with this import pointing at the running rlx's own copy
// (runtime/algorithms/module/load.ts), so the tensors a module builds are rlx's.
export { LEARNER_API_VERSION } from '../../dsl/schema/learner-module.js';
export { LossGraph, LossTensor, type AxesOptions, type LossOperand } from './loss-graph.js';
export { METRIC_NAME, type BuildTextLoss, type LearnerLoss, type LearnerSettings, type TextBatch } from './text-batch.js';
export type { BuildNumericLosses, NumericBatch, NumericLoss, NumericLosses, NumericNetworks } from './numeric-batch.js';
export { groupMean, maskedMean, sequenceMean } from './helpers.js';
