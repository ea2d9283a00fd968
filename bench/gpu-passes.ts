// npm run bench -- gpu, table `passes`: the forward passes a text learner runs beside its gradient
// step (runtime/algorithms/text/log-prob-sessions.ts), at the transformer table's shapes:
// pi_old's log-probability pass, which feeds the policy's weights (they change every update), in
// fp32 and with precision fp16; and pi_ref's, whose weights are baked into its session on a GPU,
// against the same pass with them fed (what every reference pass did before). Per pass: tokens/s,
// the session runs' wall time, and the MB sent to and fetched from the device.
import { ReferencePolicy, logProbSession } from '../runtime/algorithms/text/log-prob-sessions.js';
import type { LanguageModel } from '../runtime/policies/index.js';
import type { Compute, Feed, Precision } from '../runtime/tensor/index.js';
import type { ExecutionProvider } from '../runtime/tensor/session.js';
import { formatCost, measure } from './gpu-measure.js';

export interface PassCase {
  readonly name: string;
  readonly model: LanguageModel;
  readonly T: number;
  readonly rows: number;
  /** tokens, targets and whatever else the model's rows need, [rows, T]. */
  readonly feeds: Readonly<Record<string, Feed>>;
}

type Pass = 'pi_old' | 'pi_ref baked' | 'pi_ref fed';

/** One pass's cost on `provider` (fp16: the pass written with precision fp16; it is on a GPU only). */
async function passCost(c: PassCase, provider: ExecutionProvider, pass: Pass, precision: Precision, seconds: number) {
  const compute: Compute = { providers: [provider], threads: false, precision };
  const feeds = { ...c.feeds, inv_temperature: new Float32Array([1]) };
  if (pass === 'pi_old') {
    const session = await logProbSession(c.model, c.T, c.model.weights, compute);
    try {
      return await measure(async () => void (await session.run(feeds)), { warmups: 1, minRuns: 3, seconds });
    } finally {
      await session.release();
    }
  }
  const reference = await ReferencePolicy.create(c.model, c.T, compute, pass === 'pi_ref baked');
  try {
    return await measure(async () => void (await reference.logProbs(feeds)), { warmups: 1, minRuns: 3, seconds });
  } finally {
    await reference.release();
  }
}

/** Prints the table for `cases` (made one at a time: the larger models are hundreds of MB). */
export async function passesTable(cases: readonly (() => PassCase)[], gpu: boolean, seconds: number): Promise<void> {
  console.log('\n  log-probability passes beside the gradient step (pi_old: weights fed; pi_ref: baked on a GPU, against fed), tokens/s and per pass');
  for (const make of cases) {
    const c = make();
    const tokens = c.rows * c.T;
    console.log(`\n  ${c.name} at ${c.rows} x ${c.T}`);
    console.log('    pass                        tokens/s   pass ms   kernel ms   optimiser ms   host->device MB   device->host MB');
    const cells: [ExecutionProvider, Pass, Precision][] = gpu
      ? [['webgpu', 'pi_old', 'fp32'], ['webgpu', 'pi_old', 'fp16'], ['webgpu', 'pi_ref fed', 'fp32'], ['webgpu', 'pi_ref baked', 'fp32'], ['webgpu', 'pi_ref baked', 'fp16']]
      : [['cpu', 'pi_old', 'fp32'], ['cpu', 'pi_ref baked', 'fp32']];
    for (const [provider, pass, precision] of cells) {
      const who = `${provider} ${pass}${precision === 'fp16' ? ' fp16' : ''}`.padEnd(26);
      try {
        console.log(`    ${who} ${formatCost(await passCost(c, provider, pass, precision, seconds), tokens)}`);
      } catch (e) {
        console.log(`    ${who} failed: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
      }
    }
    await c.model.release();
  }
}
