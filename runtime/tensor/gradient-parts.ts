// A loss that is a sum of parts over disjoint parameter sets, e.g. PPO's policy term (actor
// parameters) and value term (critic parameters): the gradient of each part is its own
// model, and the parts run at the same time, the first on the calling thread and the others
// on worker threads (worker-session.ts).
//
// Why: the gradient run of a small MLP is compute-bound on one core, and onnxruntime's own
// intra-op threads barely help at these sizes (each op is too small to split well), while
// two independent models on two threads take the time of the slower one. Measured in
// bench/ppo.ts: the CartPole actor-critic gradient at minibatch 128, one model vs two parts.
//
// The split changes no result: each part computes exactly what its model computes alone, and
// the parts run the same models whether on workers or in turn on one thread (`threads: false`,
// and always on a single-core machine), so a seed gives the same numbers either way.
//
// A worker's part is also compiled on the calling thread (its standby), which computes the
// part itself when the worker has not begun it by the time the calling thread's own parts are
// done, or has stalled in it. On a machine whose cores are shared (a VM, other processes) a
// thread loses its core for a millisecond or more now and then; without a standby the other
// thread would wait all that time.
import * as os from 'node:os';
import { grad } from './grad.js';
import type { Precision } from './mixed-precision.js';
import type { Graph } from './graph.js';
import { EXTERNAL_DATA_ABOVE, buildModel } from './onnx.js';
import { WeightStore } from './weights.js';
import { type ExecutionProvider, type Feed, Session } from './session.js';
import type { Tensor } from './tensor.js';
import { WorkerSession } from './worker-session.js';
import type { GradientHandover } from './gradient-handover.js';

export interface GradientPart {
  /** The part's scalar loss; the total loss is the sum of the parts. */
  readonly loss: Tensor;
  /** The weights whose gradients this part computes: each of the store's in exactly one part, or frozen. */
  readonly weights: readonly string[];
  /** Extra float32 outputs with static shapes (metrics), named uniquely across parts. */
  readonly extras?: Readonly<Record<string, Tensor>>;
}

export interface GradientPartsOptions {
  /** The weights, fed at each run; optimisers update them in place. */
  readonly weights: WeightStore;
  readonly providers?: readonly ExecutionProvider[];
  /**
   * Run the parts after the first on worker threads. Default: when there is more than one
   * part, only the cpu provider, and at least MIN_CORES_FOR_THREADS cores.
   */
  readonly threads?: boolean;
  /** The largest size of each symbolic input dim (needed with threads), e.g. { B: 256 }. */
  readonly dimLimits?: Readonly<Record<string, number>>;
  /** Threads onnxruntime splits each op of the calling thread's sessions across (default 1). */
  readonly intraOpThreads?: number;
  /**
   * Weights of the store that no part trains (REINFORCE leaves an actor-critic's critic alone):
   * nothing is computed for them and their gradient is zero.
   */
  readonly frozen?: readonly string[];
  /**
   * Weights the graph reads besides the store's, outside the store's order and never
   * differentiated (a pretrained model's base weights under LoRA): no gradient, not even a zero
   * one, is made for them. Fed at each run on the CPU; baked into the models on a GPU, so they
   * must not change after create().
   */
  readonly fed?: WeightStore;
  /**
   * 'fp16': the models compute their products in float16 (mixed-precision.ts), and the backward
   * pass starts from the graph input LOSS_SCALE (a float32 scalar fed at each run, LossScaler's)
   * instead of 1, so the gradients come out multiplied by it. Default 'fp32'.
   */
  readonly precision?: Precision;
  /**
   * Write a single part's gradients as this many outputs ("pieces", each whole tensors end to
   * end, of about equal size) and lend them to the optimiser with each result (PartsResult's
   * `handover`, gradient-handover.ts): one per thread of Adam's, whose workers then copy the
   * gradients in. Default 1: one output, nothing lent. Parts on worker threads ignore it. On
   * webgpu there are at least enough that each holds about WEBGPU_MAX_PIECE_BYTES or less.
   */
  readonly gradientPieces?: number;
}

/** The input a float16 step's loss scale is fed to: the gradients are d(scale * loss). */
export const LOSS_SCALE = 'loss_scale';

export interface PartsResult {
  /** d(total loss)/d(param) for every parameter of the store, in the store's order; views that the next run overwrites. */
  readonly grads: Float32Array[];
  /** The parts' extras by name; views that the next run overwrites. */
  readonly extras: Record<string, Float32Array>;
  /** With gradientPieces above 1: the buffers `grads` are views of, lent to the optimiser until the next run. */
  handover?: GradientHandover;
}

