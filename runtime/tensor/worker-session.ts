// A Session that runs on its own worker thread, so that two models (the actor's and the
// critic's gradients, say) compute at once on two cores. onnxruntime-node runs a model
// synchronously on the calling thread, so two sessions in one thread never overlap.
//
//   remote.start(feeds);             // copies the feeds into shared memory and returns
//   const mine = await local.run(feeds);
//   const theirs = await remote.finish();
//
// A run belongs to whichever side claims it first: the worker as it begins, or the caller
// through takeBack() (the worker has not begun: asleep, or its core taken by other work).
// finishWithin() drops a run the worker is late with; the caller then computes it itself.
//
// Requests and answers go through shared memory (worker-protocol.ts), spinning briefly
// before sleeping, because a sleeping thread takes ~25 us to wake on our machines, as long
// as a small minibatch's whole gradient run. Outputs must have static shapes; inputs may
// have symbolic dims, up to the sizes given in `dimLimits`.
import * as fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { BuiltModel, ModelIO } from './onnx.js';
import type { WeightStore } from './weights.js';
import { checkFeed, resolveFeed, type ExecutionProvider, type Feed } from './session.js';
import { ARRAY_TYPES, type HostArray, formatShape, isStatic, numel } from './types.js';
import { CONTROL, ERROR_BYTES, MAX_RANK, claimRun, sharedArray, spinUntilAtLeast, type SharedSlot, type WorkerHello, type WorkerSetup } from './worker-protocol.js';

export interface WorkerSessionOptions {
  readonly providers?: readonly ExecutionProvider[];
  /** Feeds each parameter input from this store at every run (copied at start()). */
  readonly weights?: WeightStore;
  /** The largest size of each symbolic dim, e.g. { B: 256 }: it sizes the shared input buffers. */
  readonly dimLimits?: Readonly<Record<string, number>>;
  /** Spin this long waiting for a request or an answer before sleeping (default 500 us). */
  readonly spinMicros?: number;
}

const CONTROL_SLOTS = 1024;

/** A worker booted ahead of need, onnxruntime loaded, waiting for its WorkerSetup message. */
interface Spare {
  readonly worker: Worker;
  failure: string | null;
}

let spare: Spare | null = null;

export class WorkerSession {
  private run = 0;
  private running = false;
  private dead: string | null = null;
  private readonly control: Int32Array;
  private readonly sharedInputs: HostArray[];
  private readonly sharedOutputs: Float32Array[];
  /** The size each symbolic dim has in the feeds being checked (reused across runs). */
  private readonly boundDims = new Map<string, number>();

  private constructor(
    private readonly worker: Worker,
    private readonly setup: WorkerSetup,
    readonly model: BuiltModel,
    private readonly weights: WeightStore | undefined,
    private readonly spinMicros: number,
  ) {
    this.control = new Int32Array(setup.control);
    this.sharedInputs = setup.inputs.map((s) => sharedArray(s.dtype, s.buffer));
    this.sharedOutputs = setup.outputs.map((s) => new Float32Array(s.buffer));
    worker.on('error', (err) => (this.dead = `the session's worker thread failed: ${err.message}`));
    worker.on('exit', (code) => (this.dead ??= `the session's worker thread exited (code ${code})`));
  }

  /**
   * Boots one worker thread in the background for the next create(), which then skips the
   * ~60 ms of Node's start and onnxruntime's loading. Call it as early as a worker may be
   * needed; an unused one waits idle and does not keep the process alive.
   */
  static warmUp(): void {
    if (spare) return;
    const worker = new Worker(workerFile(), { execArgv: [] });
    const booting: Spare = { worker, failure: null };
    worker.on('error', (err) => (booting.failure = err.message));
    worker.on('exit', (code) => (booting.failure ??= `the worker exited (code ${code})`));
    worker.unref();
    spare = booting;
  }

