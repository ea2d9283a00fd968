// Runs a sweep's members as `rlx train` child processes, `parallel` at a time. Each member is
// its own process (a crash, a hung env module or a leak stays in it, and the OS spreads them over
// the cores); the scheduler only starts them, reads where each trains (the run directory
// `rlx train` prints on stdout) and how it ended (its status.json, else its exit and last stderr
// line). Children run in their own process group, so Ctrl-C in a terminal reaches the scheduler
// only, which forwards one SIGINT to each: a member stops cleanly (final checkpoint, `stopped`)
// instead of seeing the terminal's SIGINT and a forwarded one, which `rlx train` takes as "exit at
// once".
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readRun } from '../../runtime/run/reader.js';
import type { StatusFile } from '../../runtime/run/run-dir.js';

export interface MemberLaunch {
  index: number;
  /** The `rlx` arguments (`train FILE --sweep S --member K ...` or `train --resume DIR ...`). */
  args: string[];
  /** A resumed member's run directory, known before it starts. */
  runDir?: string;
}

export type MemberState = 'finished' | 'stopped' | 'failed';

export interface MemberOutcome {
  index: number;
  state: MemberState;
  runDir?: string;
  /** Why a member failed: its status.json error, else its last stderr line. */
  error?: string;
  seconds: number;
}

export interface SchedulerOptions {
  /** The rlx entry script run with this Node (bin/rlx.js, or the bundle the editor ships). */
  script: string;
  parallel: number;
  /** Where member K's stderr goes (appended). */
  logFile: (index: number) => string;
  onStart?: (launch: MemberLaunch) => void;
  onRunDir?: (index: number, runDir: string) => void;
  onEnd?: (outcome: MemberOutcome) => void;
}

interface Running {
  launch: MemberLaunch;
  child: ReturnType<typeof spawn>;
}

export class SweepScheduler {
  private readonly running = new Map<number, Running>();
  private stopping = false;

  constructor(private readonly options: SchedulerOptions) {}

  get runningCount(): number {
    return this.running.size;
  }

  /** Starts members from `launches` (taken one at a time, as slots free) until none is left or stop() is called. */
  async run(launches: Iterable<MemberLaunch>): Promise<void> {
    const pending = launches[Symbol.iterator]();
    await new Promise<void>((resolve) => {
      const fill = () => {
        while (!this.stopping && this.running.size < this.options.parallel) {
          const next = pending.next();
          if (next.done) break;
          this.start(next.value, fill);
        }
        if (this.running.size === 0) resolve();
      };
      this.refill = fill;
      fill();
    });
  }

  /** No new members; each running one gets SIGINT (a second call: SIGINT again, which ends them at once). */
  stop(): void {
    this.stopping = true;
    for (const { child } of this.running.values()) {
      try {
        child.kill('SIGINT');
      } catch {
        // already gone: its exit is on its way
      }
    }
    this.refill();
  }

  private refill: () => void = () => {};

  private start(launch: MemberLaunch, then: () => void): void {
    const started = Date.now();
    const log = this.options.logFile(launch.index);
    fs.mkdirSync(path.dirname(log), { recursive: true });
    const logFd = fs.openSync(log, 'a');
    const child = spawn(process.execPath, [this.options.script, ...launch.args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      windowsHide: true,
    });
    this.running.set(launch.index, { launch, child });
    this.options.onStart?.(launch);
    let runDir = launch.runDir;
    let lastLine = '';
    let stdoutRest = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (stdoutRest + chunk).split('\n');
      stdoutRest = lines.pop()!;
      for (const line of lines) {
        if (line.trim() === '' || runDir !== undefined) continue;
        runDir = path.resolve(line.trim());
        this.options.onRunDir?.(launch.index, runDir);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      fs.writeSync(logFd, chunk);
      const lines = chunk.toString('utf8').split('\n').map(plainText).filter((l) => l.trim() !== '');
      // `rlx train: <why>`: the why is the member's error.
      if (lines.length > 0) lastLine = lines.at(-1)!.replace(/^rlx train: /, '');
    });
    let ended = false;
    const end = (code: number | null, spawnError?: Error) => {
      if (ended) return;
      ended = true;
      fs.closeSync(logFd);
      this.running.delete(launch.index);
      const error = spawnError ? `could not start: ${spawnError.message}` : lastLine || `exited with code ${code}`;
      this.options.onEnd?.({ index: launch.index, runDir, seconds: (Date.now() - started) / 1000, ...outcome(runDir, code, error) });
      then();
    };
    child.once('error', (err) => end(null, err));
    // 'close', not 'exit': the last stdout and stderr lines have been read by then.
    // Killed by the signal itself (it came before `rlx train` set its handler): stopped as well.
    child.once('close', (code, signal) => end(signal === 'SIGINT' || signal === 'SIGTERM' ? 130 : code));
  }
}

/** How a member ended: its run directory's status.json when it got that far, else its exit code. */
function outcome(runDir: string | undefined, code: number | null, lastLine: string): { state: MemberState; error?: string } {
  const status = runDir !== undefined ? readStatus(runDir) : undefined;
  if (status?.status === 'finished') return { state: 'finished' };
  if (status?.status === 'stopped' || code === 130 || code === 143) return { state: 'stopped' };
  if (code === 0 && status === undefined) return { state: 'finished' };
  return { state: 'failed', error: status?.error ?? (status?.status === 'failed' ? status.reason : undefined) ?? lastLine };
}

function readStatus(runDir: string): StatusFile | undefined {
  return readRun(runDir).status;
}

/** A stderr line without terminal colours and the progress bar's carriage returns. */
function plainText(line: string): string {
  // eslint-disable-next-line no-control-regex
  return line.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').split('\r').at(-1)!.trim();
}
