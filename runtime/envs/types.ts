// The environment interface shared by the built-in environments, user
// environments (`env X = module("./file.ts")`) and the vectorised stepper.
// It follows Gymnasium's API (reset/step, terminated vs truncated) so that
// algorithms written against Gymnasium semantics carry over unchanged.

export interface DiscreteSpace {
  readonly kind: 'discrete';
  /** Actions are the integers 0 .. n-1. */
  readonly n: number;
}

export interface BoxSpace {
  readonly kind: 'box';
  readonly shape: readonly number[];
  /** Flattened bounds, one entry per element; may be ±Infinity. */
  readonly low: readonly number[];
  readonly high: readonly number[];
}

export interface MultiBinarySpace {
  readonly kind: 'multibinary';
  /** Actions are n independent bits, each 0 or 1 (Gymnasium's MultiBinary, flattened). */
  readonly n: number;
}

export type Space = DiscreteSpace | BoxSpace | MultiBinarySpace;

/** Numbers an element of the space takes in a flat buffer: 1 for a discrete space, n for n bits. */
export function spaceSize(space: Space): number {
  if (space.kind === 'discrete') return 1;
  if (space.kind === 'multibinary') return space.n;
  return space.shape.reduce((product, extent) => product * extent, 1);
}

/** The language's action kind (dsl/schema ActionKind) of an env with this action space. */
export function actionKindOf(space: Space): 'discrete' | 'continuous' | 'multibinary' {
  return space.kind === 'box' ? 'continuous' : space.kind;
}

export type EnvInfoRecord = Record<string, unknown>;

export interface ResetResult {
  obs: Float64Array | number[];
  info: EnvInfoRecord;
}

export interface StepResult {
  obs: Float64Array | number[];
  reward: number;
  /** The episode ended inside the task (pole fell, goal reached): do not bootstrap. */
  terminated: boolean;
  /** The episode was cut off from outside (time limit): bootstrap from the final observation. */
  truncated: boolean;
  info: EnvInfoRecord;
}

/** What every environment offers to users and to the trainer. */
export interface Env {
  /** The built-in's name as the language spells it (`CartPole`), or the module's. */
  readonly kind: string;
  readonly observationSpace: Space;
  readonly actionSpace: Space;
  /**
   * Names of the observation's elements, in order; reward expressions say `obs.<name>`.
   * Empty for an observation whose elements have no names (Bandit's constant input).
   */
  readonly obsFields: readonly string[];
  /**
   * Values step() reports in info for reward terms (`info.NAME`), as a user module's spec
   * declares them; none when absent. With `success` among them, episodes report success.
   */
  readonly infoFields?: readonly string[];
  /**
   * Whether reset() and step() say which discrete actions are legal in the observation they
   * return: `info.action_mask`, one number per action, 1 legal and 0 not (sb3-contrib's
   * MaskablePPO convention). Absent or false: every action is always legal.
   */
  readonly masksActions?: boolean;
  /** Names of getState()'s elements, in order. */
  readonly stateLayout: readonly string[];
  /** An episode is truncated when `elapsedSteps` reaches this. */
  readonly maxSteps: number;
  /** Steps taken since the last reset() or setState(). */
  readonly elapsedSteps: number;
  /** `seed` restarts the environment's random stream; without it the stream continues. */
  reset(seed?: number): ResetResult;
  step(action: number | ArrayLike<number>): StepResult;
  /** The internal (float64) state, laid out as `stateLayout`. */
  getState(): number[];
  /** Replaces the internal state and starts a new episode at t = 0 (no random draw). */
  setState(state: readonly number[]): void;
  /**
   * What makes an env of this kind goal-conditioned, in its author's terms, for a refusal of
   * `relabel:` on one that is not; absent: a TS env's goalFields, achievedFields and computeReward.
   */
  readonly goalEnvAdvice?: string;
}

/**
 * The allocation-free path the vectorised stepper uses. Observations are
 * written as float32 straight into the caller's buffer; the flags of the last
 * step are read from `terminated` / `truncated`.
 */
