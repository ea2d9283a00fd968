// A dataset of transitions for the offline learners (BC, TD3BC, IQL): an .npz with D4RL's keys,
// the layout d4rl.qlearning_dataset returns and `rlx record` writes (docs/offline-rl.md):
//
//   observations       [N, obs...]  float
//   actions            [N, act...]  float (continuous actions)
//   rewards            [N] or [N, 1]
//   terminals          [N]          0/1 or bool: the episode ended in a terminal state (no bootstrap)
//   timeouts           [N]          optional; 0/1 or bool: the episode was cut by a time limit
//   next_observations  [N, obs...]  optional; without it, row i's next observation is row i + 1's
//                                   (a row that ends an episode by its time limit, or the last row,
//                                   then has none and is left out, as qlearning_dataset does)
//
// Reading goes a chunk of rows at a time through every array, checking as it goes: the same
// number of rows everywhere, no NaN or infinity, 0/1 flags, and episode boundaries (a row that
// neither terminals nor timeouts ends must have the next row's observation as its next one).
// Each problem is an error naming the file, the array and the row.
import { npzChunks, NpzError, readNpz, type ByteSource, type NpyArray } from './npz.js';

export const TRANSITION_KEYS = {
  required: ['observations', 'actions', 'rewards', 'terminals'],
  optional: ['timeouts', 'next_observations'],
} as const;

/** Rows read at a time by default: a few MiB of each array on the widest envs. */
export const DEFAULT_CHUNK_ROWS = 16_384;

/** What a dataset's headers say, read without its data. */
export interface TransitionsHeader {
  readonly file: string;
  /** Rows of the arrays (before any without a next observation are left out). */
  readonly rows: number;
  /** Each observation's shape and its numbers. */
  readonly obsShape: readonly number[];
  readonly obsDim: number;
  readonly actionShape: readonly number[];
  readonly actionDim: number;
  readonly hasNextObservations: boolean;
  readonly hasTimeouts: boolean;
}

/** A dataset in memory, row-major float32 arrays of the kept rows. */
export interface Transitions extends TransitionsHeader {
  /** Rows kept (rows with a next observation). */
  readonly size: number;
  readonly observations: Float32Array;
  readonly actions: Float32Array;
  readonly rewards: Float32Array;
  /** 1 where the episode terminated (no bootstrap). */
  readonly terminals: Float32Array;
  readonly nextObservations: Float32Array;
  /** 1 where the row ends an episode (terminal or time limit): episode returns, BC's top fraction. */
  readonly episodeEnds: Uint8Array;
}

/** Reads the headers of the dataset in `source` and checks its keys and shapes; reads no data. */
export function readTransitionsHeader(source: ByteSource): TransitionsHeader {
  return openTransitions(source).header;
}

interface Opened {
  readonly header: TransitionsHeader;
  readonly arrays: ReadonlyMap<string, NpyArray>;
}

function openTransitions(source: ByteSource): Opened {
  const arrays = readNpz(source);
  const file = source.name;
  const missing = TRANSITION_KEYS.required.filter((k) => !arrays.has(k));
  if (missing.length > 0) {
    throw new NpzError(`${file} has no ${missing.join(', ')} array${missing.length > 1 ? 's' : ''}; a dataset of transitions holds ${TRANSITION_KEYS.required.join(', ')} (and optionally ${TRANSITION_KEYS.optional.join(', ')}), D4RL's keys (it has ${[...arrays.keys()].join(', ') || 'no arrays'})`);
  }
  const obs = arrays.get('observations')!;
  const rows = obs.shape[0] ?? 0;
  if (obs.shape.length === 0 || rows === 0) throw new NpzError(`${file}: observations holds no rows; a dataset needs at least one transition`);
  for (const array of arrays.values()) {
    if (![...TRANSITION_KEYS.required, ...TRANSITION_KEYS.optional].includes(array.key as never)) continue;
    if (array.shape.length === 0 || array.shape[0] !== rows) throw new NpzError(`${file}: ${array.key} has shape (${array.shape.join(', ')}), observations ${rows} rows; every array holds one row per transition`);
  }
  for (const key of ['rewards', 'terminals', 'timeouts']) {
    const a = arrays.get(key);
    if (a && a.rowWidth !== 1) throw new NpzError(`${file}: ${key} has shape (${a.shape.join(', ')}); it holds one number per transition, shape (${rows},)`);
  }
  const next = arrays.get('next_observations');
  if (next && next.shape.slice(1).join(',') !== obs.shape.slice(1).join(',')) {
    throw new NpzError(`${file}: next_observations has shape (${next.shape.join(', ')}), observations (${obs.shape.join(', ')}); they must match`);
  }
  const actions = arrays.get('actions')!;
  return {
    arrays,
    header: {
      file, rows,
      obsShape: obs.shape.slice(1), obsDim: obs.rowWidth,
      actionShape: actions.shape.slice(1), actionDim: actions.rowWidth,
      hasNextObservations: next !== undefined,
      hasTimeouts: arrays.has('timeouts'),
    },
  };
}

