// What a numeric learner module is given and returns (docs/learners.md#numeric-learners). rlx
// runs the off-policy loop (acting with exploration noise, the replay buffer, the target
// networks' Polyak copies, Adam, checkpoints); each update it samples a batch of transitions
// and feeds the graph the module built once at the start. A loss trains the networks its key
// names: `critics` both Q networks, `actor` the policy.
import type { LossGraph, LossTensor } from './loss-graph.js';
import type { LearnerSettings } from './text-batch.js';

/** A batch of B transitions (s, a, r, s', done) sampled uniformly from the replay buffer. */
export interface NumericBatch {
  /** The discount, rlx's `gamma` setting. */
  readonly gamma: number;
  /** [B, O] float32: the observations s. */
  readonly observations: LossTensor;
  /** [B, A] float32: the actions taken, in env units (within the action space's bounds). */
  readonly actions: LossTensor;
  /** [B] float32: the rewards (the plan's reward terms, summed). */
  readonly rewards: LossTensor;
  /** [B, O] float32: the next observations s' (an ended episode's real last one). */
  readonly nextObservations: LossTensor;
  /** [B] float32: 1 where s' is terminal (no bootstrap), 0 otherwise, time limits included. */
  readonly dones: LossTensor;
  /** [B, A] float32: fresh N(0, 1) draws each update, from the run's seed (TD3's target policy smoothing, a reparameterised sample). */
  readonly noise: LossTensor;
}

/**
 * The networks rlx builds from the plan's mlp policy, as functions on the loss graph: a
 * deterministic actor (obs -> tanh, rescaled to the action bounds), twin Q networks
 * (obs ++ action -> 1), and a target copy of each that rlx moves towards its network by
 * Polyak averaging (`tau`) after each actor step.
 */
export interface NumericNetworks {
  /** [B, O] -> [B, A]: the policy's action in env units; the gradient reaches the actor's weights. */
  actor(observations: LossTensor): LossTensor;
  /** The target actor's action; no gradient reaches any weights through it. */
  targetActor(observations: LossTensor): LossTensor;
  /** ([B, O], [B, A]) -> [B]: Q1(s, a); trained by the `critics` loss. */
  q1(observations: LossTensor, actions: LossTensor): LossTensor;
  q2(observations: LossTensor, actions: LossTensor): LossTensor;
  /** The target critics' values; no gradient reaches any weights through them. */
  targetQ1(observations: LossTensor, actions: LossTensor): LossTensor;
  targetQ2(observations: LossTensor, actions: LossTensor): LossTensor;
  /** [A] float32: the action space's lower and upper bounds, and (high - low) / 2. */
  readonly actionLow: LossTensor;
  readonly actionHigh: LossTensor;
  readonly actionScale: LossTensor;
}

/** One loss of a numeric learner. */
export interface NumericLoss {
  /** The scalar (shape []) rlx minimises with Adam over the networks the loss's key names. */
  readonly loss: LossTensor;
  /** Take this step on every `every`-th update only (TD3's policy_delay); default 1, every update. */
  readonly every?: number;
  /** Scalars to log as `learner/NAME`, averaged over the steps taken; names unique across both losses. */
  readonly metrics?: Readonly<Record<string, LossTensor>>;
}

/**
 * What a numeric learner's buildLosses returns: each key the networks its loss trains. Each
 * update rlx steps `critics` first, then `actor` (reading the critics just updated), then, if
 * the actor stepped, moves every target network by tau.
 */
export interface NumericLosses {
  /** Trains Q1 and Q2 (the actor's and the targets' weights are held fixed). */
  readonly critics: NumericLoss;
  /** Trains the actor (the critics' weights are held fixed). */
  readonly actor: NumericLoss;
}

/** The function a numeric learner module exports as `buildLosses`: called once, when the stage starts. */
export type BuildNumericLosses = (g: LossGraph, batch: NumericBatch, networks: NumericNetworks, settings: LearnerSettings) => NumericLosses;
