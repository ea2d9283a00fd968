// The env_timeout of a Python worker while the trainer waits for it in a blocking read: a
// thread of this process (one per JS thread that uses it, started on first use) wakes every
// WATCH_MS, and when the wait it was told of has passed its deadline, kills the worker, which
// ends the read (the pipe's writer is gone). The trainer's thread sleeps in the read instead of
// polling: on a busy machine that leaves the core to the worker, and no exception is raised per
// empty poll. Telling the thread costs two atomic stores per wait, no system call.
import { Worker } from 'node:worker_threads';

/** How often the thread looks: the precision of env_timeout. */
const WATCH_MS = 50;

// Slots of the shared array: the wait's token (0: none; -1: the thread killed its worker), the
// worker's pid, the deadline in ms after `base`.
const TOKEN = 0;
const PID = 1;
const DEADLINE = 2;

const THREAD = `
const { workerData } = require('node:worker_threads');
const slots = new Int32Array(workerData.buffer);
const sleeper = new Int32Array(new SharedArrayBuffer(4));
for (;;) {
  Atomics.wait(sleeper, 0, 0, ${WATCH_MS});
  const token = Atomics.load(slots, ${TOKEN});
  if (token <= 0) continue;
  const pid = Atomics.load(slots, ${PID});
  const deadline = Atomics.load(slots, ${DEADLINE});
  // Still the same wait (the token was set after its pid and deadline), and past its deadline.
  if (Date.now() - workerData.base <= deadline || Atomics.compareExchange(slots, ${TOKEN}, token, -1) !== token) continue;
  try { process.kill(pid, 'SIGKILL'); } catch {}
}
`;

let slots: Int32Array | null = null;
let base = 0;
let lastToken = 0;

function start(): Int32Array {
  const buffer = new SharedArrayBuffer(3 * 4);
  base = Date.now();
  const thread = new Worker(THREAD, { eval: true, workerData: { buffer, base } });
  thread.unref(); // never keeps the trainer alive
  return new Int32Array(buffer);
}

/** Watches a wait for worker `pid` of at most `timeoutMs`; call finish() with the token when the wait ends. */
export function watch(pid: number, timeoutMs: number): number {
  slots ??= start();
  Atomics.store(slots, PID, pid);
  Atomics.store(slots, DEADLINE, Math.min(Date.now() - base + timeoutMs, 0x7fffffff));
  lastToken = lastToken >= 0x7ffffffe ? 1 : lastToken + 1;
  Atomics.store(slots, TOKEN, lastToken);
  return lastToken;
}

/** Ends the watch of `token`; true when the deadline passed and the worker was killed. */
export function finish(token: number): boolean {
  return Atomics.compareExchange(slots!, TOKEN, token, 0) !== token;
}
