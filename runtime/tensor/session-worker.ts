// The worker thread behind a WorkerSession (worker-session.ts): one onnxruntime session that
// runs whenever the calling thread asks through the control block (worker-protocol.ts).
//
// onnxruntime-node refuses typed arrays over SharedArrayBuffers, so inputs are copied from
// the shared buffers into private ones before each run, and outputs (written by onnxruntime
// into preallocated private tensors) copied back. The copies are a few kilobytes, ~1 us.
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { CONTROL, ERROR_BYTES, MAX_RANK, sharedArray, spinUntilChanged, type SharedSlot, type WorkerHello, type WorkerSetup } from './worker-protocol.js';
import { allocate, type HostArray } from './types.js';

// Given at the start, or later by message when the worker was booted ahead of need (warmUp()).
const setup = ((workerData as WorkerSetup | null) ?? (await new Promise((resolve) => parentPort!.once('message', resolve)))) as WorkerSetup;
const control = new Int32Array(setup.control);

/** A shared buffer and its private twin. */
interface Binding {
  readonly slot: SharedSlot;
  readonly shared: HostArray;
  readonly local: HostArray;
}

const bind = (slot: SharedSlot): Binding => ({ slot, shared: sharedArray(slot.dtype, slot.buffer), local: allocate(slot.dtype, slot.capacity) });

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

/** Blocks until a run is asked for (or stop); returns its number. */
function nextRequest(last: number): number {
  if (!spinUntilChanged(control, CONTROL.request, last, setup.spinMicros)) {
    Atomics.store(control, CONTROL.sleeping, 1);
    while (Atomics.load(control, CONTROL.request) === last) Atomics.wait(control, CONTROL.request, last);
    Atomics.store(control, CONTROL.sleeping, 0);
  }
  return Atomics.load(control, CONTROL.request);
}

async function serve(session: ort.InferenceSession): Promise<void> {
  const inputs = setup.inputs.map(bind);
  const outputs = setup.outputs.map(bind);
  const fetches: Record<string, ort.Tensor> = {};
  for (const o of outputs) fetches[o.slot.name] = new ort.Tensor(o.slot.dtype, o.local, o.slot.shape as number[]);
  let last = 0;
  for (;;) {
    const run = nextRequest(last);
    last = run;
    if (Atomics.load(control, CONTROL.stop) === 1) return;
    try {
      const feeds: Record<string, ort.Tensor> = {};
      inputs.forEach((b, i) => {
        const dims = Array.from(control.subarray(CONTROL.dims + i * MAX_RANK, CONTROL.dims + i * MAX_RANK + b.slot.shape.length));
        const size = dims.reduce((p, d) => p * d, 1);
        const local = b.local.subarray(0, size) as HostArray;
        (local as Float32Array).set(b.shared.subarray(0, size) as Float32Array);
        feeds[b.slot.name] = new ort.Tensor(b.slot.dtype, local, dims);
      });
      await session.run(feeds, fetches);
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
