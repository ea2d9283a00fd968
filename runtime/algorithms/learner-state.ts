// A learner's checkpoint state, declared once as named parts (counters, random streams, weight
// stores, optimisers, and what else the learner keeps), from which both `state()` and
// `loadState()` follow:
//
//   private readonly saved = learnerState<DqnState>('DQN', {
//     globalStep: part.counter(this, 'globalStep'),
//     actionRng: part.rng(actionRng),
//     weights: part.weights(policy.weights),
//     optimizer: part.adam(this.optimizer),
//     buffer: part.optional(part.object('a replay buffer', this.buffer)),
//   });
//   state() { return this.saved.save(); }
//   loadState(saved: unknown) { this.saved.load(saved); }
//
// The saved object has one field per part, in the declaration's order: the format on disk is the
// declaration, so renaming a field breaks older checkpoints (declare `part.formerly(oldName, p)`
// to read them), and a part added later must be `part.optional` for checkpoints that lack it.
//
// A checkpoint comes from a run folder, which may hold another algorithm's state or a damaged
// one: load() checks every part (its kind; a weight store's names and shapes) before it loads
// any, and refuses with a CheckpointStateError naming the learner and the part (`has no
// 'targetWeights' (a weight snapshot)`), not a TypeError from deep inside a load. A part's own
// load() that refuses what passed (Adam's sizes, a replay buffer of another shape) is named too.
import { InputError } from '../../shared/input-error.js';
import type { Rng } from '../../shared/random.js';
import type { Adam, AdamState, LossScaler, LossScaleState, WeightSnapshot, WeightStore } from '../tensor/index.js';

/** One named part of a learner's state: how it is saved, what a saved one looks like, how it is loaded. */
export interface StatePart<T> {
  /** What the part holds, for errors: 'a weight snapshot'. */
  readonly kind: string;
  /** Whether a checkpoint may lack it (null or absent): the learner then keeps what it has. */
  readonly optional?: boolean;
  /** The part's name in checkpoints written before a rename, read when the current name is absent. */
  readonly formerly?: string;
  save(): T;
  /** Why `saved` (present, not null) cannot be loaded, naming the place under `at`; undefined where it can. */
  problem(saved: unknown, at: string): string | undefined;
  /** Loads a value problem() passed. */
  load(saved: T): void;
}

/** A declaration: one part per field of the saved state S. */
export type StateParts<S> = { readonly [K in keyof S]-?: StatePart<S[K]> };

/** A checkpoint's learner state that does not fit the learner loading it. */
export class CheckpointStateError extends InputError {
  override name = 'CheckpointStateError';
}

/** A learner's state, derived from its declaration `parts`; `learner` names it in errors. */
export class LearnerState<S> {
  constructor(
    readonly learner: string,
    readonly parts: StateParts<S>,
  ) {}

  /** Everything needed to continue exactly: one field per part, as each part's save() gives it. */
  save(): S {
    return saveParts(this.parts);
  }

  /** Checks every part of `saved`, then loads them all; a CheckpointStateError names the first that does not fit. */
  load(saved: unknown): void {
    const where = `the checkpoint's ${this.learner} state`;
    const problem = isRecord(saved) ? partsProblem(this.parts, saved, '') : `is not an object (got ${describe(saved)})`;
    if (problem !== undefined) {
      throw new CheckpointStateError(`${where} ${problem}: the checkpoint was written by another algorithm or is damaged; remove it to resume from an earlier checkpoint of the run, or train afresh`);
    }
    try {
      loadParts(this.parts, saved as Record<string, unknown>);
    } catch (err) {
      if (!(err instanceof PartLoadError)) throw err;
      throw new CheckpointStateError(`${where} does not fit this learner at '${err.at}': ${err.cause.message}`, { cause: err.cause });
    }
  }
}

/** A learner's state declared as `parts` (see the top of this file). */
export function learnerState<S>(learner: string, parts: StateParts<S>): LearnerState<S> {
  return new LearnerState(learner, parts);
}