/** Gradients written end to end into one output of a part's model. */
interface GradientPiece {
  readonly output: string;
  /** Indices into the part's slots, in order. */
  readonly slots: readonly number[];
}

interface Compiled {
  readonly part: GradientPart;
  /** Index in the store's order of each of the part's parameters, and its size. */
  readonly slots: readonly { readonly index: number; readonly size: number }[];
  readonly local: Session | null;
  /** A worker-thread session, set once `starting` has resolved. */
  remote: WorkerSession | null;
  starting: Promise<WorkerSession> | null;
  /** The worker's model on the calling thread, for the runs the worker does not get to in time. */
  readonly standby: Session | null;
  readonly extraNames: readonly string[];
  /** The outputs the part's gradients are written to (one unless gradientPieces). */
  readonly pieces: readonly GradientPiece[];
  /** Each parameter's view of a gradients buffer, per buffer (the worker's, the standby's, each piece's). */
  readonly views: WeakMap<Float32Array, Float32Array[]>;
}

/** The views of `flat` (the output of `piece`) for the piece's parameters, in the piece's order. */
function gradientViews(c: Compiled, piece: GradientPiece, flat: Float32Array): Float32Array[] {
  let views = c.views.get(flat);
  if (!views) {
    let offset = 0;
    views = piece.slots.map((slot) => flat.subarray(offset, (offset += c.slots[slot]!.size)));
    c.views.set(flat, views);
  }
  return views;
}

/** Parameters (by size, in order) cut into at most `count` runs of about equal size, each at least one parameter. */
export function pieceSlots(sizes: readonly number[], count: number): number[][] {
  const total = sizes.reduce((a, b) => a + b, 0);
  const groups: number[][] = [[]];
  let sum = 0;
  sizes.forEach((size, i) => {
    const group = groups.at(-1)!;
    // A new group once this one holds its share, while groups are left to make.
    if (group.length > 0 && groups.length < count && sum >= (total * groups.length) / count) groups.push([i]);
    else group.push(i);
    sum += size;
  });
  return groups;
}

/**
 * The most bytes of gradients one output holds on webgpu. WebGPU guarantees storage buffer
 * bindings of 128 MiB (maxStorageBufferBindingSize); past an adapter's limit onnxruntime binds a
 * buffer in segments, and the Concat that writes all gradients into one output then asks for more
 * storage buffers than the adapter has: a 12 x 768 transformer's step (340 MB of gradients) failed
 * so on lavapipe ("Too many storage buffers in shader. Current: 18, Max is 16"), in 2 pieces too,
 * and ran in 4. A GPU with larger limits (the H200's) runs one output; smaller pieces cost nothing.
 */
export const WEBGPU_MAX_PIECE_BYTES = 64 * 2 ** 20;

/** The output of piece k: GRADS for the first (and only, without pieces). */
const pieceOutput = (k: number) => (k === 0 ? GRADS : `${GRADS}_${k}`);

/** How the worker threads' parts were computed, for the bench. */
export interface ThreadStats {
  /** Part runs asked of worker threads. */
  asked: number;
  /** ...of which the calling thread took back before the worker began them. */
  takenBack: number;
  /** ...of which the calling thread computed after giving up on a stalled worker. */
  rescued: number;
}

/**
 * How long to wait for a worker that has begun a run, relative to how long its runs take:
 * longer means it has stalled, and the calling thread computes the run itself.
 */
const PATIENCE_FACTOR = 2;
const PATIENCE_SLACK_MICROS = 50;

const GRADS = 'grads';

/**
 * Threads by default from this many cores. Measured on our 2-core machines (fresh processes,
 * medians of 4): whole runs to the budget are 14% (CleanRL settings, 500k steps) and 21%
 * (rl-zoo settings, 100k steps) faster on two threads; only runs of a second or two are not,
 * as the worker's start (~60 ms: Node's own start ~40 ms, loading onnxruntime ~18 ms,
 * compiling ~7 ms; warmUp() overlaps it with earlier work) and the compiler's threads
 * competing for the two cores while the code warms up cost what the first seconds gain.
 */
export const MIN_CORES_FOR_THREADS = 2;

export class GradientParts {
  /** Workers still starting; run() waits for them the first time it is called. */
  private starting: Promise<void> | null;
  readonly threadStats: ThreadStats = { asked: 0, takenBack: 0, rescued: 0 };
  /** What run() returns, refilled by each run (the arrays are the sessions' fixed buffers). */
  private readonly result: PartsResult;

