// What the offline learners (BC, TD3BC, IQL) share about their data: the `data` file read as a
// dataset of transitions (../../../shared/transitions/transitions.ts) and checked against the
// env the run evaluates on, the observation statistics CORL normalises states with, and uniform
// batches drawn from it, as CORL's ReplayBuffer.sample does.
import type { BoxSpace } from '../../envs/types.js';
import type { DataFile } from '../../run/data-files.js';
import type { Stepper } from '../stepper.js';
import type { Rng } from '../../../shared/random.js';
import { InputError } from '../../../shared/input-error.js';
import { bytesSource } from '../../../shared/transitions/npz.js';
import { loadTransitions, type Transitions } from '../../../shared/transitions/transitions.js';
import type { PlanParams } from '../../plan-params.js';

/** CORL's compute_mean_std epsilon: std + 1e-3, so a constant feature divides by 1e-3, not 0. */
export const NORMALIZATION_EPS = 1e-3;

/**
 * The stage's `data` as transitions, checked against the env: its observation and action
 * numbers must be the env's (the checker compares observations first, where it knows the env's).
 */
export function readOfflineData(algorithm: string, dataFiles: ReadonlyMap<string, DataFile> | undefined, stepper: Stepper): Transitions {
  const file = dataFiles?.get('data');
  if (!file) throw new InputError(`${algorithm} learns from a dataset of transitions: set data: "./FILE.npz" (rlx record writes one; docs/offline-rl.md)`);
  const data = loadTransitions(bytesSource(file.path, file.bytes()));
  const space = stepper.vec.actionSpace;
  if (space.kind !== 'box') throw new InputError(`${algorithm} trains on continuous (Box) actions; the env has ${space.kind} actions`);
  const actionDim = (space as BoxSpace).shape.reduce((a, b) => a * b, 1);
  const env = stepper.vec.kind;
  if (data.obsDim !== stepper.obsDim) {
    throw new InputError(`${file.path}: its observations have ${data.obsDim} numbers (shape ${JSON.stringify(data.obsShape)}), ${env}'s ${stepper.obsDim}; record the dataset on the env the experiment evaluates on`);
  }
  if (data.actionDim !== actionDim) {
    throw new InputError(`${file.path}: its actions have ${data.actionDim} numbers (shape ${JSON.stringify(data.actionShape)}), ${env}'s ${actionDim}; record the dataset on the env the experiment evaluates on`);
  }
  return data;
}

/** Per-feature mean and std + NORMALIZATION_EPS of the dataset's observations (CORL's compute_mean_std), in float64. */
export function observationStats(data: Transitions): { mean: Float32Array; std: Float32Array } {
  const d = data.obsDim;
  const sum = new Float64Array(d);
  const squares = new Float64Array(d);
  for (let r = 0; r < data.size; r++) for (let k = 0; k < d; k++) sum[k] += data.observations[r * d + k]!;
  const mean = sum.map((s) => s / data.size);
  for (let r = 0; r < data.size; r++) for (let k = 0; k < d; k++) squares[k] += (data.observations[r * d + k]! - mean[k]!) ** 2;
  return { mean: Float32Array.from(mean), std: Float32Array.from(squares, (s) => Math.sqrt(s / data.size) + NORMALIZATION_EPS) };
}

/** The dataset's observations and next observations normalised in place: (x - mean) / std. */
export function normalizeObservations(data: Transitions, stats: { mean: Float32Array; std: Float32Array }): void {
  const d = data.obsDim;
  for (const array of [data.observations, data.nextObservations]) {
    for (let i = 0; i < array.length; i++) array[i] = (array[i]! - stats.mean[i % d]!) / stats.std[i % d]!;
  }
}

/** A batch of `size` rows, each drawn uniformly with replacement; the arrays are reused. */
export class OfflineBatch {
  readonly obs: Float32Array;
  readonly actions: Float32Array;
  readonly rewards: Float32Array;
  readonly nextObs: Float32Array;
  readonly dones: Float32Array;

  constructor(readonly data: Transitions, readonly size: number) {
    this.obs = new Float32Array(size * data.obsDim);
    this.actions = new Float32Array(size * data.actionDim);
    this.rewards = new Float32Array(size);
    this.nextObs = new Float32Array(size * data.obsDim);
    this.dones = new Float32Array(size);
  }

  sample(rng: Rng): void {
    const { data, size } = this;
    const d = data.obsDim;
    const a = data.actionDim;
    for (let i = 0; i < size; i++) {
      const r = Math.floor(rng.uniform() * data.size);
      this.obs.set(data.observations.subarray(r * d, (r + 1) * d), i * d);
      this.nextObs.set(data.nextObservations.subarray(r * d, (r + 1) * d), i * d);
      this.actions.set(data.actions.subarray(r * a, (r + 1) * a), i * a);
      this.rewards[i] = data.rewards[r]!;
      this.dones[i] = data.terminals[r]!;
    }
  }
}

/** Gradient steps per iterate(): the trainer logs, evaluates and checks its stop condition between them. */
export const GRADIENT_STEPS_PER_ITERATE = 1000;

/**
 * The stage's dataset, ready to train on: read and checked (readOfflineData), and with
 * `normalize` its observations normalised and the statistics handed to the actor, which acts on
 * the env's raw observations with them.
 */
export function prepareOfflineData(algorithm: string, dataFiles: ReadonlyMap<string, DataFile> | undefined, stepper: Stepper, normalize: boolean, actor: { mean: Float32Array; std: Float32Array }): Transitions {
  const data = readOfflineData(algorithm, dataFiles, stepper);
  if (normalize) {
    const stats = observationStats(data);
    normalizeObservations(data, stats);
    actor.mean = stats.mean;
    actor.std = stats.std;
  }
  return data;
}

/** Sums of named metrics over an iterate's steps, and their means. */
export class MetricSums {
  private readonly sums = new Map<string, { total: number; count: number }>();

  add(name: string, value: number): void {
    const entry = this.sums.get(name) ?? { total: 0, count: 0 };
    entry.total += value;
    entry.count++;
    this.sums.set(name, entry);
  }

  /** Each metric's mean, and clears the sums. */
  take(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, { total, count }] of this.sums) out[name] = total / count;
    this.sums.clear();
    return out;
  }
}

/** An offline learner's `data` setting: the path of its transitions file, as the plan names it. */
export function transitionsPath(p: PlanParams): string {
  const data = p.value('data');
  return typeof data === 'string' && data !== '' ? data : p.fail('data', 'the path of an .npz file of transitions');
}