/** The kinds of part a learner declares its state with. */
export const part = {
  /** A whole number >= 0 kept in `owner[key]` (globalStep, updates). */
  counter<K extends string>(owner: { [P in K]: number }, key: K): StatePart<number> {
    return {
      kind: 'a count',
      save: () => owner[key],
      problem: (saved, at) => (Number.isSafeInteger(saved) && (saved as number) >= 0 ? undefined : notA(at, 'a whole number >= 0', saved)),
      load: (saved) => (owner[key] = saved),
    };
  },

  /** A finite number read and written through `get` and `set` (SAC's log alpha). */
  number(get: () => number, set: (value: number) => void): StatePart<number> {
    return {
      kind: 'a number',
      save: get,
      problem: (saved, at) => (typeof saved === 'number' && Number.isFinite(saved) ? undefined : notA(at, 'a finite number', saved)),
      load: set,
    };
  },

  /** A random stream's state (Rng.getState()). */
  rng(rng: Rng): StatePart<number[]> {
    const length = rng.getState().length;
    return {
      kind: 'a random stream',
      save: () => rng.getState(),
      problem: (saved, at) => (Array.isArray(saved) && saved.length === length && saved.every(Number.isFinite) ? undefined : notA(at, `a random stream's state (${length} numbers)`, saved)),
      load: (saved) => rng.setState(saved),
    };
  },

  /** The weights of a store, every one of them (names and shapes are checked before any is loaded). */
  weights(store: WeightStore): StatePart<WeightSnapshot> {
    return {
      kind: 'a weight snapshot',
      save: () => store.snapshot(),
      problem: (saved, at) => {
        if (!isRecord(saved)) return notA(at, 'a weight snapshot', saved);
        for (const name of store.names) {
          const weight = saved[name];
          if (weight === undefined) return `has no weight '${name}' in '${at}'`;
          const { shape, data } = isRecord(weight) ? weight : {};
          if (!Array.isArray(shape) || !(data instanceof Float32Array)) return `has a weight '${name}' in '${at}' that is not { shape, data }`;
          const expected = store.get(name);
          if (shape.join(',') !== expected.shape.join(',')) return `has weight '${name}' in '${at}' of shape [${shape.join(', ')}], where this learner's is [${expected.shape.join(', ')}]`;
          if (data.length !== expected.data.length) return `has weight '${name}' in '${at}' with ${data.length} numbers, where this learner's has ${expected.data.length}`;
        }
        return undefined;
      },
      load: (saved) => store.load(saved),
    };
  },

  /** An Adam optimiser's moments and step count. */
  adam(optimizer: Adam): StatePart<AdamState> {
    return {
      kind: 'an Adam state',
      save: () => optimizer.state(),
      problem: (saved, at) => {
        const arrays = (v: unknown) => Array.isArray(v) && v.every((a) => a instanceof Float32Array);
        return isRecord(saved) && Number.isSafeInteger(saved.step) && arrays(saved.m) && arrays(saved.v) ? undefined : notA(at, 'an Adam state ({ step, m, v })', saved);
      },
      load: (saved) => optimizer.load(saved),
    };
  },

  /**
   * A float16 step's loss scale (GradientStep.lossScaler), where the step has one: optional, so a
   * checkpoint without it (fp32, or from before) leaves the scale the learner starts with; none in fp32.
   */
  lossScale(scaler: LossScaler | null): StatePart<LossScaleState | null> {
    if (!scaler) return part.none();
    return {
      kind: 'a loss scale',
      optional: true,
      save: () => scaler.state(),
      problem: (saved, at) =>
        isRecord(saved) && typeof saved.scale === 'number' && Number.isFinite(saved.scale) && saved.scale > 0 && Number.isSafeInteger(saved.goodSteps) && (saved.goodSteps as number) >= 0
          ? undefined
          : notA(at, 'a loss scale ({ scale > 0, goodSteps })', saved),
      load: (saved) => {
        if (saved) scaler.load(saved);
      },
    };
  },

  /** Anything with state() and load() (a replay buffer), saved as the object state() returns; `kind` says what it is. */
  object<T>(kind: string, thing: { state(): T; load(saved: T): void }): StatePart<T> {
    return {
      kind,
      save: () => thing.state(),
      problem: (saved, at) => (isRecord(saved) ? undefined : notA(at, kind, saved)),
      load: (saved) => thing.load(saved),
    };
  },

  /** Parts saved together as one object (SAC's `rngs: { actions, noise, replay }`). */
  group<S>(parts: StateParts<S>): StatePart<S> {
    return {
      kind: `an object of ${Object.keys(parts).join(', ')}`,
      save: () => saveParts(parts),
      problem: (saved, at) => (isRecord(saved) ? partsProblem(parts, saved, `${at}.`) : notA(at, `an object of ${Object.keys(parts).join(', ')}`, saved)),
      load: (saved) => loadParts(parts, saved as Record<string, unknown>),
    };
  },

  /** A part this learner does not have (SAC's alpha optimiser with a fixed alpha): saved as null, ignored on load. */
  none(): StatePart<null> {
    return { kind: 'nothing', optional: true, save: () => null, problem: () => undefined, load: () => {} };
  },

  /** `inner`, which a checkpoint may lack (null or absent): the learner keeps what it has (a replay buffer dropped from an older checkpoint). */
  optional<T>(inner: StatePart<T>): StatePart<T | null> {
    return { ...inner, optional: true } as StatePart<T | null>;
  },

  /** `inner`, read from field `oldName` in checkpoints written before it was renamed. */
  formerly<T>(oldName: string, inner: StatePart<T>): StatePart<T> {
    return { ...inner, formerly: oldName };
  },
};

