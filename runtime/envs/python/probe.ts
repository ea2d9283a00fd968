// One probe of a gymnasium(...) env at check time: the env's worker (worker.py) started with
// `--probe`, which makes one copy, prints the handshake's JSON and exits. Asynchronous (the
// language server's thread never waits on Python) and bounded by a timeout, after which the
// process is killed. The answer becomes what the checker knows (dsl/semantics/python-env.ts);
// probe-cache.ts decides when to probe and keeps the answers.
import { spawn } from 'node:child_process';
import type { PythonEnvAction, PythonEnvFacts, PythonEnvProbeFailure, PythonEnvQuery } from '../../../dsl/schema/python-env-facts.js';
import { killProcessGroup, workerScript, type WorkerConfig } from './python-worker.js';

/**
 * Seconds a probe may take beyond the env's env_timeout: Python's start and `import gymnasium`
 * (about 1 s here; a few seconds with torch or MuJoCo behind an import). The env's own
 * env_timeout (30 s by default) covers gymnasium.make, as it covers a reset() in training.
 */
export const PROBE_START_SECONDS = 10;

/** The most a probe's output is read: a handshake is a few kilobytes (Box bounds per number). */
const MAX_OUTPUT_BYTES = 4 * 2 ** 20;

export type ProbeResult = PythonEnvFacts | PythonEnvProbeFailure;

export interface ProbeOptions {
  /** The interpreter's command (resolved or as written). */
  readonly python: string;
  /** The environment of the Python process (PYTHONPATH, for tests); this process's by default. */
  readonly processEnv?: NodeJS.ProcessEnv;
  /** Default: PROBE_START_SECONDS + the query's env_timeout. */
  readonly timeoutMs?: number;
}

/** The default time a probe of `query` may take. */
export function probeTimeoutMs(query: PythonEnvQuery): number {
  return (PROBE_START_SECONDS + query.envTimeout) * 1000;
}

/** Runs the probe; never rejects: what went wrong is a failure with one line of explanation. */
export function probePythonEnv(query: PythonEnvQuery, options: ProbeOptions): Promise<ProbeResult> {
  const timeoutMs = options.timeoutMs ?? probeTimeoutMs(query);
  // max_steps 0: the id's own limit is what the checker learns; the declaration's applies on top.
  const made = query.file !== undefined ? { id: '', file: query.file, className: query.className ?? '' } : { id: query.id };
  // The worker's own config (WorkerConfig): maxSteps 0 keeps the env's registered limit, which the facts report.
  const config: WorkerConfig = { ...made, kwargs: { ...query.kwargs }, imports: query.imports, maxSteps: 0 };
  return new Promise((resolve) => {
    let script: string;
    try {
      script = workerScript();
    } catch (err) {
      resolve(failed((err as Error).message));
      return;
    }
    // Its own process group (as python-worker.ts's workers): what the env starts ends with the probe.
    const child = spawn(options.python, ['-u', script, '--probe', JSON.stringify(config)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...(options.processEnv ?? process.env), PYTHONDONTWRITEBYTECODE: '1' },
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let done = false;
    const finish = (result: ProbeResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(result);
    };
    const timer = setTimeout(() => {
      killProcessGroup(child);
      finish(failed(`Python did not answer within ${timeoutMs / 1000} s (env_timeout plus ${PROBE_START_SECONDS} s to start); training would wait as long`));
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdout.length < MAX_OUTPUT_BYTES) stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-8192);
    });
    child.on('error', (err) => {
      finish(failed(`cannot start Python '${options.python}': ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : err.message}; install Python 3 with numpy and gymnasium, or name the interpreter with the env's \`python\` setting or RLX_PYTHON`));
    });
    // The worker has answered and exited: what its env started goes too (it may hold the pipes
    // open, which would keep 'close' from coming).
    child.on('exit', () => killProcessGroup(child));
    child.on('close', (code, signal) => {
      const answer = lastLine(stdout);
      if (answer.startsWith('{')) {
        try {
          finish(factsOf(JSON.parse(answer) as Handshake));
          return;
        } catch {
          // not the handshake: explained below
        }
      }
      const why = lastLine(stderr) || (signal ? `killed by ${signal}` : `exit status ${code}`);
      finish(failed(`Python did not describe the env: ${why}`));
    });
  });
}

/** What worker.py's describe() (or failure()) prints. */
interface Handshake {
  readonly ok: boolean;
  readonly error?: string;
  /** worker.py's Refusal: a space rlx does not take. */
  readonly refused?: boolean;
  readonly observation?: { kind: string; shape?: number[] };
  readonly action?: { kind: string; n?: number; shape?: number[] };
  readonly max_steps?: number | null;
  /** Names of the observation numbers, where the worker gives them (a Dict space's keys, say). */
  readonly observation_names?: unknown;
  /** Where a goal env's goals are (worker.py goal_of()); absent for other envs. */
  readonly goal?: unknown;
  /** The observation's first Box of uint8 pixels (worker.py image_of()); absent without one. */
  readonly image?: { key?: unknown; shape?: unknown };
  /** Where a Discrete env's action masks come from (worker.py action_mask_source()); absent without them. */
  readonly action_mask?: unknown;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The facts a handshake gives, or the failure it reports (its traceback's last line). */
export function factsOf(handshake: Handshake): ProbeResult {
  if (!handshake.ok) {
    const message = lastLine(handshake.error ?? '') || 'the env could not be made';
    return handshake.refused === true ? { kind: 'failed', message, refused: true } : failed(message);
  }
  const { observation, action } = handshake;
  const size = observation?.kind === 'discrete' ? 1 : observation?.kind === 'box' ? product(observation.shape ?? []) : undefined;
  const given = handshake.observation_names;
  const named = Array.isArray(given) && given.every((n) => typeof n === 'string' && NAME.test(n)) ? (given as string[]) : undefined;
  const names = named ?? (size === undefined ? undefined : Array.from({ length: size }, (_, i) => `x${i}`));
  const kind: PythonEnvAction | undefined =
    action?.kind === 'discrete' || action?.kind === 'multibinary'
      ? { kind: action.kind, n: action.n ?? 0 }
      : action?.kind === 'box'
        ? { kind: 'continuous', dims: product(action.shape ?? []) }
        : undefined;
  if (!names || !kind) return failed(`the checker does not know the spaces this worker describes (observation ${observation?.kind ?? 'none'}, action ${action?.kind ?? 'none'})`);
  return {
    kind: 'facts',
    observationNames: names,
    observationShape: observation?.shape ?? [],
    action: kind,
    maxSteps: typeof handshake.max_steps === 'number' ? handshake.max_steps : null,
    goalConditioned: typeof handshake.goal === 'object' && handshake.goal !== null,
    image: imageOf(handshake.image),
    ...(handshake.action_mask === 'info' || handshake.action_mask === 'method' ? { actionMask: true } : {}),
  };
}

function failed(message: string): PythonEnvProbeFailure {
  return { kind: 'failed', message };
}

function lastLine(text: string): string {
  const lines = text.trimEnd().split('\n');
  return (lines[lines.length - 1] ?? '').trim();
}

function product(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

function imageOf(image: Handshake['image']): PythonEnvFacts['image'] {
  if (typeof image !== 'object' || image === null) return null;
  const shape = Array.isArray(image.shape) && image.shape.every((d) => Number.isInteger(d)) ? (image.shape as number[]) : [];
  return { key: typeof image.key === 'string' ? image.key : '', shape };
}