  /** Starts a worker (or takes the warmed-up one) and compiles `model` there; resolves once it is ready to run. */
  static async create(model: BuiltModel, options: WorkerSessionOptions = {}): Promise<WorkerSession> {
    for (const io of model.outputs) {
      if (io.dtype !== 'float32' || !isStatic(io.shape)) {
        throw new Error(`WorkerSession: output '${io.name}' must be float32 with a static shape, got ${io.dtype} ${formatShape(io.shape)}`);
      }
    }
    if (options.weights) {
      for (const io of model.inputs) {
        if (io.isParam && !options.weights.has(io.name)) throw new Error(`WorkerSession: graph parameter '${io.name}' has no value in the WeightStore`);
      }
    }
    if (model.externalData) throw new Error('WorkerSession: a model with external data (over 2 GiB of initializers) runs on the main thread only (Session.fromModel)');
    if (model.inputs.length * MAX_RANK + CONTROL.dims > CONTROL_SLOTS) throw new Error(`WorkerSession: too many inputs (${model.inputs.length})`);
    const spinMicros = options.spinMicros ?? 500;
    const setup: WorkerSetup = {
      model: model.bytes,
      providers: options.providers ?? ['cpu'],
      graphOptimizationLevel: 'all',
      control: new SharedArrayBuffer(CONTROL_SLOTS * 4),
      error: new SharedArrayBuffer(ERROR_BYTES),
      inputs: model.inputs.map((io) => slot(io, inputCapacity(io, options.dimLimits ?? {}))),
      outputs: model.outputs.map((io) => slot(io, numel(io.shape as number[]))),
      spinMicros,
    };
    // No inherited node flags: the worker is a plain module, and flags such as --input-type
    // (from `node --input-type=module -e ...`) make a worker with a file fail to start.
    const worker = takeSpare(setup) ?? new Worker(workerFile(), { workerData: setup, execArgv: [] });
    const hello = await new Promise<WorkerHello>((resolve) => {
      worker.once('message', resolve);
      worker.once('error', (err) => resolve({ ready: false, error: err.message }));
      worker.once('exit', (code) => resolve({ ready: false, error: `the worker exited (code ${code}) before it was ready` }));
    });
    worker.removeAllListeners();
    if (!hello.ready) {
      await worker.terminate();
      throw new Error(`WorkerSession: could not start a session on a worker thread: ${hello.error}`);
    }
    // An idle session must not keep the process alive.
    worker.unref();
    return new WorkerSession(worker, setup, model, options.weights, spinMicros);
  }

  /** Hands the feeds (copied) and the current parameters to the worker, which starts at once. */
  start(feeds: Readonly<Record<string, Feed>>): void {
    if (this.dead) throw new Error(`WorkerSession: ${this.dead}`);
    if (this.running) throw new Error('WorkerSession: start() called twice without finish()');
    const bound = this.boundDims;
    bound.clear();
    this.setup.inputs.forEach((s, i) => {
      const feed = feeds[s.name];
      const param = feed === undefined ? this.weights?.find(s.name) : undefined;
      if (feed === undefined && !param) throw new Error(`WorkerSession: missing input '${s.name}' (${s.dtype} ${formatShape(s.shape)})`);
      // A parameter's own array and shape: no object made per input and run.
      let data: HostArray;
      let dims: readonly number[];
      if (param) {
        data = param.data;
        dims = param.shape;
      } else {
        const resolved = resolveFeed(s, feed!);
        data = resolved.data;
        dims = resolved.dims;
      }
      checkFeed(s, data, dims, bound);
      if (data.length > s.capacity) {
        throw new Error(`WorkerSession: input '${s.name}' has ${data.length} elements, more than the ${s.capacity} its dimLimits allow`);
      }
      (this.sharedInputs[i] as Float32Array).set(data as Float32Array);
      for (let k = 0; k < dims.length; k++) this.control[CONTROL.dims + i * MAX_RANK + k] = dims[k]!;
    });
    this.running = true;
    Atomics.store(this.control, CONTROL.request, ++this.run);
    // A spinning worker sees the store; a notify is a system call, for a sleeping one only.
    if (Atomics.load(this.control, CONTROL.sleeping) === 1) Atomics.notify(this.control, CONTROL.request);
  }

  /**
   * Claims the run start() began back for the calling thread if the worker has not begun it
   * (it is asleep, or another thread holds its core): true means the worker skips the run
   * and the caller computes it; false, that the worker has begun it and finish() answers.
   */
  takeBack(): boolean {
    if (!this.running) throw new Error('WorkerSession: takeBack() without start()');
    if (!claimRun(this.control, this.run)) return false;
    this.running = false;
    return true;
  }

  /**
   * Waits for the run start() began and returns its outputs: views of shared buffers, valid
   * until the next start() (copy what you keep).
   */
  async finish(): Promise<Record<string, Float32Array>> {
    return (await this.finishWithin(Infinity))!;
  }

