// The machine's own failures: a disk that fills up mid-run ends the run `failed` (not
// `running`), with the system's error, and leaves no partial temporary files; temporary files a
// killed trainer left behind are removed by the next resume. The full disk is simulated by
// making node:fs refuse to write new bytes (syncBuiltinESMExports carries the change into the
// trainer's `import * as fs`); rewriting bytes in place still works, as on a real full disk.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { readEventFile } from '../../../runtime/run/events.js';
import { resume, RunFailedError, train } from '../../../runtime/train.js';
import { makePlan, tempDir } from '../helpers.js';

const fsModule = createRequire(import.meta.url)('node:fs') as typeof fs;

function enospc(syscall: string, where?: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: no space left on device, ${syscall}${where ? ` '${where}'` : ''}`), { code: 'ENOSPC', syscall, path: where });
}

/** Runs `body` with a disk that is full once `isFull()` says so. */
async function withFullDisk<T>(isFull: () => boolean, body: () => Promise<T>): Promise<T> {
  const { writeFileSync, writeSync } = fsModule;
  // A new file gets half its bytes, then the error: as a real write that runs out of space.
  fsModule.writeFileSync = ((file: fs.PathOrFileDescriptor, data: string | NodeJS.ArrayBufferView, options?: fs.WriteFileOptions) => {
    if (!isFull()) return writeFileSync(file, data, options);
    const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    writeFileSync(file, bytes.subarray(0, bytes.length / 2));
    throw enospc('write', String(file));
  }) as typeof fs.writeFileSync;
  // Appends (no position) need new space; writes at a position inside the file do not.
  fsModule.writeSync = ((fd: number, buffer: NodeJS.ArrayBufferView, ...rest: unknown[]) => {
    const position = rest[2];
    if (isFull() && (position === undefined || position === null)) throw enospc('write');
    return (writeSync as (...args: unknown[]) => number)(fd, buffer, ...rest);
  }) as typeof fs.writeSync;
  syncBuiltinESMExports();
  try {
    return await body();
  } finally {
    fsModule.writeFileSync = writeFileSync;
    fsModule.writeSync = writeSync;
    syncBuiltinESMExports();
  }
}

const temporaries = (dir: string) => (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.tmp'));

describe('a full disk and killed writes', () => {
  it('a disk that fills up mid-run ends it failed, with the error, and no partial files', async () => {
    let full = false;
    let failure: RunFailedError | undefined;
    await withFullDisk(() => full, () =>
      train(makePlan({ budget: 4096 }), { out: tempDir(), checkpointEvery: 512, onProgress: (p) => (full ||= p.step >= 1024) }).catch((err: unknown) => {
        if (!(err instanceof RunFailedError)) throw err;
        failure = err;
      }),
    );
    assert.ok(failure, 'the run failed');
    assert.match(failure.message, /^ENOSPC: no space left on device, write/);
    assert.equal((failure.cause as NodeJS.ErrnoException).code, 'ENOSPC');
    const dir = failure.runDir;
    const status = JSON.parse(fs.readFileSync(path.join(dir, 'status.json'), 'utf8'));
    assert.deepEqual([status.status, status.error], ['failed', failure.message], 'status.json was rewritten in place');
    assert.deepEqual(temporaries(dir), [], 'the partial temporary file was removed');
    assert.ok(fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8').endsWith('\n'), 'events.jsonl ends on a whole line');
    assert.equal(readEventFile(path.join(dir, 'events.jsonl')).skipped, 0);
  });

  it('a resume removes the temporary files of writes cut short', async () => {
    const controller = new AbortController();
    const first = await train(makePlan({ budget: 2048 }), { out: tempDir(), signal: controller.signal, onProgress: (p) => p.step >= 1024 && controller.abort() });
    const dir = first.runDir;
    // 99999999: past Linux's largest pid (2^22), so no live process writes these.
    fs.writeFileSync(path.join(dir, 'checkpoints', '.state-1536.json.99999999.tmp'), '{"format":');
    fs.writeFileSync(path.join(dir, '.status.json.99999999.tmp'), '{');
    // A live process's: another `--resume` between writing its lock's temporary and linking it (lock.ts).
    const live = path.join(dir, `.run.lock.${process.ppid}.tmp`); // the test runner: alive, and not this process, whose own lock writes its pid's
    fs.writeFileSync(live, '{}');
    const logged: string[] = [];
    assert.equal((await resume(dir, { log: (m) => logged.push(m) })).status, 'finished');
    assert.deepEqual(temporaries(dir), [path.basename(live)], 'a live process\'s temporary is left to it');
    fs.rmSync(live);
    assert.ok(logged.includes('removed 2 temporary file(s) of writes cut short when the run was last stopped'), logged.join('\n'));
  });
});
