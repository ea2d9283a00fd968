// One Python worker process of a python_text(...) env (worker.py serve_text): the bridge's
// process, pipes, watchdog and interpreter choice, spoken to in JSON frames (a text env's steps
// are few beside a model's sampling, so the numeric bridge's fixed binary frames buy nothing
// here). Synchronous, as the dialogue loop that calls it is.
import { PythonEnvError, PythonWorker, type WorkerConfig } from './python-worker.js';

/** Python gets this long to start and import the env's file, at least (as for reward functions). */
const MIN_START_SECONDS = 30;

/** What the worker answers a request: ok with the request's values, a value of the wrong type, or what the env raised. */
export type TextAnswer =
  | ({ readonly ok: true } & Readonly<Record<string, unknown>>)
  | { readonly ok: false; readonly wrong: string }
  | { readonly ok: false; readonly error: string; readonly refused?: boolean };

export interface TextWorkerOptions {
  /** Names the env in every message: `env Shop (python_text "./envs/shop.py:Shop")`. */
  readonly label: string;
  readonly python: string;
  readonly file: string;
  readonly className: string;
  readonly info: readonly string[];
  readonly kwargs: Record<string, unknown>;
  readonly timeoutSeconds: number;
  readonly processEnv?: NodeJS.ProcessEnv;
}

export class PythonTextWorker {
  /** Whether the class has an expert() method (the handshake says). */
  readonly hasExpert: boolean;
  private readonly worker: PythonWorker;

  /** Starts the worker and reads its handshake; PythonEnvError when Python cannot start or load the class. */
  constructor(private readonly options: TextWorkerOptions) {
    const config: WorkerConfig = { id: '', kwargs: options.kwargs, imports: [], maxSteps: 0, text: { file: options.file, className: options.className, info: options.info } };
    this.worker = new PythonWorker(options.label, options.python, config, options.timeoutSeconds * 1000, options.processEnv);
    try {
      const said = this.receive('while starting (importing the env\'s file)', Math.max(options.timeoutSeconds, MIN_START_SECONDS) * 1000) as { ok: boolean; expert?: boolean; error?: string };
      if (!said.ok) {
        const error = (said.error ?? '').trimEnd();
        throw new PythonEnvError(said.error !== undefined && !error.includes('\n') ? `${options.label}: ${error}` : `${options.label}: Python could not load ${options.className}:\n${error}`);
      }
      this.hasExpert = said.expert === true;
      this.worker.connected();
    } catch (err) {
      this.worker.close();
      throw err;
    }
  }

  get pid(): number {
    return this.worker.pid;
  }

  /** One request and its answer; `what` says what it was doing for a timeout or a dead worker ("while calling step() in episode 3"). */
  request(body: Readonly<Record<string, unknown>>, what: string): TextAnswer {
    const json = Buffer.from(JSON.stringify(body), 'utf8');
    const frame = Buffer.alloc(5 + json.length);
    frame.write('T', 0, 'latin1');
    frame.writeUInt32LE(json.length, 1);
    json.copy(frame, 5);
    this.worker.send(frame);
    return this.receive(what) as TextAnswer;
  }

  close(): void {
    this.worker.close();
  }

  /** One answer frame: u32 length, then JSON. */
  private receive(what: string, timeoutMs?: number): unknown {
    const head = new Uint8Array(4);
    this.worker.receive(head, what, timeoutMs);
    const length = new DataView(head.buffer).getUint32(0, true);
    const body = new Uint8Array(length);
    this.worker.receive(body, what, timeoutMs);
    return JSON.parse(Buffer.from(body).toString('utf8'));
  }
}
