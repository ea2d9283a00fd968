// Adam's SIMD kernel (wasm-optim.ts) on several threads: the calling thread and worker threads
// share one WebAssembly memory laid out as WasmAdam's,
//
//   P [n] | G [n] | M [n] | V [n] | R [one f32x4 per chunk of G]
//
// cut into slices that start on the gradient-norm kernel's chunk boundaries. Only the calling
// thread can read and write the caller's parameter and gradient arrays: other code owns them,
// and they cannot be shared memory (onnxruntime refuses a SharedArrayBuffer as
// a feed, "Invalid argument"). So a step is the calling thread's copies, with the kernel's
// work hidden behind them: it copies the gradients in slice by slice while the other threads
// square each slice that has landed (each chunk's f32x4 partial into R); adds R up in chunk
// order for the norm; lets the others update the slices; then copies each slice of the
// parameters out as it is done, updating slices itself while it waits.
//
// The parameters stay in the kernel's memory between steps: after a step, P holds exactly what
// was copied out, so the next step copies them in again only where something else wrote the
// caller's arrays since (a checkpoint loaded, a hard target copy: weight-writes.ts counts such
// writes) or the caller hands other arrays. That leaves two copies a step, gradients in and
// parameters out; bench/optim.ts prints one beside the step.
//
// A gradient step that writes its gradients as whole buffers hands them over instead
// (gradient-handover.ts): each piece is transferred to a worker, which copies it into G and sends
// it back, so the calling thread copies only its own piece, and then the parameters out.
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
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { locateInPieces, type GradientHandover } from './gradient-handover.js';
import { MAX_WASM_PAGES, CHUNK_BYTES, regionLayout, sharedKernelModule, type AdamCoefficients, type AdamKernel } from './wasm-optim.js';
import { wasm } from '../wasm/assembler.js';
import { writeCount } from './weight-writes.js';

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
  /** Slices whose inputs the calling thread has copied in so far in this phase. */
  ready: 6,
  /** Bumped per phase; slice k's flag (at slots + k) takes it once slice k is done. */
  serial: 7,
  /** The serial of a phase whose gradients come as pieces through the workers' ports (gatherPieces); 0 for none. */
  gather: 8,
  /** Workers that have copied their pieces in, in that phase. */
  gathered: 9,
  /** Slots before the per-slice flags. */
  slots: 10,
} as const;

/** What the calling thread sends a worker in a phase that gathers: its pieces, and where each of their gradients goes in G. */
export interface PiecesMessage {
  readonly pieces: readonly { readonly buffer: ArrayBuffer; /** [first float in the piece, floats, float offset in G] per gradient */ readonly copies: readonly number[] }[];
}

export const PHASE = { squares: 1, update: 2 } as const;

/** What a worker needs to run slices; cloned into each worker. */
export interface SliceSetup {
  readonly module: object;
  readonly memory: object;
  /** SharedArrayBuffer of CONTROL.slots + (slice count) Int32 */
  readonly control: SharedArrayBuffer;
  /** SharedArrayBuffer of 8 float64: the update's scalars (b1, 1 - b1, b2, 1 - b2, stepSize, invSqrtBc2, eps, gscale) */
  readonly scalars: SharedArrayBuffer;
  /** Byte offsets of the regions P, G, M, V, R in the memory. */
  readonly regions: readonly [number, number, number, number, number];
  /** Slice k is bytes [bounds[k], bounds[k + 1]) of each region; the bounds are multiples of CHUNK_BYTES but the last. */
  readonly bounds: readonly number[];
}

/**
 * Takes slices of the current phase until none is left; returns how many it ran. Every thread
 * runs this; a worker passes `claimed`, called after each claim (gatherPieces: a worker awake
 * before the phase opened claims a slice before it sees the phase's wake-up).
 */
export function runSlices(kernel: AdamKernel, setup: SliceSetup, control: Int32Array, scalars: Float64Array, claimed?: () => void): number {
  let ran = 0;
  for (let k = takeSlice(setup, control); k >= 0; k = takeSlice(setup, control)) {
    claimed?.();
    runSlice(kernel, setup, control, scalars, k);
    ran++;
  }
  return ran;
}

