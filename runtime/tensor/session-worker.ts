// The worker thread behind a WorkerSession (worker-session.ts): one onnxruntime session that
// runs whenever the calling thread asks through the control block (worker-protocol.ts).
//
// onnxruntime-node refuses typed arrays over SharedArrayBuffers, so inputs are copied from
// the shared buffers into private ones before each run, and outputs (written by onnxruntime
// into preallocated private tensors) copied back. The copies are a few kilobytes, ~1 us.
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { CONTROL, ERROR_BYTES, MAX_RANK, claimRun, sharedArray, spinUntilAtLeast, type SharedSlot, type WorkerHello, type WorkerSetup } from './worker-protocol.js';
import { allocate, sameDims, type HostArray } from './types.js';

// Given at the start, or later by message when the worker was booted ahead of need (warmUp()).
const setup = ((workerData as WorkerSetup | null) ?? (await new Promise((resolve) => parentPort!.once('message', resolve)))) as WorkerSetup;
const control = new Int32Array(setup.control);

/**
 * A shared buffer and its private twin. The ort.Tensor over the twin is kept while the dims
 * stay the same (every minibatch but a short last one): objects made per run are garbage, and
 * this thread's collector pauses stall the thread waiting for its answer.
 */
class Binding {
  readonly shared: HostArray;
  readonly local: HostArray;
  private tensor: ort.Tensor | null = null;

  constructor(readonly slot: SharedSlot) {
    this.shared = sharedArray(slot.dtype, slot.buffer);
    this.local = allocate(slot.dtype, slot.capacity);
  }

  tensorFor(dims: Int32Array): ort.Tensor {
    if (this.tensor && sameDims(this.tensor.dims, dims)) return this.tensor;
    const shape = Array.from(dims);
    const size = shape.reduce((p, d) => p * d, 1);
    this.tensor = new ort.Tensor(this.slot.dtype, this.local.subarray(0, size) as HostArray, shape);
    return this.tensor;
  }
}

function reportFailure(run: number, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  const bytes = new TextEncoder().encode(message).subarray(0, ERROR_BYTES);
  new Uint8Array(setup.error).set(bytes);
  Atomics.store(control, CONTROL.errorLength, bytes.length);
  Atomics.store(control, CONTROL.failed, 1);
  answer(run);
}

function answer(run: number): void {
  Atomics.store(control, CONTROL.done, run);
  Atomics.notify(control, CONTROL.done);
}

/**
 * Blocks until a run is asked for (or stop); returns its number. A notify with no request
 * (WorkerSession.wake()) makes it spin again, so that the next request finds it awake.
 */
function nextRequest(last: number): number {
  for (;;) {
    if (spinUntilAtLeast(control, CONTROL.request, last + 1, setup.spinMicros)) return Atomics.load(control, CONTROL.request);
    Atomics.store(control, CONTROL.sleeping, 1);
    if (Atomics.load(control, CONTROL.request) === last) Atomics.wait(control, CONTROL.request, last);
    Atomics.store(control, CONTROL.sleeping, 0);
  }
}

async function serve(session: ort.InferenceSession): Promise<void> {
  const inputs = setup.inputs.map((slot) => new Binding(slot));
  const outputs = setup.outputs.map((slot) => new Binding(slot));
  const feeds: Record<string, ort.Tensor> = {};
  const fetches: Record<string, ort.Tensor> = {};
  for (const o of outputs) fetches[o.slot.name] = new ort.Tensor(o.slot.dtype, o.local, o.slot.shape as number[]);
  let last = 0;
  for (;;) {
    const run = nextRequest(last);
    last = run;
    if (Atomics.load(control, CONTROL.stop) === 1) return;
    // The caller took this run back (it got to it first); it computes the run itself.
    if (!claimRun(control, run)) continue;
    const started = performance.now();
    try {
      inputs.forEach((b, i) => {
        const dims = control.subarray(CONTROL.dims + i * MAX_RANK, CONTROL.dims + i * MAX_RANK + b.slot.shape.length);
        const tensor = b.tensorFor(dims);
        (tensor.data as Float32Array).set(b.shared.subarray(0, tensor.size) as Float32Array);
        feeds[b.slot.name] = tensor;
      });
      await session.run(feeds, fetches);
      Atomics.store(control, CONTROL.computeMicros, Math.round((performance.now() - started) * 1000));
      for (const o of outputs) (o.shared as Float32Array).set(o.local as Float32Array);
      Atomics.store(control, CONTROL.failed, 0);
      answer(run);
    } catch (err) {
      reportFailure(run, err);
    }
  }
}

async function main(): Promise<void> {
  let session: ort.InferenceSession;
  try {
    session = await ort.InferenceSession.create(setup.model, {
      executionProviders: [...setup.providers],
      intraOpNumThreads: 1,
      graphOptimizationLevel: setup.graphOptimizationLevel,
    });
  } catch (err) {
    parentPort!.postMessage({ ready: false, error: err instanceof Error ? err.message : String(err) } satisfies WorkerHello);
    return;
  }
  parentPort!.postMessage({ ready: true } satisfies WorkerHello);
  await serve(session);
  await session.release();
}

await main();