/** The numbers of rows [from, from + count) of every array, as one chunk of the scan hands them over. */
interface Chunk {
  readonly from: number;
  readonly count: number;
  readonly observations: Float64Array;
  readonly actions: Float64Array;
  readonly rewards: Float64Array;
  readonly terminals: Float64Array;
  readonly timeouts: Float64Array | null;
  /** next_observations' rows, or without them observations of rows [from + 1, from + count + 1) (the last row's absent). */
  readonly next: Float64Array;
  /** Whether row from + count - 1 has a next observation without next_observations (a row follows it). */
  readonly lastHasNext: boolean;
}

export interface ScanOptions {
  /** Rows read at a time (DEFAULT_CHUNK_ROWS). */
  readonly chunkRows?: number;
}

/**
 * Reads every row of the dataset in chunks, checks each (see the top of the file) and hands it to
 * `visit`; memory beyond what `visit` keeps is a chunk of each array.
 */
function scan(opened: Opened, options: ScanOptions, visit: (chunk: Chunk) => void): void {
  const { header, arrays } = opened;
  const { file, rows, obsDim } = header;
  const chunkRows = Math.max(1, Math.floor(options.chunkRows ?? DEFAULT_CHUNK_ROWS));
  const get = (key: string) => arrays.get(key);
  const nextArray = get('next_observations');
  for (let from = 0; from < rows; from += chunkRows) {
    const count = Math.min(chunkRows, rows - from);
    const read = (key: string, extra = 0): Float64Array | null => {
      const a = get(key);
      if (!a) return null;
      const values = a.readRows(from, Math.min(count + extra, rows - from));
      finite(file, a, from, values);
      return values;
    };
    const withFollowing = read('observations', nextArray ? 0 : 1)!;
    const observations = nextArray ? withFollowing : withFollowing.subarray(0, count * obsDim);
    const terminals = read('terminals')!;
    const timeouts = read('timeouts');
    flags(file, 'terminals', from, terminals);
    if (timeouts) flags(file, 'timeouts', from, timeouts);
    const next = nextArray ? read('next_observations')! : withFollowing.subarray(obsDim);
    if (nextArray) boundaries(file, from, count, observations, next, terminals, timeouts, get('observations')!, obsDim);
    visit({ from, count, observations, actions: read('actions')!, rewards: read('rewards')!, terminals, timeouts, next, lastHasNext: from + count < rows });
  }
}

/** Row `i`'s index and column for a message: `observations[12]` or `observations[12, 3]`. */
function at(key: string, array: NpyArray, flat: number, from: number): string {
  const row = from + Math.floor(flat / array.rowWidth);
  return array.rowWidth === 1 ? `${key}[${row}]` : `${key}[${row}, ${flat % array.rowWidth}]`;
}

function finite(file: string, array: NpyArray, from: number, values: Float64Array): void {
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) throw new NpzError(`${file}: ${at(array.key, array, i, from)} is ${values[i]}; a dataset holds finite numbers only: drop or repair that transition`);
  }
}

function flags(file: string, key: string, from: number, values: Float64Array): void {
  for (let i = 0; i < values.length; i++) {
    if (values[i] !== 0 && values[i] !== 1) throw new NpzError(`${file}: ${key}[${from + i}] is ${values[i]}; ${key} holds 0 or 1 (or bools)`);
  }
}

/** A row that no flag ends must lead to the next row: its next observation is the next row's observation. */
function boundaries(file: string, from: number, count: number, obs: Float64Array, next: Float64Array, terminals: Float64Array, timeouts: Float64Array | null, obsArray: NpyArray, obsDim: number): void {
  for (let i = 0; i < count; i++) {
    const row = from + i;
    if (terminals[i] === 1 || timeouts?.[i] === 1 || row + 1 >= obsArray.rows) continue;
    const following = i + 1 < count ? obs.subarray((i + 1) * obsDim, (i + 2) * obsDim) : obsArray.readRows(row + 1, 1);
    for (let k = 0; k < obsDim; k++) {
      if (next[i * obsDim + k] !== following[k]) {
        throw new NpzError(`${file}: next_observations[${row}] is not observations[${row + 1}], yet neither terminals[${row}] nor ${timeouts ? `timeouts[${row}]` : 'a timeouts array'} ends an episode there: `
          + 'an episode boundary is missing (mark the row in terminals or timeouts) or the rows are out of order');
      }
    }
  }
}

