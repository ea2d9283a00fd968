// A worker thread of ParallelAdam (parallel-adam.ts): waits for a phase, copies in its gradient
// pieces where the phase gathers them, takes slices with the other threads, and waits again,
// until release() sets the stop flag.
import { workerData } from 'node:worker_threads';
import { CONTROL, gatherPieces, runSlices, type WorkerSetup } from './parallel-adam.js';
import type { AdamKernel } from './wasm-optim.js';

const setup = workerData as WorkerSetup;
const control = new Int32Array(setup.control);
const scalars = new Float64Array(setup.scalars);
const { Instance } = (globalThis as unknown as { WebAssembly: { Instance: new (module: object, imports: object) => { exports: unknown } } }).WebAssembly;
const kernel = new Instance(setup.module, { env: { memory: setup.memory } }).exports as AdamKernel;

/** The serial of the last phase this worker gathered its gradient pieces in. */
let gathered = 0;
const gather = () => {
  gathered = gatherPieces(setup, control, setup.port, gathered);
};

try {
  for (;;) {
    const generation = Atomics.load(control, CONTROL.generation);
    if (Atomics.load(control, CONTROL.stop) !== 0) break;
    gather();
    runSlices(kernel, setup, control, scalars, gather);
    Atomics.wait(control, CONTROL.generation, generation);
  }
} catch (err) {
  Atomics.store(control, CONTROL.failed, 1);
  Atomics.notify(control, CONTROL.done);
  throw err;
}
