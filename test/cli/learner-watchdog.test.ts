// A learner module that behaves in the probe's worker thread and loops on the trainer's thread
// (issue 43, item 4): `rlx train` stops the call at build_timeout, or at once on Ctrl-C (SIGINT,
// also the editor's Stop), and fails with one line naming the module and the call (exit 2),
// instead of hanging deaf to signals.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { repoRoot } from '../helpers/repo.js';
import { scratch } from './scratch.js';

const { work, rlx, write } = scratch('rlx-learner-watchdog-');

/** Returns its loss in a worker thread (the probe), loops for ever on the main thread (saying so in a file first). */
const MODULE = `import { writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { sequenceMean, type LossGraph, type TextBatch } from 'rlx/learner';
export const spec = { kind: 'text', settings: {} };
export function buildLoss(g: LossGraph, batch: TextBatch) {
  if (isMainThread) writeFileSync('looping', '');
  while (isMainThread) {}
  return { loss: g.neg(g.mean(g.mul(sequenceMean(g, batch.logProb, batch.mask), batch.advantages))) };
}
`;

const SPEC = `env Sums = TextTask { task: addition(digits: 1), max_tokens: 3 }
policy Tiny = transformer { layers: 1, width: 16, heads: 2, context: 16 }
reward R { term low = regex(completion, "^[0-4]") }
algorithm Mine = module("./sneaky.ts") { group_size: 4, prompts_per_update: 2, build_timeout: 2 }
experiment Loop { env: Sums, policy: Tiny, reward: R, algorithm: Mine, budget: 16, device: cpu }
`;

describe("a learner module that loops on the trainer's thread", () => {
  test('is stopped at build_timeout: one line naming the module and the call, exit 2', () => {
    write('sneaky.ts', MODULE);
    write('loop.rlx', SPEC);
    const r = rlx('train', 'loop.rlx', '--out', 'runs');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /algorithm Mine \(module "sneaky\.ts"\): buildLoss did not return within 2 s on the trainer's thread \(a loop that never ends\?\) and was stopped; buildLoss must build the graph and return \(build_timeout sets the limit\)/);
    assert.doesNotMatch(r.stderr, /internal error|    at /);
  });

  test("top-level code that loops on the trainer's thread only is stopped as well", () => {
    write('sneaky-top.ts', `${MODULE}while (isMainThread) {}\n`);
    write('top.rlx', SPEC.replace('./sneaky.ts', './sneaky-top.ts'));
    const r = rlx('train', 'top.rlx', '--out', 'runs');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /algorithm Mine \(module "sneaky-top\.ts"\): the module's top-level code did not return within 2 s on the trainer's thread \(a loop that never ends\?\) and was stopped; a module's top-level code must define its exports and return/);
  });

  test('hears Ctrl-C (SIGINT) while the call loops: it ends at once, naming the module', async () => {
    write('sneaky.ts', MODULE);
    write('slow.rlx', SPEC.replace('build_timeout: 2', 'build_timeout: 600'));
    fs.rmSync(path.join(work, 'looping'), { force: true });
    const child = spawn(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), 'train', 'slow.rlx', '--out', 'runs'], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    // The probe passes (a worker thread), then the call on the main thread loops.
    const deadline = Date.now() + 60_000;
    while (!fs.existsSync(path.join(work, 'looping')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    const ended = await new Promise<number | 'hung'>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('hung');
      }, 60_000);
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve(code ?? -1);
      });
    });
    assert.equal(ended, 2, `rlx train ends after SIGINT with exit 2 (${ended})`);
    assert.match(stderr, /algorithm Mine \(module "sneaky\.ts"\): buildLoss was interrupted by Ctrl-C \(SIGINT\)/);
    assert.doesNotMatch(stderr, /internal error|    at /);
  });
});
