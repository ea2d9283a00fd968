// The code verifier: `passes(completion_code(completion), row.tests)` in a text task's reward.
// A completion's code is run against its row's tests in Python, in the sandbox of
// code/sandbox.py (a process per completion, resource limits, no network, no new processes, no
// writes outside a throwaway folder), and scores the fraction of the tests that passed.
//
// Running code is slow next to every other verifier, so a batch's cases run all at once, before
// any completion is scored: the text env evaluates the reward once with `collect()` (passes()
// records its case and answers 0), the cases run in one pool (code/sandbox.py pool, as many at
// once as the machine has cores), and the scoring pass reads each case's fraction back.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InputError } from '../../shared/input-error.js';
import { pythonCommand } from '../envs/python/python-env-plan.js';

/** The code verifier could not run (no Python, a sandbox that died): says what to do. */
export class CodeVerifierError extends InputError {
  override name = 'CodeVerifierError';
}

/** One completion's code and its row's tests. */
export interface CodeCase {
  readonly code: string;
  readonly tests: readonly string[];
}

/** What one case came to: tests passed of those given, and how it ended. */
export interface CodeResult {
  readonly passed: number;
  readonly total: number;
  /** ok (ran to the end), error (the code itself raised), timeout, memory, output, crashed, no-tests. */
  readonly status: string;
  readonly detail: string;
}

/** The limits of one case, and the interpreter (TextTask's `python`, `code_timeout`, `code_memory`). */
export interface CodeLimits {
  /** TextTask's `python` setting: the interpreter's command, or '' for RLX_PYTHON, else python3. */
  readonly python: string;
  readonly seconds: number;
  readonly memoryMb: number;
  /** KiB a case may print or write to a file. */
  readonly outputKb?: number;
}

/** The code of the last complete fenced block of `text` (its language tag dropped), else the whole text. */
export function completionCode(text: string): string {
  const fence = /```[^\n`]*\n([\s\S]*?)```/g;
  let last: string | undefined;
  for (let m = fence.exec(text); m !== null; m = fence.exec(text)) last = m[1];
  return last ?? text;
}

/** The sandbox script, from the source tree or beside a bundle (tools/bundle.ts copies it). */
export function sandboxScript(): string {
  const candidates = ['../../../runtime/rewards/code/sandbox.py', './code-sandbox.py'].map((name) => fileURLToPath(new URL(name, import.meta.url)));
  const found = candidates.find((file) => fs.existsSync(file));
  if (!found) throw new CodeVerifierError(`the code verifier's sandbox script is missing (looked for ${candidates.join(' and ')}); reinstall rlx`);
  return found;
}

/** Runs `cases` in the sandbox, all at once; `owner` names the reward in errors. */
export function runCodeCases(cases: readonly CodeCase[], limits: CodeLimits, owner: string): CodeResult[] {
  if (cases.length === 0) return [];
  const request = JSON.stringify({ cases, limits: { seconds: limits.seconds, memory_mb: limits.memoryMb, output_kb: limits.outputKb ?? 64 } });
  // Every case is killed past its limit (plus the sandbox's 2 s of grace); the pool as a whole
  // gets as long as running them one after another would take, and a start-up allowance.
  const waitMs = (cases.length * (limits.seconds + 3) + 30) * 1000;
  const python = pythonCommand(limits.python, process.env);
  const ran = spawnSync(python, [sandboxScript(), 'pool'], { input: request, encoding: 'utf8', timeout: waitMs, maxBuffer: 64 * 1024 * 1024 + cases.length * 1024, killSignal: 'SIGKILL' });
  if (ran.error && (ran.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new CodeVerifierError(`${owner}: passes() runs code with Python, but "${python}" is not a command here; install Python 3, or name it with TextTask's python setting (or RLX_PYTHON)`);
  }
  if (ran.error || ran.status !== 0) {
    const why = ran.error ? ran.error.message : `exit status ${ran.status}${ran.signal ? ` (${ran.signal})` : ''}`;
    throw new CodeVerifierError(`${owner}: the code verifier's sandbox failed (${why})${ran.stderr ? `: ${ran.stderr.trim().split('\n').slice(-3).join(' ')}` : ''}`);
  }
  let answer: unknown;
  try {
    answer = JSON.parse(ran.stdout);
  } catch {
    throw new CodeVerifierError(`${owner}: the code verifier's sandbox answered what is not JSON: ${ran.stdout.slice(0, 200)}`);
  }
  const results = (answer as { results?: unknown }).results;
  if (!Array.isArray(results) || results.length !== cases.length) throw new CodeVerifierError(`${owner}: the code verifier's sandbox answered ${Array.isArray(results) ? results.length : 'no'} results for ${cases.length} cases`);
  return results as CodeResult[];
}

/** The passes() calls of one reward: a batch's cases, collected, run together, then read back per completion. */
export class CodeCases {
  private limits: CodeLimits = { python: '', seconds: 5, memoryMb: 512 };
  private collecting = false;
  private readonly pending = new Map<string, CodeCase>();
  private results = new Map<string, CodeResult>();
  /** How the last batch's cases ended, counted by status (for the run's metrics). */
  lastStatuses: Record<string, number> = {};

  constructor(private readonly owner: string) {}

  configure(limits: CodeLimits): void {
    this.limits = limits;
  }

  /** The fraction of `tests` that `code` passes: recorded (answering 0) while collecting, else read from the batch's results. */
  passes(code: string, tests: readonly string[]): number {
    const key = JSON.stringify([code, tests]);
    if (this.collecting) {
      if (!this.pending.has(key)) this.pending.set(key, { code, tests });
      return 0;
    }
    let result = this.results.get(key);
    // A case the collecting pass did not see (a caller that scores without collecting first): run it alone.
    if (result === undefined) {
      result = runCodeCases([{ code, tests }], this.limits, this.owner)[0]!;
      this.results.set(key, result);
    }
    return result.total > 0 ? result.passed / result.total : 0;
  }

  /** Runs `evaluateAll` (the reward over every completion of a batch) to find its cases, then runs them together. */
  collect(evaluateAll: () => void): void {
    this.pending.clear();
    this.collecting = true;
    try {
      evaluateAll();
    } finally {
      this.collecting = false;
    }
    const cases = [...this.pending.values()];
    const results = runCodeCases(cases, this.limits, this.owner);
    this.results = new Map(cases.map((c, k) => [JSON.stringify([c.code, c.tests]), results[k]!]));
    this.lastStatuses = {};
    for (const r of results) this.lastStatuses[r.status] = (this.lastStatuses[r.status] ?? 0) + 1;
  }
}