/**
 * A worker's part of a phase that gathers (once per such phase; `last` is the serial it last
 * gathered in, the one returned): takes its message from `port`, copies each piece's gradients
 * into G, sends the pieces back and counts itself in CONTROL.gathered. The calling thread posts
 * the message before it opens the phase, and lets no slice run until every worker has gathered.
 */
export function gatherPieces(setup: SliceSetup, control: Int32Array, port: MessagePort, last: number): number {
  const serial = Atomics.load(control, CONTROL.serial);
  if (Atomics.load(control, CONTROL.gather) !== serial || last === serial) return last;
  let received = receiveMessageOnPort(port);
  // Posted before the phase opened, so already here; wait a little rather than fail if not.
  for (let tries = 0; received === undefined && tries < 1000; tries++) {
    Atomics.wait(control, CONTROL.gathered, Atomics.load(control, CONTROL.gathered), 1);
    received = receiveMessageOnPort(port);
  }
  if (received === undefined) throw new Error('Adam worker: no gradient pieces arrived for a phase that gathers');
  const { pieces } = received.message as PiecesMessage;
  const memory = new Float32Array((setup.memory as { buffer: SharedArrayBuffer }).buffer);
  const g = setup.regions[1] / 4;
  for (const { buffer, copies } of pieces) {
    const source = new Float32Array(buffer);
    for (let j = 0; j < copies.length; j += 3) memory.set(source.subarray(copies[j]!, copies[j]! + copies[j + 1]!), g + copies[j + 2]!);
  }
  const buffers = pieces.map((p) => p.buffer);
  port.postMessage(buffers, buffers);
  // After the reply is posted: the calling thread takes it once every worker has counted itself.
  Atomics.add(control, CONTROL.gathered, 1);
  Atomics.notify(control, CONTROL.gathered);
  return serial;
}

/** The next slice of the current phase to run, or -1 when all are taken. */
function takeSlice(setup: SliceSetup, control: Int32Array): number {
  const k = Atomics.add(control, CONTROL.next, 1);
  return k < setup.bounds.length - 1 ? k : -1;
}

/** Runs slice k once its inputs are in, then marks it done. */
function runSlice(kernel: AdamKernel, setup: SliceSetup, control: Int32Array, scalars: Float64Array, k: number): void {
  const { bounds, regions } = setup;
  const [p, g, m, v, r] = regions;
  // Read after the claim: the phase, serial and scalars were written before the counter was reset.
  const phase = Atomics.load(control, CONTROL.phase);
  const serial = Atomics.load(control, CONTROL.serial);
  for (let ready = Atomics.load(control, CONTROL.ready); ready <= k; ready = Atomics.load(control, CONTROL.ready)) {
    Atomics.wait(control, CONTROL.ready, ready);
  }
  const start = bounds[k]!;
  const bytes = bounds[k + 1]! - start;
  if (phase === PHASE.squares) kernel.sumsqChunks(g + start, bytes, r + (start / CHUNK_BYTES) * 16);
  else {
    const s = scalars;
    kernel.adam(p + start, g + start, m + start, v + start, bytes, s[0]!, s[1]!, s[2]!, s[3]!, s[4]!, s[5]!, s[6]!, s[7]!);
  }
  Atomics.store(control, CONTROL.slots + k, serial);
  Atomics.notify(control, CONTROL.slots + k);
  if (Atomics.add(control, CONTROL.done, 1) + 1 === bounds.length - 1) Atomics.notify(control, CONTROL.done);
}

/** Where slice k lies in the parameters: [parameter, first element, end element, float offset in a region] runs. */
type Segments = [number, number, number, number][];