/** Checks the whole dataset in chunks (bounded memory) and returns its header, its rows kept and its episodes. */
export function verifyTransitions(source: ByteSource, options: ScanOptions = {}): TransitionsHeader & { readonly size: number; readonly episodes: number } {
  const opened = openTransitions(source);
  let size = 0;
  let episodes = 0;
  scan(opened, options, (chunk) => {
    for (let i = 0; i < chunk.count; i++) {
      if (keeps(opened.header, chunk, i)) size++;
      if (chunk.terminals[i] === 1 || chunk.timeouts?.[i] === 1) episodes++;
    }
  });
  return { ...opened.header, size, episodes };
}

/** Whether row i of the chunk has a next observation (always, with next_observations). */
function keeps(header: TransitionsHeader, chunk: Chunk, i: number): boolean {
  if (header.hasNextObservations || chunk.terminals[i] === 1) return true;
  if (chunk.timeouts?.[i] === 1) return false;
  return i < chunk.count - 1 || chunk.lastHasNext;
}

/** Reads, checks and keeps the dataset as float32 arrays, a chunk at a time (memory: the arrays and one chunk). */
export function loadTransitions(source: ByteSource, options: ScanOptions = {}): Transitions {
  const opened = openTransitions(source);
  const { header } = opened;
  const { rows, obsDim, actionDim } = header;
  const observations = new Float32Array(rows * obsDim);
  const nextObservations = new Float32Array(rows * obsDim);
  const actions = new Float32Array(rows * actionDim);
  const rewards = new Float32Array(rows);
  const terminals = new Float32Array(rows);
  const episodeEnds = new Uint8Array(rows);
  let size = 0;
  scan(opened, options, (chunk) => {
    for (let i = 0; i < chunk.count; i++) {
      const end = chunk.terminals[i] === 1 || chunk.timeouts?.[i] === 1;
      if (!keeps(header, chunk, i)) {
        // Left out, but its episode still ends here (for episode returns).
        if (end && size > 0) episodeEnds[size - 1] = 1;
        continue;
      }
      observations.set(chunk.observations.subarray(i * obsDim, (i + 1) * obsDim), size * obsDim);
      // A terminal last row without next_observations has no next row: its own observation stands in (never bootstrapped from).
      const next = i * obsDim < chunk.next.length ? chunk.next.subarray(i * obsDim, (i + 1) * obsDim) : chunk.observations.subarray(i * obsDim, (i + 1) * obsDim);
      nextObservations.set(next, size * obsDim);
      actions.set(chunk.actions.subarray(i * actionDim, (i + 1) * actionDim), size * actionDim);
      rewards[size] = chunk.rewards[i]!;
      terminals[size] = chunk.terminals[i]!;
      episodeEnds[size] = end ? 1 : 0;
      size++;
    }
  });
  if (size === 0) throw new NpzError(`${header.file}: no transition has a next observation (each row ends an episode by its time limit); add next_observations`);
  return {
    ...header, size,
    observations: observations.subarray(0, size * obsDim),
    nextObservations: nextObservations.subarray(0, size * obsDim),
    actions: actions.subarray(0, size * actionDim),
    rewards: rewards.subarray(0, size),
    terminals: terminals.subarray(0, size),
    episodeEnds: episodeEnds.subarray(0, size),
  };
}

/** Transitions to write, row-major: what `rlx record` collects. */
export interface TransitionsToWrite {
  readonly rows: number;
  readonly obsShape: readonly number[];
  readonly actionShape: readonly number[];
  readonly observations: Float32Array;
  readonly actions: Float32Array;
  readonly rewards: Float32Array;
  readonly terminals: Uint8Array;
  readonly timeouts: Uint8Array;
  readonly nextObservations: Float32Array;
}

/** The chunks of the .npz holding `t` with D4RL's keys (next_observations and timeouts included), for writeFileAtomic. */
export function transitionsNpz(t: TransitionsToWrite): Uint8Array[] {
  const n = t.rows;
  return npzChunks([
    { key: 'observations', shape: [n, ...t.obsShape], data: t.observations.subarray(0, n * t.obsShape.reduce((a, b) => a * b, 1)) },
    { key: 'actions', shape: [n, ...t.actionShape], data: t.actions.subarray(0, n * t.actionShape.reduce((a, b) => a * b, 1)) },
    { key: 'rewards', shape: [n], data: t.rewards.subarray(0, n) },
    { key: 'terminals', shape: [n], data: t.terminals.subarray(0, n) },
    { key: 'timeouts', shape: [n], data: t.timeouts.subarray(0, n) },
    { key: 'next_observations', shape: [n, ...t.obsShape], data: t.nextObservations.subarray(0, n * t.obsShape.reduce((a, b) => a * b, 1)) },
  ]);
}
