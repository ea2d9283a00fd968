// One Python worker process (worker.py beside this module's source) and the two FIFOs it is
// spoken to through. Reads and writes are synchronous, because the trainer's env API is. Until
// the worker has opened its end (the handshake), a read polls a non-blocking end of the results
// FIFO; from then on it blocks in a blocking end until the frame is whole, the worker's end
// closes (it died) or the watchdog kills the worker at the deadline (it hangs; watchdog.ts).
// Linux and macOS (mkfifo).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EnvModuleError } from '../module-errors.js';
import { finish, watch } from './watchdog.js';

/** worker.py: in the source tree when compiled (out/runtime/envs/python/ -> runtime/envs/python/), next to rlx.mjs when bundled (tools/bundle.ts copies it). */
export function workerScript(): string {
  const candidates = ['../../../../runtime/envs/python/worker.py', './python-env-worker.py'].map((name) => fileURLToPath(new URL(name, import.meta.url)));
  const found = candidates.find((file) => fs.existsSync(file));
  if (!found) throw new PythonEnvError(`the Python env worker script is missing (looked for ${candidates.join(' and ')}); reinstall rlx`);
  return found;
}

/** What the worker is asked to make. */
export interface WorkerConfig {
  /** A registered Gymnasium id (gymnasium(...)); '' for a class in a file. */
  readonly id: string;
  /** A python("./file.py:Class") env: the file (absolute) and the class, made by worker.py make_env(). */
  readonly file?: string;
  readonly className?: string;
  readonly kwargs: Record<string, unknown>;
  readonly imports: readonly string[];
  readonly maxSteps: number;
  /** A worker of reward functions instead of an env (worker.py serve_rewards): each file (absolute) and function. */
  readonly rewards?: readonly { readonly file: string; readonly function: string }[];
  /** A worker of a Python text env instead (worker.py serve_text): its file (absolute), class, and the info names step() must report. */
  readonly text?: { readonly file: string; readonly className: string; readonly info: readonly string[] };
}

/** Every worker still running, ended when Node exits however it exits (Ctrl-C included). */
const live = new Set<PythonWorker>();
let exitHook = false;

/** Raised for what a worker says or does wrong; `label` names the env for the message. */
export class PythonEnvError extends EnvModuleError {
  override name = 'PythonEnvError';
}

export class PythonWorker {
  private readonly child: ChildProcess;
  private readonly commands: number;
  private readonly results: number;
  /** The results FIFO again, blocking: read once the worker is connected. */
  private readonly resultsBlocking: number;
  private isConnected = false;
  private readonly log: number;
  private readonly dir: string;
  private closed = false;
  private readonly sleeper = new Int32Array(new SharedArrayBuffer(4));

