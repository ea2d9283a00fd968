// Where a step's time goes, for npm run bench -- gpu: calls per second of a step over about N
// seconds, and per call the wall time of its onnxruntime runs (kernel time, with the copies to and
// from the device), the host optimiser's time, and the bytes its runs moved each way
// (runtime/tensor/session.ts counts them for every session).
import { resetSessionTraffic, sessionTraffic } from '../runtime/tensor/session.js';

export interface StepCost {
  readonly perSecond: number;
  /** Per call, in milliseconds: the whole call, its session runs, its optimiser step. */
  readonly stepMs: number;
  readonly runMs: number;
  readonly optimiserMs: number;
  /** Per call: bytes fed to its session runs (host to device) and fetched from them. */
  readonly hostToDeviceBytes: number;
  readonly deviceToHostBytes: number;
}

export interface MeasureOptions {
  readonly warmups: number;
  /** Timed calls at least, however long they take. */
  readonly minRuns: number;
  readonly seconds: number;
}

/** Runs `call` `warmups` times, then for about `seconds` (at least `minRuns` calls); `call` times its optimiser step through the function it is given. */
export async function measure(call: (timeOptimiser: (step: () => void) => void) => Promise<void>, options: MeasureOptions): Promise<StepCost> {
  let optimiserMs = 0;
  const timeOptimiser = (step: () => void) => {
    const start = performance.now();
    step();
    optimiserMs += performance.now() - start;
  };
  for (let i = 0; i < options.warmups; i++) await call(timeOptimiser);
  optimiserMs = 0;
  resetSessionTraffic();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < options.seconds * 1000 || n < options.minRuns) {
    await call(timeOptimiser);
    n++;
  }
  const elapsed = performance.now() - start;
  const t = resetSessionTraffic();
  return {
    perSecond: (n * 1000) / elapsed,
    stepMs: elapsed / n,
    runMs: t.runMs / n,
    optimiserMs: optimiserMs / n,
    hostToDeviceBytes: t.hostToDeviceBytes / n,
    deviceToHostBytes: t.deviceToHostBytes / n,
  };
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(bytes < 2 ** 20 ? 3 : 1);

/** tokens/s, then per call: ms, kernel ms, optimiser ms, MB each way (the header in gpu.ts and gpu-lm.ts). */
export function formatCost(cost: StepCost, tokensPerCall: number): string {
  const rate = cost.perSecond * tokensPerCall;
  const cell = rate >= 1e4 ? Math.round(rate).toLocaleString('en') : rate.toFixed(1);
  return `${cell.padStart(10)} ${cost.stepMs.toFixed(1).padStart(9)} ${cost.runMs.toFixed(1).padStart(11)} ${cost.optimiserMs.toFixed(1).padStart(14)} ${mb(cost.hostToDeviceBytes).padStart(17)} ${mb(cost.deviceToHostBytes).padStart(17)}`;
}
