// npm run bench -- optim: host Adam, ms per step, at 1M, 19M and 85M parameters (85M: GPT-2
// 12 x 768, trained in full on the GPU while Adam runs on the host). Rows: the JS loop, the
// single-threaded SIMD kernel (wasm-optim.ts), the same streamed through windows as models past
// 4 GiB of kernel memory run it (streaming-adam.ts), the SIMD kernel on 2, 4, 8, 16 threads
// (parallel-adam.ts; up to the cores), each also with the parameters written before every step
// (as a checkpoint load does: the kernel then copies them in again, as every threaded step did
// before the parameters stayed in its memory) and with the gradients handed over in pieces, one
// per thread, as a gradient step lends them (gradient-handover.ts: the workers copy their pieces
// in); and beside them the memory ceiling: one plain Float32Array copy of the parameters' bytes,
// of which a threaded step makes two on the calling thread (gradients in, parameters out), or
// one and its own piece with the gradients handed over. bench/gpu.ts times Adam with
// timeAdamStep().
import * as os from 'node:os';
import { Adam } from '../runtime/tensor/optim.js';
import { markWritten } from '../runtime/tensor/weight-writes.js';
import { pieceSlots } from '../runtime/tensor/gradient-parts.js';
import { optimizerThreadsFor } from '../runtime/tensor/optimizer-threads.js';
import { seededRandom } from '../test/helpers/random.js';
import { median, report } from './stats.js';

/**
 * How Adam runs: the JS loop, the SIMD kernel on one thread ('simd', as 1), on as many threads
 * as Adam picks by default for the size and cores ('auto'), or on this many threads (parallel-adam.ts).
 */
export type AdamKind = 'js' | 'simd' | 'streamed' | 'auto' | number;

/** Tensors of at most this many floats (a GPT-2 MLP matrix, 768 x 3072): a model's parameters come as many arrays. */
const TENSOR = 768 * 3072;

/** `total` parameters as GPT-2-sized tensors. */
export function tensorLengths(total: number): number[] {
  const lengths: number[] = [];
  for (let left = total; left > 0; left -= TENSOR) lengths.push(Math.min(TENSOR, left));
  return lengths;
}

function filled(lengths: readonly number[], seed: number): Float32Array[] {
  const random = seededRandom(seed);
  return lengths.map((n) => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = random() - 0.5;
    return a;
  });
}

export interface AdamTiming {
  /** Median ms per step, after a warm-up step. */
  readonly ms: number;
  /** Threads the step ran on. */
  readonly threads: number;
}

/**
 * Times Adam steps on parameters of `lengths` (random values), with gradient clipping as the
 * language-model trainers use it; ms per step, the median of `steps` after one warm-up step.
 */
export function timeAdamStep(lengths: readonly number[], kind: AdamKind = 'simd', steps = 5, writtenBetweenSteps = false, handedOver = false): AdamTiming {
  const params = filled(lengths, 1);
  const adam = new Adam(params, kind === 'js' ? { simd: false } : kind === 'streamed' ? { streamed: true } : kind === 'auto' ? {} : { threads: kind === 'simd' ? 1 : kind });
  // Handed over: the gradients as a gradient step lends them, one piece per thread (gradient-handover.ts).
  const lent = handedOver ? lentGradients(lengths, adam.threads) : null;
  const grads = lent ? lent.views : filled(lengths, 2);
  const options = () => ({ maxGradNorm: 1, ...(lent ? { handover: lent.handover } : {}) });
  try {
    adam.step(lent ? lent.views : grads, 1e-4, options());
    const times: number[] = [];
    for (let i = 0; i < steps; i++) {
      if (writtenBetweenSteps) params.forEach(markWritten);
      const t0 = performance.now();
      adam.step(lent ? lent.views : grads, 1e-4, options());
      times.push(performance.now() - t0);
    }
    return { ms: median(times), threads: adam.threads };
  } finally {
    adam.release();
  }
}

