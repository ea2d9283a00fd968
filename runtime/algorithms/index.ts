// The algorithms this runtime implements, by the names the language uses. Each is one
// AlgorithmDefinition (algorithm.ts) in its own file; adding one means: its file, one line
// in ALGORITHMS, and any `notImplemented` reason deleted from its declaration in
// dsl/schema/algorithms.ts (the one list ../not-implemented.ts reads). README.md in this
// folder says how the next ones plug in.
import type { PlanComponent } from '../../dsl/compile/plan.js';
import type { AlgorithmDefinition } from './algorithm.js';
import { loadedLearner } from './module/definition.js';
import { moduleTitle } from './module/load.js';
import { DQN } from './dqn/dqn.js';
import { PPO } from './ppo/ppo.js';
import { REINFORCE } from './reinforce/reinforce.js';
import { GRPO } from './grpo/grpo.js';
import { SFT } from './sft/sft.js';
import { DPO } from './dpo/dpo.js';
import { SAC } from './sac/sac.js';
import { BC } from './bc/bc.js';
import { TD3BC } from './td3bc/td3bc.js';
import { IQL } from './iql/iql.js';

export const ALGORITHMS: readonly AlgorithmDefinition<never, never>[] = [
  PPO as AlgorithmDefinition<never, never>,
  DQN as AlgorithmDefinition<never, never>,
  REINFORCE as AlgorithmDefinition<never, never>,
  SFT as AlgorithmDefinition<never, never>,
  DPO as AlgorithmDefinition<never, never>,
  GRPO as AlgorithmDefinition<never, never>,
  SAC as AlgorithmDefinition<never, never>,
  BC as AlgorithmDefinition<never, never>,
  TD3BC as AlgorithmDefinition<never, never>,
  IQL as AlgorithmDefinition<never, never>,
];

export function algorithmDefinition(name: string): AlgorithmDefinition<unknown, unknown> | undefined {
  return ALGORITHMS.find((a) => a.name === name) as AlgorithmDefinition<unknown, unknown> | undefined;
}

export type { ActionKind, Algorithm, AlgorithmContext, AlgorithmDefinition, TextAlgorithmContext } from './algorithm.js';
export { Sft, SFT, type SftState } from './sft/sft.js';
export { GRPO, GRPO_ADAM_EPS } from './grpo/grpo.js';
export { TextPolicyGradient, type TextLearnerConfig, type TextLearnerState } from './text/policy-gradient.js';
export { grpoSettings, type GrpoSettings } from './grpo/settings.js';
export { groupAdvantages } from './text/advantages.js';
export { sftSettings, type SftSettings } from './sft/settings.js';
export { computeGae } from './ppo/gae.js';
export { buildPpoLoss, LOSS_METRICS, ppoGradientStep, ppoLossAsWritten, type PpoLoss } from './ppo/loss.js';
export { Ppo, PPO, PPO_ADAM_EPS, type PpoState } from './ppo/ppo.js';
export { ppoSettings, type PpoSettings } from './ppo/settings.js';
export { Dqn, DQN, type DqnState } from './dqn/dqn.js';
export { Sac, SAC, SAC_ADAM_EPS, type SacState } from './sac/sac.js';
export { sacSettings, type SacSettings } from './sac/settings.js';
export { CheckpointStateError, learnerState, LearnerState, part, type StatePart, type StateParts } from './learner-state.js';
export { NonFiniteError, Stepper, type EpisodeRecord, type TransitionSink } from './stepper.js';
export { CheckedStep, DivergedError, type CheckedStepOptions, type CheckedWeights, type GradientOptimizer, type GradientRun } from './checked-step.js';

/**
 * The definition of a stage's algorithm: a built-in's by its name, or a learner module's once
 * loadStageLearners() has loaded it (module/definition.ts).
 */
export function stageAlgorithm(component: PlanComponent): AlgorithmDefinition<unknown, unknown> | undefined {
  return component.kind === 'module' ? loadedLearner(component) : algorithmDefinition(component.kind);
}
/** A stage's algorithm as status.json and the hparams event name it: the built-in's kind, or `Mine (module "./mine.ts")`. */
export function stageAlgorithmTitle(component: PlanComponent): string {
  return component.kind === 'module' ? moduleTitle(component.name, component.module ?? '') : component.kind;
}
export { learnerBundleFile, learnerStages, loadStageLearners } from './module/definition.js';
export { LearnerModuleError } from './module/errors.js';