  private constructor(
    private readonly compiled: readonly Compiled[],
    /** Per weight of the store: the zero gradient of a frozen one, null for a trained one. */
    frozenZeros: readonly (Float32Array | null)[],
    /** Whether the parts run on worker threads (for the bench and the tests). */
    readonly threaded: boolean,
  ) {
    const grads = new Array<Float32Array>(frozenZeros.length);
    frozenZeros.forEach((zeros, i) => zeros && (grads[i] = zeros));
    this.result = { grads, extras: {} };
    const pending = compiled.filter((c) => c.starting);
    this.starting =
      pending.length === 0
        ? null
        : Promise.all(pending.map(async (c) => (c.remote = await c.starting!))).then(() => {
            this.starting = null;
          });
    // A start that fails is reported by run() (or release()), not as an unhandled rejection.
    this.starting?.catch(() => {});
  }

  /**
   * Boots a worker thread for the parts ahead of create() when this machine would run them
   * on threads, so that its start overlaps whatever the caller does first.
   */
  static warmUp(providers: readonly ExecutionProvider[] = ['cpu']): void {
    if (canThread(providers)) WorkerSession.warmUp();
  }

  static async create(graph: Graph, parts: readonly GradientPart[], options: GradientPartsOptions): Promise<GradientParts> {
    const { weights: store } = options;
    const providers = options.providers ?? ['cpu'];
    // `fed` weights are fed on the CPU, where a feed is the JS array itself (no copy), and baked
    // into the models as initializers on a GPU, where a feed would be copied to the device at
    // every run (a pretrained model's whole base under LoRA, each step).
    const bakeFed = options.fed !== undefined && providers.some((p) => p !== 'cpu');
    const feeds = options.fed && !bakeFed ? WeightStore.union(options.fed, store) : store;
    if (parts.length === 0) throw new Error('GradientParts: no parts given');
    const order = store.names;
    const owner = new Map<string, number>();
    const extraNames = new Set<string>();
    parts.forEach((part, i) => {
      for (const name of part.weights) {
        if (!store.has(name)) throw new Error(`GradientParts: part ${i} differentiates '${name}', which the WeightStore does not hold`);
        if (graph.byName(name)?.op !== 'Param') throw new Error(`GradientParts: the graph declares no parameter '${name}'`);
        if (owner.has(name)) throw new Error(`GradientParts: parameter '${name}' is in parts ${owner.get(name)} and ${i}; the parts must be disjoint`);
        owner.set(name, i);
      }
      for (const name of Object.keys(part.extras ?? {})) {
        if (/^grads(_\d+)?$/.test(name) || extraNames.has(name)) throw new Error(`GradientParts: extra output name '${name}' is reserved or used twice`);
        extraNames.add(name);
      }
    });
    const frozen = new Set(options.frozen ?? []);
    for (const name of frozen) {
      if (!store.has(name)) throw new Error(`GradientParts: frozen weight '${name}' is not in the WeightStore`);
      if (owner.has(name)) throw new Error(`GradientParts: weight '${name}' is both frozen and in part ${owner.get(name)}`);
    }
    const uncovered = order.filter((name) => !owner.has(name) && !frozen.has(name));
    if (uncovered.length > 0) throw new Error(`GradientParts: parameter(s) ${uncovered.join(', ')} are in no part (list weights no part trains in 'frozen')`);
    const threaded = options.threads ?? (parts.length > 1 && canThread(providers));
    const precision = options.precision ?? 'fp32';
    const seed = precision === 'fp16' ? { seed: graph.memo(LOSS_SCALE, () => graph.input(LOSS_SCALE, 'float32', [])) } : {};
    const compiled = await Promise.all(
      parts.map(async (part, i): Promise<Compiled> => {
        const wrt = part.weights.map((name) => graph.byName(name)!);
        const slots = part.weights.map((name) => ({ index: order.indexOf(name), size: store.get(name).data.length }));
        const asked = !threaded && parts.length === 1 ? Math.max(1, Math.floor(options.gradientPieces ?? 1)) : 1;
        const bytes = 4 * slots.reduce((n, slot) => n + slot.size, 0);
        const count = providers.includes('webgpu') ? Math.max(asked, Math.ceil(bytes / WEBGPU_MAX_PIECE_BYTES)) : asked;
        const pieces: GradientPiece[] = pieceSlots(slots.map((slot) => slot.size), count).map((group, k) => ({ output: pieceOutput(k), slots: group }));
        const gradients = grad(part.loss, wrt, seed).map((t) => graph.reshape(t, [-1]));
        const outputs = Object.fromEntries(pieces.map((piece) => [piece.output, graph.concat(piece.slots.map((slot) => gradients[slot]!), 0)]));
        const model = buildModel(graph, { outputs: { ...outputs, ...part.extras }, forWebGpu: providers.includes('webgpu'), precision, externalDataAbove: EXTERNAL_DATA_ABOVE, ...(bakeFed ? { bake: options.fed, bakeFound: true } : {}) });
        const extraNames = Object.keys(part.extras ?? {});
        if (threaded && i > 0) {
          // Not awaited: a worker takes ~60 ms to start and compile, which the caller's first
          // rollout hides; run() waits for it if it is still starting.
          const starting = WorkerSession.create(model, { providers, weights: feeds, dimLimits: options.dimLimits });
          // A start that fails is reported by run() or release(), not as an unhandled rejection.
          starting.catch(() => {});
          try {
            const standby = await Session.fromModel(model, { providers, weights: feeds, intraOpNumThreads: options.intraOpThreads });
            return { part, slots, local: null, remote: null, starting, standby, extraNames, pieces, views: new WeakMap() };
          } catch (err) {
            // The model does not compile here, nor will it there: stop the worker.
            void starting.then((session) => session.release(), () => {});
            throw err;
          }
        }
        return { part, slots, local: await Session.fromModel(model, { providers, weights: feeds, intraOpNumThreads: options.intraOpThreads }), remote: null, starting: null, standby: null, extraNames, pieces, views: new WeakMap() };
      }),
    );
    const zeros = order.map((name) => (frozen.has(name) ? new Float32Array(store.get(name).data.length) : null));
    return new GradientParts(compiled, zeros, threaded);
  }

