// Files a stranger's run folder may hold in place of a trainer's (a cloned repository's runs/):
// a link to /dev/zero, a FIFO, a file far larger than any a trainer writes, a link out of the
// folder. And a way to call a reader where it cannot take the test runner down with it: a
// reader that blocks on a FIFO blocks its whole process, deaf to the runner's timeouts.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from './repo.js';

/** `file` made a FIFO with no writer: opening it the ordinary way waits forever. */
export function makeFifo(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  execFileSync('mkfifo', [file]);
}

/** `file` made a symbolic link to `target` (/dev/zero: never ends). */
export function makeLink(file: string, target: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.symlinkSync(target, file);
}

/** `file` made a sparse file of `bytes`: as large as that to read, but no room on the disk. */
export function makeHuge(file: string, bytes: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '');
  fs.truncateSync(file, bytes);
}

/**
 * Runs `body` (the text of an async function's body, `out` the compiled tree's path and `arg`
 * the JSON value given) in a child Node.js, and returns what it returns (as JSON) and how long
 * it took. A child that does not end within `timeoutMs` is killed: `value` is then undefined.
 */
export function inChild(body: string, arg: unknown, timeoutMs = 20_000): { value: unknown; ms: number; stderr: string } {
  const script = `const out = ${JSON.stringify(path.join(repoRoot(), 'out'))}; const arg = JSON.parse(process.argv[1]);
(async () => { ${body} })().then((v) => process.stdout.write(JSON.stringify(v ?? null)), (e) => { process.stderr.write(String(e?.stack ?? e)); process.exit(1); });`;
  const started = Date.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(arg)], { encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL' });
  const ms = Date.now() - started;
  return { value: r.status === 0 ? JSON.parse(r.stdout) : undefined, ms, stderr: r.stderr ?? '' };
}
