// When to probe a Python env at check time, and the answers kept: the provider that `rlx check`
// and the language server (in a trusted workspace) inject into the checker
// (dsl/semantics/python-env.ts). An env is probed once per key:
//
//   the interpreter's resolved path and mtime (a new or upgraded Python probes again), its
//   PYTHONPATH, the worker script's content, and the env: for a registered id, the id, imports
//   and kwargs; for a class in a file, the file's content hash and the class.
//
// Facts are kept in memory for the process and on disk (a small JSON per key under
// $RLX_PROBE_CACHE, else $XDG_CACHE_HOME/rlx/python-probes, else ~/.cache/rlx/python-probes;
// written atomically), so `rlx check` does not import gymnasium every time. A failure (no
// Python, an import error, a timeout) is kept in memory only, and probed again after
// FAILURE_RETRY_MS when asked: installing the missing package is then seen without a restart.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PythonEnvFacts, PythonEnvFactsProvider, PythonEnvProbeFailure, PythonEnvQuery, PythonEnvRead } from '../../../dsl/schema/python-env-facts.js';
import { readInputText } from '../../../shared/input-files.js';
import { makeDirs, writeJsonAtomic } from '../../atomic-files.js';
import { pythonCommand } from './python-env-plan.js';
import { workerScript } from './python-worker.js';
import { factsOf, probePythonEnv, type ProbeResult } from './probe.js';

/** A failed probe is tried again when asked after this long. */
export const FAILURE_RETRY_MS = 60_000;
/** Probes that run at once, at most: a workspace of many Python envs does not start as many interpreters together. */
export const MAX_CONCURRENT_PROBES = 2;
/** Bumped when the facts' form changes, so older cache files are not read (2: goalConditioned; 3: image; 4: actionMask). */
const CACHE_FORMAT = 4;

export interface PythonEnvProbesOptions {
  /** The environment of the probes (PATH, PYTHONPATH, RLX_PYTHON); this process's by default. */
  readonly processEnv?: NodeJS.ProcessEnv;
  /** Where facts are kept on disk; default probeCacheDir(processEnv). */
  readonly cacheDir?: string;
  /** Overrides each probe's timeout (tests). */
  readonly timeoutMs?: number;
  /** Told when what is known of a query changed (a probe answered): its readers should be checked again. */
  readonly onSettled?: (query: PythonEnvQuery) => void;
}

/** The folder of the disk cache. */
export function probeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.RLX_PROBE_CACHE) return env.RLX_PROBE_CACHE;
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'rlx', 'python-probes');
}

interface Known {
  read: PythonEnvFacts | PythonEnvProbeFailure | 'pending';
  /** For a failure: when it may be probed again. */
  retryAt?: number;
}