  /** Computes every part's gradients and extras for one set of feeds (e.g. a minibatch). */
  async run(feeds: Readonly<Record<string, Feed>>): Promise<PartsResult> {
    if (this.starting) await this.starting;
    // Workers first, so that they compute while this thread runs its parts.
    for (const c of this.compiled) c.remote?.start(feeds);
    const results: Record<string, Float32Array>[] = [];
    // Each run's arrays are consumed before the next (PartsResult says so): reusing them spares
    // the collector a gradient-sized array per run.
    for (const [i, c] of this.compiled.entries()) if (c.local) results[i] = await c.local.runReusingOutputs(feeds);
    for (const [i, c] of this.compiled.entries()) if (c.remote) results[i] = await this.finishRemote(c, feeds);

    const { grads, extras } = this.result;
    this.compiled.forEach((c, i) => {
      const out = results[i]!;
      for (const piece of c.pieces) {
        const views = gradientViews(c, piece, out[piece.output]!);
        piece.slots.forEach((slot, k) => (grads[c.slots[slot]!.index] = views[k]!));
      }
      for (const name of c.extraNames) extras[name] = out[name]!;
    });
    const only = this.compiled[0]!;
    if (only.pieces.length > 1) {
      const session = only.local!;
      const out = results[0]!;
      this.result.handover = {
        pieces: only.pieces.map((piece) => out[piece.output]!),
        // onnxruntime writes the next run's gradients into the pieces as they come back.
        giveBack: (pieces) => only.pieces.forEach((piece, k) => session.adoptOutput(piece.output, pieces[k]!)),
      };
    }
    return this.result;
  }

  /**
   * Wakes the workers if they sleep (they do after ~0.5 ms without a run), so that they are
   * ready when run() follows a pause: call it a few hundred microseconds before.
   */
  wake(): void {
    for (const c of this.compiled) c.remote?.wake();
  }

  /** A worker's part: its answer, or the standby's when the worker has not begun it or has stalled. */
  private async finishRemote(c: Compiled, feeds: Readonly<Record<string, Feed>>): Promise<Record<string, Float32Array>> {
    const remote = c.remote!;
    const stats = this.threadStats;
    stats.asked++;
    if (remote.takeBack()) {
      stats.takenBack++;
      return c.standby!.runReusingOutputs(feeds);
    }
    const patience = PATIENCE_FACTOR * remote.lastComputeMicros + PATIENCE_SLACK_MICROS;
    const answer = await remote.finishWithin(patience);
    if (answer) return answer;
    stats.rescued++;
    return c.standby!.runReusingOutputs(feeds);
  }

  async release(): Promise<void> {
    await Promise.all(
      this.compiled.map(async (c) => {
        await c.standby?.release();
        // A worker still starting is released once it has started (one that failed has exited).
        const session = c.local ?? (await c.starting?.catch(() => null));
        await session?.release();
      }),
    );
  }
}

/** Whether parts run on threads by default: enough cores, and onnxruntime on the CPU. */
function canThread(providers: readonly ExecutionProvider[]): boolean {
  return os.availableParallelism() >= MIN_CORES_FOR_THREADS && providers.every((p) => p === 'cpu');
}