/** A part's load() that threw, and where (`rngs.actions`). */
class PartLoadError extends Error {
  constructor(
    readonly at: string,
    override readonly cause: Error,
  ) {
    super(`${at}: ${cause.message}`);
  }
}

const entries = <S>(parts: StateParts<S>) => Object.entries(parts as Record<string, StatePart<unknown>>);

function saveParts<S>(parts: StateParts<S>): S {
  const out: Record<string, unknown> = {};
  for (const [key, p] of entries(parts)) out[key] = p.save();
  return out as S;
}

/** The saved value of part `p` under `key`, or under its former name. */
function savedValue(p: StatePart<unknown>, saved: Record<string, unknown>, key: string): unknown {
  return saved[key] === undefined && p.formerly !== undefined ? saved[p.formerly] : saved[key];
}

function partsProblem<S>(parts: StateParts<S>, saved: Record<string, unknown>, prefix: string): string | undefined {
  for (const [key, p] of entries(parts)) {
    const value = savedValue(p, saved, key);
    const at = prefix + key;
    if (value === undefined || value === null) {
      if (p.optional) continue;
      return `has no '${at}' (${p.kind})`;
    }
    const problem = p.problem(value, at);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Loads every part present in `saved`; a part that throws is named in a PartLoadError (nested: `rngs.actions`). */
function loadParts<S>(parts: StateParts<S>, saved: Record<string, unknown>): void {
  for (const [key, p] of entries(parts)) {
    const value = savedValue(p, saved, key);
    if (value === undefined || value === null) continue; // optional: partsProblem() let it through
    try {
      p.load(value);
    } catch (err) {
      throw err instanceof PartLoadError ? new PartLoadError(`${key}.${err.at}`, err.cause) : new PartLoadError(key, err as Error);
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

const notA = (at: string, what: string, saved: unknown) => `has '${at}' that is not ${what} (got ${describe(saved)})`;

/** A short description of a saved value, for errors (a checkpoint's arrays can be long). */
function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}