  /**
   * finish(), but gives up on a worker that has not answered within `micros`: its thread has
   * stalled (descheduled by the system, or collecting garbage). The run is then dropped, null
   * returned, and the caller computes the run itself; the worker's late answer is ignored.
   */
  async finishWithin(micros: number): Promise<Record<string, Float32Array> | null> {
    if (!this.running) throw new Error('WorkerSession: finish() without start()');
    const run = this.run;
    const patient = micros === Infinity;
    if (!spinUntilAtLeast(this.control, CONTROL.done, run, patient ? this.spinMicros : Math.min(micros, this.spinMicros))) {
      if (!patient) {
        this.running = false;
        return null;
      }
      await this.sleepUntilDone(run);
    }
    this.running = false;
    if (Atomics.load(this.control, CONTROL.failed) === 1) {
      const length = Atomics.load(this.control, CONTROL.errorLength);
      const message = new TextDecoder().decode(new Uint8Array(this.setup.error).slice(0, length));
      throw new Error(`WorkerSession: onnxruntime failed on the worker thread: ${message}`);
    }
    const out: Record<string, Float32Array> = {};
    this.setup.outputs.forEach((s, i) => (out[s.name] = this.sharedOutputs[i]!));
    return out;
  }

  /** How long the worker's latest run took, in microseconds (0 before its first). */
  get lastComputeMicros(): number {
    return Atomics.load(this.control, CONTROL.computeMicros);
  }

  /**
   * Wakes a sleeping worker without asking for a run, so that it spins, ready, for the next
   * spinMicros: call it that long before a start() that follows a pause (a rollout, say).
   */
  wake(): void {
    if (!this.dead && Atomics.load(this.control, CONTROL.sleeping) === 1) Atomics.notify(this.control, CONTROL.request);
  }

  /**
   * Asks the worker to release its session and exit, and waits for it. Terminating a worker
   * while onnxruntime is inside a call aborts the whole process, so terminate() is only the
   * fallback for a worker that does not exit within a few seconds.
   */
  async release(): Promise<void> {
    if (this.dead) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.ref();
    Atomics.store(this.control, CONTROL.stop, 1);
    Atomics.store(this.control, CONTROL.request, ++this.run);
    Atomics.notify(this.control, CONTROL.request);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 5000)));
    if ((await Promise.race([exited, late])) === 'late') await this.worker.terminate();
    clearTimeout(timer);
    this.dead = 'the session was released';
  }

  /** Sleeps (without blocking the event loop) until the worker answers run `run`, or dies. */
  private async sleepUntilDone(run: number): Promise<void> {
    // A pending Atomics.waitAsync does not keep Node's event loop alive; the worker does.
    this.worker.ref();
    try {
      for (let done = Atomics.load(this.control, CONTROL.done); done < run; done = Atomics.load(this.control, CONTROL.done)) {
        if (this.dead) throw new Error(`WorkerSession: ${this.dead}`);
        const wait = Atomics.waitAsync(this.control, CONTROL.done, done, 100);
        if (wait.async) await wait.value;
      }
    } finally {
      this.worker.unref();
    }
  }
}

/** The warmed-up worker, now asked to compile `setup`; null when there is none (or it failed). */
function takeSpare(setup: WorkerSetup): Worker | null {
  const taken = spare;
  spare = null;
  if (!taken || taken.failure) return null;
  taken.worker.removeAllListeners();
  taken.worker.ref();
  taken.worker.postMessage(setup);
  return taken.worker;
}

function slot(io: ModelIO, capacity: number): SharedSlot {
  return { name: io.name, dtype: io.dtype, shape: io.shape, capacity, buffer: new SharedArrayBuffer(Math.max(1, capacity) * ARRAY_TYPES[io.dtype].BYTES_PER_ELEMENT) };
}

function inputCapacity(io: ModelIO, limits: Readonly<Record<string, number>>): number {
  let size = 1;
  for (const d of io.shape) {
    if (typeof d === 'number') size *= d;
    else if (limits[d] !== undefined) size *= limits[d]!;
    else throw new Error(`WorkerSession: input '${io.name}' ${formatShape(io.shape)} has dim '${d}' with no limit; pass dimLimits: { ${d}: <largest size> }`);
  }
  return size;
}

/**
 * The worker's script: next to this module when running from the compiled tree
 * (session-worker.js), or next to the bundle (session-worker.mjs, see tools/bundle.ts).
 */
function workerFile(): URL {
  for (const name of ['./session-worker.js', './session-worker.mjs']) {
    const url = new URL(name, import.meta.url);
    if (fs.existsSync(url)) return url;
  }
  throw new Error(`WorkerSession: the worker script session-worker.js is missing next to ${new URL('.', import.meta.url).pathname}`);
}
