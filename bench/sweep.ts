// `rlx sweep` on one machine: 8 members of examples/cartpole.rlx (seeds 1-8, the budget trimmed
// so that a member takes well under a minute) run with parallel 1, then parallel 2, each as the
// user runs it (`rlx sweep FILE --parallel N`, members as `rlx train --member K` processes).
// Prints the wall time of each and the speed-up. On a machine with 2 cores the ideal is 2x;
// process start (loading onnxruntime, ~1-2 s a member) and other load on the machine take from it.
// Run: npm run bench -- sweep   (or node out/bench/sweep.js)
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { report } from './stats.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RLX = path.join(ROOT, 'bin', 'rlx.js');
const MEMBERS = 8;
/** Environment steps per member: the example's 500k would take many minutes a member. */
const BUDGET = 50_000;

/** The example with a sweep over 8 seeds appended (an import would need the example's path in the file). */
function sweepFile(dir: string): string {
  const file = path.join(dir, 'cartpole-seeds.rlx');
  const seeds = Array.from({ length: MEMBERS }, (_, i) => i + 1).join(', ');
  fs.writeFileSync(file, `${fs.readFileSync(path.join(ROOT, 'examples', 'cartpole.rlx'), 'utf8')}
sweep Seeds over Balance {
  budget: [${BUDGET}]
  seeds: [${seeds}]
}
`);
  return file;
}

function runSweep(file: string, parallel: number, out: string): { seconds: number; finished: number } {
  const start = performance.now();
  const result = spawnSync(process.execPath, [RLX, 'sweep', file, '--parallel', String(parallel), '--out', out, '--device', 'cpu'], { encoding: 'utf8' });
  const seconds = (performance.now() - start) / 1000;
  if (result.status !== 0) throw new Error(`rlx sweep --parallel ${parallel} exited ${result.status}:\n${result.stderr.split('\n').slice(-8).join('\n')}`);
  const finished = /(\d+)\/\d+ finished/.exec(result.stderr)?.[1];
  return { seconds, finished: Number(finished ?? 0) };
}

export async function benchSweep(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-bench-sweep-'));
  try {
    const file = sweepFile(dir);
    const cores = os.availableParallelism();
    console.log(`\nrlx sweep: ${MEMBERS} members of examples/cartpole.rlx (seeds 1-${MEMBERS}, ${BUDGET / 1000}k steps each), ${cores} core(s) (${os.cpus()[0]?.model ?? 'unknown'}), load ${os.loadavg()[0].toFixed(1)}; figures vary with other load on the machine`);
    const one = runSweep(file, 1, path.join(dir, 'p1'));
    const two = runSweep(file, 2, path.join(dir, 'p2'));
    report('wall time of the whole sweep', [
      ['parallel 1', `${one.seconds.toFixed(1)} s (${one.finished}/${MEMBERS} finished, ${(one.seconds / MEMBERS).toFixed(1)} s a member)`],
      ['parallel 2', `${two.seconds.toFixed(1)} s (${two.finished}/${MEMBERS} finished)`],
      ['speed-up', `${(one.seconds / two.seconds).toFixed(2)}x (ideal ${Math.min(2, cores)}x on ${cores} core(s))`],
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// `node out/bench/sweep.js` runs it alone.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await benchSweep();