export interface FastEnv extends Env {
  readonly obsDim: number;
  /** Numbers per action in a flat action buffer: 1 for discrete spaces. */
  readonly actionDim: number;
  readonly terminated: boolean;
  readonly truncated: boolean;
  /** Whether the episode so far reached its goal (goal-conditioned envs; false elsewhere). */
  readonly success: boolean;
  /** The infoFields values of the last step, in order (true/false as 1/0). */
  readonly info?: ArrayLike<number>;
  /**
   * Where the last step ended an episode: the env's own count of its return, when it keeps one
   * (a Python env's info["episode"]["r"]); null or absent: the sum of the rewards it returned.
   * It differs under a wrapper that rescales the rewards (Gymnasium's NormalizeReward).
   */
  readonly episodeReturn?: number | null;
  /**
   * Envs that mask actions (masksActions): the legal actions in the observation the last
   * resetInto() or stepInto() wrote, one number per discrete action, 1 legal and 0 not.
   * VecEnv reads it after each of those calls and checks it (action-mask.ts): it is whatever
   * the env reported (numbers, booleans, something wrong), hence `unknown`.
   */
  readonly actionMask?: unknown;
  /** Restart the random stream as copy `stream` of a run seeded with `seed`. */
  seed(seed: number, stream?: number): void;
  /** Start an episode and write its first observation at obsOut[obsOffset ..]. */
  resetInto(obsOut: Float32Array, obsOffset: number): void;
  /** Apply actions[actionOffset ..], write the next observation, return the reward. */
  stepInto(actions: ArrayLike<number>, actionOffset: number, obsOut: Float32Array, obsOffset: number): number;
}

/** Goal-conditioned environments expose what hindsight relabeling needs. */
export interface GoalConditioned {
  /** Observation fields holding the achieved goal (e.g. the agent's position). */
  readonly achievedFields: readonly string[];
  /** Observation fields holding the desired goal. */
  readonly goalFields: readonly string[];
  /** The reward the environment would have given for reaching `achieved` when asked for `goal`. */
  computeReward(achieved: ArrayLike<number>, goal: ArrayLike<number>): number;
  /**
   * Whether reaching `achieved` when asked for `goal` ends the episode (gymnasium-robotics'
   * GoalEnv.compute_terminated), for envs that terminate on success. Relabeling sets a
   * relabeled transition's done from it; without it, relabeled rows keep their stored dones.
   */
  computeTerminated?(achieved: ArrayLike<number>, goal: ArrayLike<number>): boolean;
  /**
   * computeReward (and computeTerminated, where the env has it) for `count` pairs at once: row i
   * of `achieved` and of `goals` is numbers [i * width, (i + 1) * width). For envs where each
   * call is a round trip to another process (Python); relabeling uses it when present.
   */
  computeRewards?(achieved: Float32Array, goals: Float32Array, count: number, width: number): GoalOutcomes;
}

/** What computeRewards answers for a batch of (achieved, goal) pairs. */
export interface GoalOutcomes {
  readonly rewards: ArrayLike<number>;
  /** Per pair, whether it ends the episode (computeTerminated); null for an env without one. */
  readonly terminated: ArrayLike<boolean> | null;
}

export function isGoalConditioned(env: Env): env is Env & GoalConditioned {
  return typeof (env as Partial<GoalConditioned>).computeReward === 'function';
}

/** The refusal of `relabel:` (by `algorithm`, with `strategy`) on `env`, which is not goal-conditioned. */
export function notGoalConditioned(algorithm: string, strategy: string, env: Env): Error {
  const advice = env.goalEnvAdvice ?? 'it has no goalFields, achievedFields and computeReward';
  return new Error(`${algorithm} relabels goals (relabel: ${strategy}), but the env ${env.kind} is not goal-conditioned (${advice}); set relabel: none`);
}

/** A picture of an env's state: `height` rows of `width` pixels of `channels` bytes (1 gray, 3 RGB, 4 RGBA), top row first. */
export interface RgbFrame {
  readonly width: number;
  readonly height: number;
  readonly channels: 1 | 3 | 4;
  readonly pixels: Uint8Array;
}

/** Envs that draw their state (a Gymnasium env made with render_mode "rgb_array"): the recorded episodes keep a frame per step. */
export interface RendersFrames {
  /** The current state as a picture; throws (an EnvModuleError) when the env cannot draw it. */
  renderFrame(): RgbFrame;
}

export function rendersFrames(env: Env): env is Env & RendersFrames {
  return typeof (env as Partial<RendersFrames>).renderFrame === 'function';
}

export function isFastEnv(env: Env): env is FastEnv {
  const candidate = env as Partial<FastEnv>;
  return typeof candidate.stepInto === 'function' && typeof candidate.resetInto === 'function';
}