/** Gradients of `lengths` in `count` pieces (whole tensors end to end), lent and given back as a gradient step does. */
function lentGradients(lengths: readonly number[], count: number) {
  const groups = pieceSlots(lengths, count);
  const values = filled(lengths, 2);
  const lent = {
    views: [] as Float32Array[],
    handover: {
      pieces: [] as Float32Array[],
      giveBack: (pieces: readonly Float32Array[]) => lent.adopt(pieces),
    },
    adopt(pieces: readonly Float32Array[]) {
      lent.handover.pieces = [...pieces];
      lent.views = [];
      groups.forEach((group, k) => {
        let at = 0;
        for (const i of group) lent.views[i] = pieces[k]!.subarray(at, (at += lengths[i]!));
      });
    },
  };
  lent.adopt(
    groups.map((group) => {
      const piece = new Float32Array(group.reduce((n, i) => n + lengths[i]!, 0));
      let at = 0;
      for (const i of group) piece.set(values[i]!, (at += lengths[i]!) - lengths[i]!);
      return piece;
    }),
  );
  return lent;
}

/** One Float32Array.set of `floats` floats (as `lengths` tensors), ms: the memory ceiling of one pass over the parameters. */
export function timeCopy(lengths: readonly number[], steps = 5): number {
  const from = filled(lengths, 3);
  const to = lengths.map((n) => new Float32Array(n));
  const times: number[] = [];
  for (let i = 0; i <= steps; i++) {
    const t0 = performance.now();
    for (let k = 0; k < from.length; k++) to[k]!.set(from[k]!);
    if (i > 0) times.push(performance.now() - t0);
  }
  return median(times);
}

const SIZES: [string, number][] = [
  ['1M', 1_000_000],
  ['19M (6 x 512)', 19_000_000],
  ['85M (12 x 768)', 85_000_000],
];

export async function benchOptim(): Promise<void> {
  const cores = os.availableParallelism();
  const threadCounts = [2, 4, 8, 16].filter((t) => t <= cores);
  for (const [label, total] of SIZES) {
    const lengths = tensorLengths(total);
    const steps = total > 50_000_000 ? 3 : 5;
    const rows: [string, string][] = [];
    const copy = timeCopy(lengths, steps);
    rows.push(['copy of the parameters (Float32Array.set)', `${copy.toFixed(1)} ms (x2 = ${(2 * copy).toFixed(1)} ms: the copies a threaded step makes)`]);
    rows.push(['JS loop', `${timeAdamStep(lengths, 'js', total > 50_000_000 ? 1 : 3).ms.toFixed(1)} ms`]);
    rows.push(['SIMD kernel, 1 thread (as before)', `${timeAdamStep(lengths, 'simd', steps).ms.toFixed(1)} ms`]);
    rows.push(['SIMD kernel streamed through windows (as past 268M parameters)', `${timeAdamStep(lengths, 'streamed', steps).ms.toFixed(1)} ms`]);
    for (const t of threadCounts) {
      // Interleaved, so that other load on the machine falls on both alike.
      rows.push([`SIMD kernel, ${t} threads, weights written before each step (copied in)`, `${timeAdamStep(lengths, t, steps, true).ms.toFixed(1)} ms`]);
      rows.push([`SIMD kernel, ${t} threads (shared memory; the parameters stay in it)`, `${timeAdamStep(lengths, t, steps).ms.toFixed(1)} ms`]);
      rows.push([`SIMD kernel, ${t} threads, gradients handed over in ${t} pieces`, `${timeAdamStep(lengths, t, steps, false, true).ms.toFixed(1)} ms`]);
    }
    rows.push(['threads Adam picks here by default', `${optimizerThreadsFor(total)}`]);
    report(`Host Adam per step, ${label} parameters (${lengths.length} tensors, clipping on; ${cores} cores)`, rows);
  }
}