  /** Starts the worker; `python` is the interpreter's command. Throws PythonEnvError if it cannot start. */
  constructor(readonly label: string, readonly python: string, config: WorkerConfig, readonly timeoutMs: number, env: NodeJS.ProcessEnv = process.env) {
    const script = workerScript();
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-python-env-'));
    const commandsPath = path.join(this.dir, 'commands');
    const resultsPath = path.join(this.dir, 'results');
    try {
      execFileSync('mkfifo', ['-m', '600', commandsPath, resultsPath], { stdio: 'ignore' });
    } catch {
      fs.rmSync(this.dir, { recursive: true, force: true });
      throw new PythonEnvError(`${label}: cannot make the pipes to a Python worker (mkfifo failed); Python envs run on Linux and macOS`);
    }
    // Our reading end does not block; our writing end is opened read-write so that opening it
    // does not wait for the worker (Linux FIFO semantics), and the worker sees its end close when we exit.
    this.results = fs.openSync(resultsPath, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    this.resultsBlocking = openBlockingReader(resultsPath);
    this.commands = fs.openSync(commandsPath, fs.constants.O_RDWR);
    this.log = fs.openSync(path.join(this.dir, 'stderr'), 'w+');
    // Only what worker.py reads, under its names: the caller's options may carry more (the
    // whole process environment), which does not belong on a command line.
    const said: WorkerConfig = {
      id: config.id,
      ...(config.file !== undefined ? { file: config.file, className: config.className ?? '' } : {}),
      kwargs: config.kwargs,
      imports: config.imports,
      maxSteps: config.maxSteps,
      ...(config.rewards ? { rewards: config.rewards } : {}),
      ...(config.text ? { text: config.text } : {}),
    };
    // A process group of its own (detached: setsid), so that what the env starts (a simulator,
    // a server, `sleep` in a subprocess) ends with the worker: close() kills the whole group.
    this.child = spawn(python, ['-u', script, commandsPath, resultsPath, JSON.stringify(said)], {
      stdio: ['ignore', this.log, this.log],
      env: { ...env, PYTHONDONTWRITEBYTECODE: '1' },
      detached: true,
    });
    this.child.on('error', () => {}); // a failed spawn is seen synchronously below (no pid)
    if (this.child.pid === undefined) {
      this.cleanUp();
      throw new PythonEnvError(`${label}: cannot start Python '${python}': not found or not executable; install Python 3 with numpy and gymnasium, or name the interpreter with the env's \`python\` setting or RLX_PYTHON`);
    }
    live.add(this);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => {
        for (const worker of live) worker.close();
      });
    }
  }

  get pid(): number {
    return this.child.pid!;
  }

  /**
   * Removes the FIFOs and the log's name once both ends are open (after the handshake): the
   * open descriptors keep working, and nothing is left in the temporary folder even when the
   * trainer is killed without a chance to clean up.
   */
  connected(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
    this.isConnected = true;
  }

  /** Sends a whole command frame. */
  send(bytes: Uint8Array): void {
    let at = 0;
    while (at < bytes.length) at += fs.writeSync(this.commands, bytes, at, bytes.length - at);
  }

  /**
   * Reads exactly `into.length` bytes, or fails naming `what` (the worker died, or took longer
   * than the timeout); `limit` says where the timeout comes from, for the message.
   */
  receive(into: Uint8Array, what: string, timeoutMs = this.timeoutMs, limit = 'env_timeout'): void {
    if (this.closed) throw new PythonEnvError(`${this.label}: the Python worker was stopped`);
    this.limit = limit;
    if (this.isConnected) this.receiveBlocking(into, what, timeoutMs);
    else this.receivePolling(into, what, timeoutMs);
  }

  /** What the timeout of the receive() under way is, in words. */
  private limit = 'env_timeout';

  /** The worker has its end open: a read returns data, or end of file once it has died (or the watchdog killed it). */
  private receiveBlocking(into: Uint8Array, what: string, timeoutMs: number): void {
    let at = 0;
    const token = watch(this.pid, timeoutMs);
    try {
      while (at < into.length) {
        let got: number;
        try {
          got = fs.readSync(this.resultsBlocking, into, at, into.length - at, null);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EINTR' || (err as NodeJS.ErrnoException).code === 'EAGAIN') continue;
          throw err;
        }
        if (got === 0) break;
        at += got;
      }
    } finally {
      if (finish(token)) this.fail(`${what} did not return within ${timeoutMs / 1000} s (${this.limit}); the worker was stopped`);
    }
    if (at < into.length) this.fail(`the Python worker (pid ${this.pid}) died ${what}`);
  }

  /** Before the handshake: the worker may not have opened its end yet (a read then returns end of file at once). */
  private receivePolling(into: Uint8Array, what: string, timeoutMs: number): void {
    let at = 0;
    let polls = 0;
    const deadline = Date.now() + timeoutMs;
    while (at < into.length) {
      let got: number;
      try {
        got = fs.readSync(this.results, into, at, into.length - at, null);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
        got = -1;
      }
      if (got > 0) {
        at += got;
        continue;
      }
      // EOF: the worker closed its end (it died), or has not opened it yet (still starting).
      if (got === 0 && this.exited()) this.fail(`the Python worker (pid ${this.pid}) died ${what}`);
      polls++;
      if (polls > 200) {
        if (Date.now() > deadline) this.fail(`${what} did not return within ${timeoutMs / 1000} s (${this.limit}); the worker was stopped`);
        Atomics.wait(this.sleeper, 0, 0, polls > 20000 ? 1 : 0.02);
      }
    }
  }

  /** The last lines the worker wrote to stderr (a traceback, when it died of one). */
  stderrTail(lines = 8): string {
    try {
      const size = fs.fstatSync(this.log).size;
      const length = Math.min(size, 8192);
      const buffer = Buffer.alloc(length);
      fs.readSync(this.log, buffer, 0, length, size - length);
      return buffer.toString('utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  /** Kills the worker and every process of its group (what the env started), and removes its FIFOs; harmless when done already. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    live.delete(this);
    killProcessGroup(this.child);
    this.cleanUp();
  }

  private fail(message: string): never {
    const tail = this.stderrTail();
    this.close();
    throw new PythonEnvError(`${this.label}: ${message}${tail ? `\nits last output:\n${tail}` : ''}`);
  }

  /** Whether the process is gone (a zombie counts): /proc on Linux, else a signal 0 probe. */
  private exited(): boolean {
    try {
      const stat = fs.readFileSync(`/proc/${this.pid}/stat`, 'utf8');
      return /\) [ZX] /.test(stat);
    } catch {
      try {
        process.kill(this.pid, 0);
        return false;
      } catch {
        return true;
      }
    }
  }

  private cleanUp(): void {
    for (const fd of [this.commands, this.results, this.resultsBlocking, this.log]) {
      try {
        if (fd !== undefined) fs.closeSync(fd);
      } catch {
        // closed already
      }
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Kills `child` and the processes of its group (it was spawned detached: the group is its own).
 * A process the env started that left the group (setsid of its own) is beyond reach.
 */
export function killProcessGroup(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is empty already
  }
  try {
    child.kill('SIGKILL');
  } catch {
    // gone already
  }
}

/**
 * A blocking reading end of the FIFO at `file`, opened without waiting for the worker: a
 * non-blocking writer opened for the moment (a reader exists: this process's non-blocking
 * one) lets the blocking open return at once. Once that writer is closed, the worker is the
 * only writer, so end of file means it is gone.
 */
function openBlockingReader(file: string): number {
  const writer = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
  try {
    return fs.openSync(file, fs.constants.O_RDONLY);
  } finally {
    fs.closeSync(writer);
  }
}