export class PythonEnvProbes implements PythonEnvFactsProvider {
  private readonly known = new Map<string, Known>();
  private readonly running = new Set<Promise<void>>();
  /** The keys whose probe runs now. */
  private readonly runningKeys = new Set<string>();
  /**
   * The queries that asked about each running probe (by their JSON; a duplicate is only told twice): all are told of its answer.
   * Queries that differ only in what the cache key leaves out (env_timeout) share one probe, and
   * the language server finds the files to check again by the query it is told of.
   */
  private readonly askers = new Map<string, Map<string, PythonEnvQuery>>();
  private readonly processEnv: NodeJS.ProcessEnv;
  private readonly cacheDir: string;
  /** Processes started, for tests and the log. */
  probesStarted = 0;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly options: PythonEnvProbesOptions = {}) {
    this.processEnv = options.processEnv ?? process.env;
    this.cacheDir = options.cacheDir ?? probeCacheDir(this.processEnv);
  }

  lookup(query: PythonEnvQuery): PythonEnvRead {
    const interpreter = resolveInterpreter(pythonCommand(query.python, this.processEnv), this.processEnv);
    const key = cacheKey(query, interpreter, this.processEnv);
    if (this.runningKeys.has(key)) this.askers.get(key)?.set(JSON.stringify(query), query);
    const known = this.known.get(key);
    if (known && (known.retryAt === undefined || Date.now() < known.retryAt)) return known.read;
    if (!known) {
      const stored = this.fromDisk(key);
      if (stored) {
        this.known.set(key, { read: stored });
        return stored;
      }
    }
    if (known && this.runningKeys.has(key)) return known.read;
    this.start(key, query, interpreter, known);
    return this.known.get(key)!.read;
  }

  /** Whether a probe runs now. */
  get busy(): boolean {
    return this.running.size > 0;
  }

  /** Resolves when no probe runs (rlx check waits for its probes, then checks again). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  /** Starts a probe; an earlier failure stays the answer until the new one arrives (no flicker). */
  private start(key: string, query: PythonEnvQuery, interpreter: Interpreter, previous: Known | undefined): void {
    if (!previous) this.known.set(key, { read: 'pending' });
    this.runningKeys.add(key);
    this.askers.set(key, new Map([[JSON.stringify(query), query]]));
    const result: Promise<ProbeResult> = interpreter.path === undefined
      ? Promise.resolve({ kind: 'failed', message: `cannot find Python '${interpreter.command}' on PATH; install Python 3 with numpy and gymnasium, or name the interpreter with the env's \`python\` setting or RLX_PYTHON` })
      : this.inSlot(() => {
        this.probesStarted++;
        return probePythonEnv(query, { python: interpreter.path!, processEnv: this.processEnv, ...(this.options.timeoutMs !== undefined ? { timeoutMs: this.options.timeoutMs } : {}) });
      });
    const done = result.then((read) => {
      this.runningKeys.delete(key);
      const askers = [...(this.askers.get(key)?.values() ?? [])];
      this.askers.delete(key);
      this.running.delete(done);
      const before = this.known.get(key)?.read;
      if (read.kind === 'failed') {
        // The same failure again keeps its object: readers see nothing changed.
        const same = before !== 'pending' && before?.kind === 'failed' && before.message === read.message;
        this.known.set(key, { read: same ? before : read, retryAt: Date.now() + FAILURE_RETRY_MS });
        if (same) return;
      } else {
        this.known.set(key, { read });
        this.toDisk(key, read);
      }
      for (const asker of askers) this.options.onSettled?.(asker);
    });
    this.running.add(done);
  }

  /** Runs `probe` when fewer than MAX_CONCURRENT_PROBES run; a finished one hands its slot to the next waiting. */
  private async inSlot<T>(probe: () => Promise<T>): Promise<T> {
    if (this.active < MAX_CONCURRENT_PROBES) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await probe();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  private fileOf(key: string): string {
    return path.join(this.cacheDir, `${key}.json`);
  }

  private fromDisk(key: string): PythonEnvFacts | undefined {
    try {
      const stored = JSON.parse(readInputText(this.fileOf(key), { what: 'Python env probe cache file', maxBytes: 4 * 2 ** 20 })) as { format?: number; handshake?: unknown };
      if (stored.format !== CACHE_FORMAT) return undefined;
      const facts = factsOf(stored.handshake as Parameters<typeof factsOf>[0]);
      return facts.kind === 'facts' ? facts : undefined;
    } catch {
      return undefined; // missing or damaged: probe again
    }
  }

  private toDisk(key: string, facts: PythonEnvFacts): void {
    try {
      makeDirs(this.cacheDir);
      // Stored as a handshake, so that reading it back goes through the same factsOf().
      const handshake = {
        ok: true,
        observation: { kind: 'box', shape: facts.observationShape },
        observation_names: facts.observationNames,
        action: facts.action.kind === 'continuous' ? { kind: 'box', shape: [facts.action.dims] } : { kind: facts.action.kind, n: facts.action.n },
        max_steps: facts.maxSteps,
        ...(facts.goalConditioned ? { goal: {} } : {}),
        ...(facts.image ? { image: facts.image } : {}),
        ...(facts.actionMask === true ? { action_mask: 'info' } : {}),
      };
      writeJsonAtomic(this.fileOf(key), { format: CACHE_FORMAT, handshake });
    } catch {
      // A cache that cannot be written (read-only home) costs a probe next time, nothing more.
    }
  }
}

interface Interpreter {
  readonly command: string;
  /** The executable, symbolic links resolved; undefined when it cannot be found. */
  readonly path: string | undefined;
  readonly mtimeMs: number;
}

/** The interpreter a command names, as spawn would find it (a path, else PATH). */
export function resolveInterpreter(command: string, env: NodeJS.ProcessEnv): Interpreter {
  const candidates = command.includes('/') ? [path.resolve(command)] : (env.PATH ?? '').split(path.delimiter).filter((d) => d !== '').map((d) => path.join(d, command));
  for (const candidate of candidates) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      const real = fs.realpathSync(candidate);
      const stat = fs.statSync(real);
      if (stat.isFile()) return { command, path: real, mtimeMs: stat.mtimeMs };
    } catch {
      // not here
    }
  }
  return { command, path: undefined, mtimeMs: 0 };
}

let workerHash: string | undefined;

/** The key a probe's answer is kept under (see the head of this file). */
function cacheKey(query: PythonEnvQuery, interpreter: Interpreter, env: NodeJS.ProcessEnv): string {
  if (workerHash === undefined) {
    try {
      workerHash = sha256(fs.readFileSync(workerScript()));
    } catch {
      workerHash = '';
    }
  }
  const envPart = query.file !== undefined
    ? { file: query.file, content: fileHash(query.file), className: query.className ?? '' }
    : { id: query.id, imports: query.imports, kwargs: query.kwargs };
  return sha256(JSON.stringify([CACHE_FORMAT, workerHash, interpreter.path ?? interpreter.command, interpreter.mtimeMs, env.PYTHONPATH ?? '', envPart]));
}

function fileHash(file: string): string {
  try {
    return sha256(fs.readFileSync(file));
  } catch {
    return 'unreadable';
  }
}

function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex').slice(0, 32);
}
