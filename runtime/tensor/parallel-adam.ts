// Adam's SIMD kernel (wasm-optim.ts) on several threads: the calling thread and worker threads
// share one WebAssembly memory laid out as WasmAdam's,
//
//   P [n] | G [n] | M [n] | V [n] | R [one f32x4 per chunk of G]
//
// cut into slices that start on the gradient-norm kernel's chunk boundaries. Each step the
// calling thread copies the parameters and gradients in (other code owns those arrays, and
// onnxruntime's gradient buffers are not shared memory, so only this thread can read them),
// then every thread takes slices from a shared counter, first for the squares of the
// gradients (each chunk's f32x4 partial into R), then, once the calling thread has added R up
// in chunk order, for the update; the calling thread copies the parameters back out.
//
// The results have the single-threaded kernel's bits whatever the thread count: the update
// of an element does not depend on any other element, and the norm is the same chunks added
// in the same order (sumsqChunks + sumChunks against sumsq, wasm-optim.ts).
//
// Threads meet through Atomics on a small shared control array, not messages: step() stays
// synchronous (the calling thread blocks in Atomics.wait, as a worker does between steps),
// and a wake costs microseconds where a message round trip costs a turn of each event loop.
// The calling thread takes slices too, so a step never waits for a worker that is still
// booting (~30 ms) or has lost its core: it does whatever slices are left. Workers do not
// keep the process alive (unref) and end on release(), or when the optimiser is collected.
import * as fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { MAX_WASM_PAGES, BLOCK, CHUNK_BYTES, sharedKernelModule, type AdamCoefficients, type AdamKernel } from './wasm-optim.js';
import { wasm } from '../wasm/assembler.js';

/** Slots of the control array (Int32). */
export const CONTROL = {
  /** Bumped to wake the workers for a new phase. */
  generation: 0,
  /** The next slice to take; at or past the slice count when none is left. */
  next: 1,
  /** Slices finished in this phase. */
  done: 2,
  phase: 3,
  /** 1 once release() asks the workers to end. */
  stop: 4,
  /** 1 once a worker failed (its message in the log); the step then throws. */
  failed: 5,
  slots: 8,
} as const;

export const PHASE = { squares: 1, update: 2 } as const;

/** What a worker needs to run slices; cloned into each worker. */
export interface SliceSetup {
  readonly module: object;
  readonly memory: object;
  /** SharedArrayBuffer of CONTROL.slots Int32 */
  readonly control: SharedArrayBuffer;
  /** SharedArrayBuffer of 8 float64: the update's scalars (b1, 1 - b1, b2, 1 - b2, stepSize, invSqrtBc2, eps, gscale) */
  readonly scalars: SharedArrayBuffer;
  /** Byte offsets of the regions P, G, M, V, R in the memory. */
  readonly regions: readonly [number, number, number, number, number];
  /** Slice k is bytes [bounds[k], bounds[k + 1]) of each region; the bounds are multiples of CHUNK_BYTES but the last. */
  readonly bounds: readonly number[];
}

/** Takes slices of the current phase until none is left; returns how many it ran. Every thread runs this. */
export function runSlices(kernel: AdamKernel, setup: SliceSetup, control: Int32Array, scalars: Float64Array): number {
  const { bounds, regions } = setup;
  const slices = bounds.length - 1;
  const [p, g, m, v, r] = regions;
  let ran = 0;
  for (;;) {
    const k = Atomics.add(control, CONTROL.next, 1);
    if (k >= slices) return ran;
    // Read after the claim: the phase and scalars were written before the counter was reset.
    const phase = Atomics.load(control, CONTROL.phase);
    const start = bounds[k]!;
    const bytes = bounds[k + 1]! - start;
    if (phase === PHASE.squares) kernel.sumsqChunks(g + start, bytes, r + (start / CHUNK_BYTES) * 16);
    else {
      const s = scalars;
      kernel.adam(p + start, g + start, m + start, v + start, bytes, s[0]!, s[1]!, s[2]!, s[3]!, s[4]!, s[5]!, s[6]!, s[7]!);
    }
    ran++;
    if (Atomics.add(control, CONTROL.done, 1) + 1 === slices) Atomics.notify(control, CONTROL.done);
  }
}

/** Pages the shared memory needs for `n` (padded) parameters: four regions and the chunk partials. */
function pagesFor(n: number): number {
  const chunks = Math.ceil((4 * n) / CHUNK_BYTES);
  return Math.max(1, Math.ceil((16 * n + 16 * chunks) / 65536));
}

/** Slices per thread: more than one, so a thread that loses its core for a while holds up little. */
const SLICES_PER_THREAD = 4;

/** Ends a collected optimiser's workers (it never called release()). */
const orphans = new FinalizationRegistry<() => void>((end) => end());

/** Adam's moments in shared WebAssembly memory, updated by `threads` threads (the calling one and threads - 1 workers). */
export class ParallelAdam {
  readonly m: Float32Array[];
  readonly v: Float32Array[];
  private readonly p: Float32Array[];
  private readonly control: Int32Array;
  private readonly scalars: Float64Array;
  private workers: Worker[];
  private readonly token = {};

  private constructor(
    private readonly kernel: AdamKernel,
    private readonly setup: SliceSetup,
    private readonly memory: Float32Array,
    private readonly offsets: readonly number[],
    lengths: readonly number[],
    workers: number,
  ) {
    const views = (region: number) => lengths.map((len, k) => memory.subarray(setup.regions[region]! / 4 + offsets[k]!, setup.regions[region]! / 4 + offsets[k]! + len));
    this.p = views(0);
    this.m = views(2);
    this.v = views(3);
    this.control = new Int32Array(setup.control);
    this.scalars = new Float64Array(setup.scalars);
    // Nothing is left to take until the first phase.
    this.control[CONTROL.next] = setup.bounds.length;
    this.workers = Array.from({ length: workers }, () => startWorker(setup));
    const spawned = this.workers;
    orphans.register(this, () => endWorkers(setup, spawned), this.token);
  }

