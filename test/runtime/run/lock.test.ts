// run.lock: one trainer per run directory. Held while a run trains (fresh or resumed) and
// released when it ends, failed or not; a second resume is refused; a lock left by a killed
// trainer is taken over; one from another host is refused with how to clear it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { LOCK_FILE } from '../../../runtime/run/lock.js';
import { resume, ResumeError, RunFailedError, train } from '../../../runtime/train.js';
import { makePlan, tempDir } from '../helpers.js';

/** A run stopped at step 1024 of 3072, ready to resume. */
async function stoppedRun(): Promise<string> {
  const controller = new AbortController();
  const result = await train(makePlan({ budget: 3072 }), {
    out: tempDir(),
    signal: controller.signal,
    onProgress: (p) => {
      if (p.step >= 1024) controller.abort();
    },
  });
  assert.equal(result.status, 'stopped');
  return result.runDir;
}

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

describe('run.lock', () => {
  it('is held while a run trains and released when it ends, finished or failed', async () => {
    const seen: boolean[] = [];
    const out = tempDir();
    const result = await train(makePlan({ budget: 1024 }), { out, onProgress: (p) => seen.push(fs.existsSync(path.join(p.runDir, LOCK_FILE))) });
    assert.deepEqual(seen, [true, true]);
    assert.ok(!fs.existsSync(path.join(result.runDir, LOCK_FILE)));

    let failedDir = '';
    await assert.rejects(
      train(makePlan({ budget: 4096 }), { out, onProgress: () => { throw new Error('boom'); } }),
      (err: unknown) => err instanceof RunFailedError && Boolean((failedDir = err.runDir)),
    );
    assert.ok(!fs.existsSync(path.join(failedDir, LOCK_FILE)), 'released on failure too');
  });

  it('refuses a second resume of a run that is training, and lets it finish', async () => {
    const dir = await stoppedRun();
    const [first, second] = await Promise.allSettled([resume(dir), resume(dir)]);
    assert.equal(first.status, 'fulfilled');
    assert.equal((first as PromiseFulfilledResult<{ status: string }>).value.status, 'finished');
    assert.equal(second.status, 'rejected');
    const err = (second as PromiseRejectedResult).reason as Error;
    assert.ok(err instanceof ResumeError, String(err));
    assert.match(err.message, new RegExp(`is being trained by process ${process.pid} \\(this one\\) since \\d{4}-.*; stop it first$`));
    assert.ok(!fs.existsSync(path.join(dir, LOCK_FILE)));
  });

  it('takes over the lock of a trainer that is gone; refuses one of another host with how to clear it', async () => {
    const dir = await stoppedRun();
    const lock = path.join(dir, LOCK_FILE);
    fs.writeFileSync(lock, JSON.stringify({ pid: deadPid(), host: os.hostname(), since: '2020-01-01T00:00:00.000Z' }));
    assert.equal((await resume(dir)).status, 'finished');
    assert.ok(!fs.existsSync(lock));

    const other = await stoppedRun();
    fs.writeFileSync(path.join(other, LOCK_FILE), JSON.stringify({ pid: 4242, host: 'elsewhere', since: '2020-01-01T00:00:00.000Z' }));
    await assert.rejects(resume(other), (err: unknown) => err instanceof ResumeError
      && err.message === `${other} is being trained by process 4242 on elsewhere since 2020-01-01T00:00:00.000Z; stop it first (if that trainer is gone, delete ${path.join(other, LOCK_FILE)})`);
    assert.ok(fs.existsSync(path.join(other, LOCK_FILE)), 'a lock that cannot be judged is left alone');
  });
});