function segmentsOf(bounds: readonly number[], offsets: readonly number[], lengths: readonly number[]): Segments[] {
  return bounds.slice(0, -1).map((startByte, k) => {
    const [from, to] = [startByte / 4, bounds[k + 1]! / 4];
    const runs: Segments = [];
    offsets.forEach((offset, i) => {
      const [a, b] = [Math.max(from, offset), Math.min(to, offset + lengths[i]!)];
      if (a < b) runs.push([i, a - offset, b - offset, a]);
    });
    return runs;
  });
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
  private readonly control: Int32Array;
  private readonly scalars: Float64Array;
  private workers: Worker[];
  /** This thread's end of each worker's port (gradient pieces go out and come back through it). */
  private ports: MessagePort[];
  private readonly token = {};
  /** Per slice, the parameters' parts it holds. */
  private readonly segments: Segments[];
  /**
   * The arrays P was last copied out to, with their write counts then (weight-writes.ts): while
   * the caller passes the same arrays and nothing else wrote them, P already holds their values.
   */
  private resident: { readonly arrays: readonly Float32Array[]; readonly writes: readonly number[] } | null = null;

  private constructor(
    private readonly kernel: AdamKernel,
    private readonly setup: SliceSetup,
    private readonly memory: Float32Array,
    private readonly offsets: readonly number[],
    lengths: readonly number[],
    workers: number,
  ) {
    const views = (region: number) => lengths.map((len, k) => memory.subarray(setup.regions[region]! / 4 + offsets[k]!, setup.regions[region]! / 4 + offsets[k]! + len));
    this.m = views(2);
    this.v = views(3);
    this.control = new Int32Array(setup.control);
    this.scalars = new Float64Array(setup.scalars);
    // Nothing is left to take until the first phase.
    this.control[CONTROL.next] = setup.bounds.length;
    this.segments = segmentsOf(setup.bounds, offsets, lengths);
    const started = Array.from({ length: workers }, () => startWorker(setup));
    this.workers = started.map((s) => s.worker);
    this.ports = started.map((s) => s.port);
    orphans.register(this, () => endWorkers(setup, started), this.token);
  }

  /** null where WebAssembly SIMD, shared memory or worker threads are missing, or the weights do not fit 4 GiB. */
  static create(lengths: readonly number[], threads: number): ParallelAdam | null {
    const module = sharedKernelModule();
    // Without the worker script (a bundle missing optim-worker.mjs) the single-threaded kernel runs.
    if (module === null || wasm === undefined || (threads > 1 && workerFile() === null)) return null;
    const { offsets, n } = regionLayout(lengths);
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
    const bounds = sliceBounds(bytes, Math.max(1, threads) * SLICES_PER_THREAD);
    const setup: SliceSetup = {
      module,
      memory,
      control: new SharedArrayBuffer((CONTROL.slots + bounds.length) * 4),
      scalars: new SharedArrayBuffer(8 * 8),
      regions,
      bounds,
    };
    const kernel = new wasm.Instance(module, { env: { memory } }).exports as unknown as AdamKernel;
    return new ParallelAdam(kernel, setup, new Float32Array(memory.buffer), offsets, lengths, Math.max(0, threads - 1));
  }

  /** Threads that run slices: the calling one and the workers. */
  get threads(): number {
    return this.workers.length + 1;
  }

  /**
   * As WasmAdam.load: the gradients' global L2 norm. Copies the gradients in slice by slice,
   * while the other threads square the slices already in; or, with a `handover` whose pieces
   * hold the gradients, has each worker copy in its pieces (see the file's head), and gives the
   * pieces back before it returns.
   */
  load(params: readonly Float32Array[], grads: readonly Float32Array[], handover?: GradientHandover): number {
    void params; // copied in by update(), as its slices are needed
    const located = handover && this.workers.length > 0 ? locateInPieces(grads, handover.pieces) : null;
    if (located) this.gatherHandedOver(grads, handover!, located);
    else {
      this.startPhase(PHASE.squares);
      this.copyIn(grads, this.setup.regions[1]);
      runSlices(this.kernel, this.setup, this.control, this.scalars);
      this.awaitAll();
    }
    const chunks = Math.ceil(this.setup.regions[1] / CHUNK_BYTES);
    return Math.sqrt(this.kernel.sumChunks(this.setup.regions[4], chunks));
  }

  /** The squares phase with the gradients handed over: piece k is copied in by thread k mod threads (0: this one). */
  private gatherHandedOver(grads: readonly Float32Array[], handover: GradientHandover, located: readonly ([number, number] | null)[]): void {
    const { pieces } = handover;
    const threads = this.workers.length + 1;
    const g = this.setup.regions[1] / 4;
    const copies = pieces.map((): number[] => []);
    const loose: number[] = [];
    located.forEach((at, i) => (at === null ? loose.push(i) : copies[at[0]]!.push(at[1], grads[i]!.length, this.offsets[i]!)));
    // Which pieces went to each worker, in the order of its message (and of its reply).
    const sent = this.workers.map((): number[] => []);
    pieces.forEach((_, k) => k % threads > 0 && sent[(k % threads) - 1]!.push(k));
    this.ports.forEach((port, w) => {
      const message: PiecesMessage = { pieces: sent[w]!.map((k) => ({ buffer: pieces[k]!.buffer as ArrayBuffer, copies: copies[k]! })) };
      port.postMessage(message, message.pieces.map((p) => p.buffer));
    });
    this.startPhase(PHASE.squares, true);
    const mem = this.memory;
    pieces.forEach((piece, k) => {
      if (k % threads !== 0) return;
      const c = copies[k]!;
      for (let j = 0; j < c.length; j += 3) mem.set(piece.subarray(c[j]!, c[j]! + c[j + 1]!), g + c[j + 2]!);
    });
    for (const i of loose) mem.set(grads[i]!, g + this.offsets[i]!);
    this.wait(CONTROL.gathered, (n) => n < this.workers.length);
    this.markAllReady();
    runSlices(this.kernel, this.setup, this.control, this.scalars);
    this.awaitAll();
    const back = [...pieces];
    this.ports.forEach((port, w) => {
      const reply = receiveMessageOnPort(port);
      if (reply === undefined) throw new Error('Adam: an optimiser worker did not send its gradient pieces back');
      (reply.message as ArrayBuffer[]).forEach((buffer, j) => (back[sent[w]![j]!] = new Float32Array(buffer)));
    });
    handover.giveBack(back);
  }

  /**
   * As WasmAdam.update: one update with the loaded gradients times `gradScale`, into `params`.
   * Copies the parameters in slice by slice while the other threads update the slices already
   * in, then copies each slice out as it is done, updating slices itself while it waits.
   */
  update(params: readonly Float32Array[], k: AdamCoefficients, gradScale: number): void {
    const { beta1: b1, beta2: b2, eps, stepSize, invSqrtBc2 } = k;
    this.scalars.set([b1, 1 - b1, b2, 1 - b2, stepSize, invSqrtBc2, eps, gradScale].map(Math.fround));
    const serial = this.startPhase(PHASE.update);
    if (this.holds(params)) this.markAllReady();
    else this.copyIn(params, this.setup.regions[0]);
    const { control: c, memory: mem, segments } = this;
    const p = this.setup.regions[0] / 4;
    for (let slice = 0; slice < segments.length; slice++) {
      while (Atomics.load(c, CONTROL.slots + slice) !== serial) {
        const other = takeSlice(this.setup, c);
        if (other >= 0) runSlice(this.kernel, this.setup, c, this.scalars, other);
        else this.wait(CONTROL.slots + slice, (flag) => flag !== serial);
      }
      for (const [i, from, to, at] of segments[slice]!) params[i]!.set(mem.subarray(p + at, p + at + (to - from)), from);
    }
    this.resident = { arrays: [...params], writes: params.map(writeCount) };
  }

  /** Forgets the parameters it holds: the next update copies them in (Adam.load, whose caller may have loaded weights too). */
  forgetParams(): void {
    this.resident = null;
  }

  /** Whether P holds `params`' values: the arrays it last wrote, unwritten since. */
  private holds(params: readonly Float32Array[]): boolean {
    const r = this.resident;
    if (r === null || r.arrays.length !== params.length) return false;
    for (let i = 0; i < params.length; i++) if (r.arrays[i] !== params[i] || r.writes[i] !== writeCount(params[i]!)) return false;
    return true;
  }

  /** Lets the threads at every slice of the phase at once (their inputs are already in). */
  private markAllReady(): void {
    const c = this.control;
    Atomics.store(c, CONTROL.ready, this.segments.length);
    if (this.workers.length > 0) Atomics.notify(c, CONTROL.ready);
  }

  /** Ends the workers (the optimiser then runs on the calling thread alone). */
  release(): void {
    orphans.unregister(this.token);
    endWorkers(this.setup, this.workers.map((worker, w) => ({ worker, port: this.ports[w]! })));
    this.workers = [];
    this.ports = [];
  }

  /** Opens a phase with no slice ready (`gather`: one whose gradients the workers copy in, gatherPieces); returns its serial. */
  private startPhase(phase: number, gather = false): number {
    const c = this.control;
    c[CONTROL.phase] = phase;
    const serial = c[CONTROL.serial]! + 1;
    Atomics.store(c, CONTROL.gathered, 0);
    Atomics.store(c, CONTROL.gather, gather ? serial : 0);
    Atomics.store(c, CONTROL.serial, serial);
    Atomics.store(c, CONTROL.ready, 0);
    Atomics.store(c, CONTROL.done, 0);
    // Last: a thread that takes a slice from here on reads the phase above.
    Atomics.store(c, CONTROL.next, 0);
    if (this.workers.length > 0) {
      Atomics.add(c, CONTROL.generation, 1);
      Atomics.notify(c, CONTROL.generation);
    }
    return serial;
  }

  /** Copies `arrays` into the region at byte `region`, slice by slice, letting the threads at each slice as it lands. */
  private copyIn(arrays: readonly Float32Array[], region: number): void {
    const { control: c, memory: mem, segments } = this;
    const base = region / 4;
    for (let slice = 0; slice < segments.length; slice++) {
      for (const [i, from, to, at] of segments[slice]!) mem.set(from === 0 && to === arrays[i]!.length ? arrays[i]! : arrays[i]!.subarray(from, to), base + at);
      Atomics.store(c, CONTROL.ready, slice + 1);
      if (this.workers.length > 0) Atomics.notify(c, CONTROL.ready);
    }
  }

  /** Waits until every slice of the phase is done. */
  private awaitAll(): void {
    const slices = this.setup.bounds.length - 1;
    this.wait(CONTROL.done, (done) => done < slices);
  }

  /** Blocks while `pending(control[slot])`; throws if a worker failed. */
  private wait(slot: number, pending: (value: number) => boolean): void {
    const c = this.control;
    for (let value = Atomics.load(c, slot); pending(value); value = Atomics.load(c, slot)) {
      if (Atomics.load(c, CONTROL.failed) !== 0) throw new Error('Adam: an optimiser worker thread failed');
      Atomics.wait(c, slot, value, 1000);
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

/** What a worker is started with: the shared setup, and its end of a port of its own. */
export interface WorkerSetup extends SliceSetup {
  readonly port: MessagePort;
}

function startWorker(setup: SliceSetup): { worker: Worker; port: MessagePort } {
  const { port1, port2 } = new MessageChannel();
  const workerData: WorkerSetup = { ...setup, port: port2 };
  // No inherited node flags (see worker-session.ts): the worker is a plain module.
  const worker = new Worker(workerFile()!, { workerData, transferList: [port2], execArgv: [] });
  worker.on('error', () => Atomics.store(new Int32Array(setup.control), CONTROL.failed, 1));
  worker.unref();
  port1.unref();
  return { worker, port: port1 };
}

function endWorkers(setup: SliceSetup, workers: readonly { readonly worker: Worker; readonly port: MessagePort }[]): void {
  if (workers.length === 0) return;
  const control = new Int32Array(setup.control);
  Atomics.store(control, CONTROL.stop, 1);
  Atomics.add(control, CONTROL.generation, 1);
  Atomics.notify(control, CONTROL.generation);
  for (const { worker, port } of workers) {
    port.close();
    void worker.terminate();
  }
}

/** The worker's script: next to this module (optim-worker.js), or next to the bundle (optim-worker.mjs, tools/bundle.ts); null if neither is there. */
function workerFile(): URL | null {
  for (const name of ['./optim-worker.js', './optim-worker.mjs']) {
    const url = new URL(name, import.meta.url);
    if (fs.existsSync(url)) return url;
  }
  return null;
}