  /** null where WebAssembly SIMD, shared memory or worker threads are missing, or the weights do not fit 4 GiB. */
  static create(lengths: readonly number[], threads: number): ParallelAdam | null {
    const module = sharedKernelModule();
    if (module === null || wasm === undefined) return null;
    const offsets: number[] = [];
    let total = 0;
    for (const len of lengths) {
      offsets.push(total);
      total += len;
    }
    const n = Math.ceil(total / BLOCK) * BLOCK;
    const pages = pagesFor(n);
    if (pages > MAX_WASM_PAGES) return null;
    let memory: { buffer: ArrayBuffer };
    try {
      memory = new wasm.Memory({ initial: pages, maximum: pages, shared: true });
    } catch {
      return null;
    }
    const bytes = 4 * n;
    const regions = [0, bytes, 2 * bytes, 3 * bytes, 4 * bytes] as const;
    const setup: SliceSetup = {
      module,
      memory,
      control: new SharedArrayBuffer(CONTROL.slots * 4),
      scalars: new SharedArrayBuffer(8 * 8),
      regions,
      bounds: sliceBounds(bytes, Math.max(1, threads) * SLICES_PER_THREAD),
    };
    const kernel = new wasm.Instance(module, { env: { memory } }).exports as unknown as AdamKernel;
    return new ParallelAdam(kernel, setup, new Float32Array(memory.buffer), offsets, lengths, Math.max(0, threads - 1));
  }

  /** Threads that run slices: the calling one and the workers. */
  get threads(): number {
    return this.workers.length + 1;
  }

  /** As WasmAdam.load: copies the parameters and gradients in and returns the gradients' global L2 norm. */
  load(params: readonly Float32Array[], grads: readonly Float32Array[]): number {
    const { memory: mem, offsets } = this;
    const [p, g] = this.setup.regions;
    for (let i = 0; i < offsets.length; i++) {
      mem.set(params[i]!, p / 4 + offsets[i]!);
      mem.set(grads[i]!, g / 4 + offsets[i]!);
    }
    this.runPhase(PHASE.squares);
    const chunks = Math.ceil(this.setup.regions[1] / CHUNK_BYTES);
    return Math.sqrt(this.kernel.sumChunks(this.setup.regions[4], chunks));
  }

  /** As WasmAdam.update: one update with the loaded gradients times `gradScale`, copied back into `params`. */
  update(params: readonly Float32Array[], k: AdamCoefficients, gradScale: number): void {
    const { beta1: b1, beta2: b2, eps, stepSize, invSqrtBc2 } = k;
    this.scalars.set([b1, 1 - b1, b2, 1 - b2, stepSize, invSqrtBc2, eps, gradScale].map(Math.fround));
    this.runPhase(PHASE.update);
    for (let i = 0; i < params.length; i++) params[i]!.set(this.p[i]!);
  }

  /** Ends the workers (the optimiser then runs on the calling thread alone). */
  release(): void {
    orphans.unregister(this.token);
    endWorkers(this.setup, this.workers);
    this.workers = [];
  }

  private runPhase(phase: number): void {
    const c = this.control;
    const slices = this.setup.bounds.length - 1;
    c[CONTROL.phase] = phase;
    Atomics.store(c, CONTROL.done, 0);
    Atomics.store(c, CONTROL.next, 0);
    if (this.workers.length > 0) {
      Atomics.add(c, CONTROL.generation, 1);
      Atomics.notify(c, CONTROL.generation);
    }
    runSlices(this.kernel, this.setup, c, this.scalars);
    for (let done = Atomics.load(c, CONTROL.done); done < slices; done = Atomics.load(c, CONTROL.done)) {
      if (Atomics.load(c, CONTROL.failed) !== 0) throw new Error('Adam: an optimiser worker thread failed');
      Atomics.wait(c, CONTROL.done, done, 1000);
    }
  }
}

/** Bounds of about `count` slices of `bytes`, each a whole number of chunks but the last. */
export function sliceBounds(bytes: number, count: number): number[] {
  const chunks = Math.ceil(bytes / CHUNK_BYTES);
  const per = Math.max(1, Math.ceil(chunks / count));
  const bounds = [0];
  for (let c = per; c < chunks; c += per) bounds.push(c * CHUNK_BYTES);
  bounds.push(bytes);
  return bounds;
}

function startWorker(setup: SliceSetup): Worker {
  // No inherited node flags (see worker-session.ts): the worker is a plain module.
  const worker = new Worker(workerFile(), { workerData: setup, execArgv: [] });
  worker.on('error', () => Atomics.store(new Int32Array(setup.control), CONTROL.failed, 1));
  worker.unref();
  return worker;
}

function endWorkers(setup: SliceSetup, workers: readonly Worker[]): void {
  if (workers.length === 0) return;
  const control = new Int32Array(setup.control);
  Atomics.store(control, CONTROL.stop, 1);
  Atomics.add(control, CONTROL.generation, 1);
  Atomics.notify(control, CONTROL.generation);
  for (const w of workers) void w.terminate();
}

/** The worker's script: next to this module (optim-worker.js), or next to the bundle (optim-worker.mjs, tools/bundle.ts). */
function workerFile(): URL {
  for (const name of ['./optim-worker.js', './optim-worker.mjs']) {
    const url = new URL(name, import.meta.url);
    if (fs.existsSync(url)) return url;
  }
  throw new Error(`Adam: the worker script optim-worker.js is missing next to ${new URL('.', import.meta.url).pathname}`);
}
