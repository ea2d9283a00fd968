// The trainer's side of a user env module: the module runs in a worker thread
// (module-worker.ts), and the host here sends it each call of its env copies (remote-env.ts)
// through shared memory (module-protocol.ts), waiting for the answer synchronously, as the env
// API is synchronous, but never longer than `env_timeout` seconds. A late answer, a
// process.exit() in the module or a thrown anything ends the module with a message that says
// which env and which call; Ctrl-C while a call is pending interrupts the wait
// (interruptible-wait.ts).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { GoalFunctions } from './module-env.js';
import { EnvModuleError } from './module-errors.js';
import { waitForAnswer } from './interruptible-wait.js';
import { Channel, FLAG, OP, recordLayout, SLOT, STATUS, type WorkerHello, type WorkerSetup } from './module-protocol.js';
import type { TextReset, TextStep } from './module-text-env.js';
import { GoalRemoteEnv, RemoteEnv, type ModuleInfo, type RemoteCopies } from './remote-env.js';
import type { TextModuleSpec } from '../../dsl/schema/env-module.js';
import { spaceSize, type Env, type FastEnv } from './types.js';

/** A call into the module was cut short by Ctrl-C (SIGINT); the process's SIGINT listeners have been told. */
export class EnvInterruptedError extends Error {
  override name = 'EnvInterruptedError';
}

export interface ModuleHostOptions {
  /** The env's name in the .rlx file, for messages. */
  readonly name: string;
  /** Seconds one load, reset() or step() may take. */
  readonly timeoutSeconds: number;
}

/** What a text module's worker says of it (module-text-env.ts). */
export interface TextModuleInfo {
  readonly kind: string;
  readonly bounds: TextModuleSpec;
  readonly infoFields: readonly string[];
  readonly hasExpert: boolean;
}

/** Step records in the shared buffer at most (fewer for large observations; at least one). */
const MAX_RECORDS = 256;
const MAX_RECORD_BYTES = 4 * 1024 * 1024;

/** A running user env module: makes env copies that live in its worker thread, and steps them together. */
export class ModuleHost implements RemoteCopies {
  readonly layout: ReturnType<typeof recordLayout>;
  /** Results of the last stepAll(), a record per copy, read by the copies' stepInto(). */
  prepared = new Float64Array(0);
  private requests = 0;
  /** Why the worker is gone, once it is. */
  private endedBecause: string | null = null;
  private readonly timeoutMs: number;
  private readonly records: number;
  private readonly actionDim: number;
  /** Per copy: where its prepared record starts, or -1. */
  private preparedAt = new Int32Array(0);
  /** A goal-conditioned module's computeReward, loaded on this thread (user-module.ts). */
  private goalFunctions: GoalFunctions | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly channel: Channel,
    private readonly module: ModuleInfo | TextModuleInfo,
    private readonly options: ModuleHostOptions,
  ) {
    this.timeoutMs = options.timeoutSeconds * 1000;
    this.layout = layoutOf(module);
    this.records = channel.numbers.length / this.layout.width;
    this.actionDim = 'actionSpace' in module ? spaceSize(module.actionSpace) : 0;
    worker.on('exit', (code) => this.end(`env ${options.name}'s module stopped (exit code ${code})`));
    worker.on('error', (err) => this.end(`env ${options.name}'s module failed: ${err.message}`));
    // The trainer's process must not stay alive for an idle worker.
    worker.unref();
  }

  /**
   * Starts the worker on bundled module `code`, waits (at most the timeout) until the module
   * has loaded and a first copy made with `params` passed its probe.
   */
  static async start(code: string, origin: string, params: Record<string, unknown>, options: ModuleHostOptions): Promise<ModuleHost> {
    // The worker imports a file: a private temporary one, removed once it is loaded.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-env-'));
    const file = path.join(dir, 'env-module.mjs');
    fs.writeFileSync(file, code);
    const setup: WorkerSetup = { file, origin, params };
    const worker = new Worker(workerFile(), { workerData: setup, execArgv: [] });
    try {
      const info = await hello(worker, origin, options);
      const { width } = layoutOf(info);
      const records = Math.max(1, Math.min(MAX_RECORDS, Math.floor(MAX_RECORD_BYTES / 8 / width)));
      // Room for twice the params' JSON: a curriculum may lengthen a value as it goes.
      const channel = Channel.create(records * width, 2 * Buffer.byteLength(JSON.stringify(params)) + 1024);
      worker.postMessage(channel.buffer);
      return new ModuleHost(worker, channel, info, options);
    } catch (err) {
      void worker.terminate();
      throw err;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  /** What a numeric module is (its spaces and names). */
  get info(): ModuleInfo {
    if (!('observationSpace' in this.module)) throw new EnvModuleError(`env ${this.options.name} is a text env (spec.actions: 'text'): it has dialogues, not observation vectors`);
    return this.module;
  }

  /** What a text module declares; null for a numeric one. */
  get text(): TextModuleInfo | null {
    return 'bounds' in this.module ? this.module : null;
  }

  /**
   * Gives the copies of a goal-conditioned module the GoalConditioned shape: hindsight
   * relabeling calls them on this thread, synchronously, for each relabeled sample.
   */
  useGoalFunctions(functions: GoalFunctions): void {
    this.goalFunctions = functions;
  }

  /** Makes one env copy from the plan's params, in the worker. */
  create(params: Record<string, unknown>): Env {
    const info = this.info;
    this.writeParams(params);
    this.request(OP.create, -1, 'constructor');
    const copy = this.channel.control[SLOT.copy];
    if (copy >= this.preparedAt.length) {
      const grown = new Int32Array(Math.max(8, 2 * (copy + 1))).fill(-1);
      grown.set(this.preparedAt);
      this.preparedAt = grown;
    }
    const maxSteps = this.channel.scalars[0];
    if (info.goal && this.goalFunctions) return new GoalRemoteEnv(this, info, copy, maxSteps, info.goal, this.goalFunctions);
    return new RemoteEnv(this, info, copy, maxSteps);
  }

  /** Makes one copy of a text module from the plan's params, in the worker; its number for the calls below. */
  createText(params: Record<string, unknown>): number {
    if (!this.text) throw new EnvModuleError(`env ${this.options.name} is not a text env (its spec does not say actions: 'text')`);
    this.writeParams(params);
    this.request(OP.create, -1, 'constructor');
    return this.channel.control[SLOT.copy];
  }

  /** A text copy's reset(seed): the env's opening message. */
  textReset(copy: number, seed: number): TextReset {
    this.channel.scalars[0] = seed;
    this.request(OP.textReset, copy, 'reset()');
    return JSON.parse(this.channel.readText()) as TextReset;
  }

  /** A text copy's step(text): the env's reply, reward, done and success. */
  textStep(copy: number, text: string): TextStep {
    this.channel.writeText(JSON.stringify(text));
    this.request(OP.textStep, copy, 'step()');
    return JSON.parse(this.channel.readText()) as TextStep;
  }

  /** A text copy's expert(): the next good agent turn (null when the module has no expert). */
  textExpert(copy: number): string | null {
    this.request(OP.expert, copy, 'expert()');
    return JSON.parse(this.channel.readText()) as string | null;
  }

  /** A copy's params for the worker, whole: cut JSON would fail in the constructor's place. */
  private writeParams(params: Record<string, unknown>): void {
    const json = JSON.stringify(params);
    if (!this.channel.fits(json)) {
      throw new EnvModuleError(`env ${this.options.name}: its params are ${Buffer.byteLength(json)} bytes of JSON, more than the ${this.channel.text.length} the module's channel holds; pass large data as a file the module reads`);
    }
    this.channel.writeText(json);
  }

  /** Stops the worker; the copies fail from then on. */
  close(): void {
    this.end(`env ${this.options.name}'s module was closed`);
  }

  /** Asks copy `copy` to reset; the observation is at the start of numbers. */
  reset(copy: number, seed: number | undefined): void {
    const { control, scalars } = this.channel;
    control[SLOT.flags] = seed === undefined ? 0 : FLAG.seeded;
    scalars[0] = seed ?? 0;
    this.request(OP.reset, copy, 'reset()');
  }

  /** Steps one copy with actions[offset ..]; its record (layout) is at the start of numbers. */
  stepOne(copy: number, actions: ArrayLike<number>, offset: number): void {
    this.writeRecord(0, copy, actions, offset);
    this.channel.control[SLOT.count] = 1;
    this.request(OP.step, copy, 'step()');
  }

  /** Steps every copy (VecEnv's order and actions) in as few round trips as the buffer allows. */
  stepAll(copies: readonly FastEnv[], actions: ArrayLike<number>, actionDim: number): void {
    const { width } = this.layout;
    if (this.prepared.length < copies.length * width) this.prepared = new Float64Array(copies.length * width);
    for (let start = 0; start < copies.length; start += this.records) {
      const count = Math.min(this.records, copies.length - start);
      for (let j = 0; j < count; j++) this.writeRecord(j, (copies[start + j] as RemoteEnv).copy, actions, (start + j) * actionDim);
      this.channel.control[SLOT.count] = count;
      this.request(OP.step, (copies[start] as RemoteEnv).copy, 'step()');
      this.prepared.set(this.channel.numbers.subarray(0, count * width), start * width);
      for (let j = 0; j < count; j++) this.preparedAt[(copies[start + j] as RemoteEnv).copy] = (start + j) * width;
    }
  }

  /** Where copy `copy`'s record from the last stepAll() starts in `prepared`, once; -1 if there is none. */
  takePrepared(copy: number): number {
    const at = this.preparedAt[copy];
    this.preparedAt[copy] = -1;
    return at;
  }

  /** Step records, or a reset's observation. */
  get numbers(): Float64Array {
    return this.channel.numbers;
  }

  private writeRecord(j: number, copy: number, actions: ArrayLike<number>, offset: number): void {
    const numbers = this.channel.numbers;
    const at = j * this.layout.width;
    numbers[at] = copy;
    for (let k = 0; k < this.actionDim; k++) numbers[at + 1 + k] = actions[offset + k];
  }

  private request(op: number, copy: number, what: string): void {
    if (this.endedBecause !== null) throw new EnvModuleError(this.endedBecause);
    const { control } = this.channel;
    control[SLOT.op] = op;
    control[SLOT.copy] = copy;
    const request = ++this.requests;
    Atomics.store(control, SLOT.request, request);
    Atomics.notify(control, SLOT.request);
    this.awaitAnswer(request, copy, what);
    const status = control[SLOT.status];
    if (status === STATUS.ok) return;
    // A step of several copies names the one that failed.
    const message = `${this.where(op === OP.step ? control[SLOT.copy] : copy)}${this.channel.readText()}`;
    // After process.exit() the thread is gone; after a throw the module may go on.
    if (status === STATUS.exited) this.end(message);
    throw new EnvModuleError(message);
  }

  private where(copy: number): string {
    return copy >= 0 ? `env ${this.options.name}, copy ${copy}: ` : `env ${this.options.name}: `;
  }

  private awaitAnswer(request: number, copy: number, what: string): void {
    const { control } = this.channel;
    // No spinning before sleeping: on a machine with few cores it slows both threads down
    // (measured with bench/module-env.ts).
    const started = performance.now();
    while (Atomics.load(control, SLOT.answer) !== request) {
      const left = started + this.timeoutMs - performance.now();
      if (left <= 0) {
        const late = what === 'step()' ? control[SLOT.copy] : copy;
        const message = `env ${this.options.name}'s ${what} did not return within ${this.options.timeoutSeconds} s (copy ${late}; raise env_timeout in the env's body if it needs longer)`;
        this.end(message);
        throw new EnvModuleError(message);
      }
      if (!waitForAnswer(control, request - 1, left)) {
        const message = `SIGINT while env ${this.options.name}'s ${what} was running (copy ${what === 'step()' ? control[SLOT.copy] : copy})`;
        this.end(message);
        // breakOnSigint took the signal: hand it to the listeners (rlx train's clean stop) as if it had arrived.
        process.emit('SIGINT', 'SIGINT');
        throw new EnvInterruptedError(message);
      }
    }
  }

  private end(reason: string): void {
    if (this.endedBecause !== null) return;
    this.endedBecause = reason;
    void this.worker.terminate();
  }
}

/** Step records of a numeric module; a text module's calls use none (its results travel as JSON). */
function layoutOf(module: ModuleInfo | TextModuleInfo): ReturnType<typeof recordLayout> {
  return 'observationSpace' in module ? recordLayout(spaceSize(module.observationSpace), spaceSize(module.actionSpace), module.infoFields.length) : recordLayout(0, 0);
}

/** Waits for the module's hello; rejects with its message, or after the timeout. */
function hello(worker: Worker, origin: string, options: ModuleHostOptions): Promise<ModuleInfo | TextModuleInfo> {
  return new Promise<ModuleInfo | TextModuleInfo>((resolve, reject) => {
    const fail = (message: string) => {
      cleanup();
      reject(new EnvModuleError(message));
    };
    const timer = setTimeout(() => fail(`the env module ${origin} (env ${options.name}) did not finish loading within ${options.timeoutSeconds} s (env_timeout)`), options.timeoutSeconds * 1000);
    const onMessage = (message: WorkerHello) => {
      if (message.type === 'failed') return fail(message.message);
      cleanup();
      resolve(message as ModuleInfo | TextModuleInfo);
    };
    const onError = (err: Error) => fail(`the env module ${origin} failed while loading: ${err.message}`);
    const onExit = (code: number) => fail(`the env module ${origin} ended while loading (process.exit(${code}) or similar)`);
    const cleanup = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}

/** The worker script, next to this file (compiled: module-worker.js; bundled: module-worker.mjs). */
function workerFile(): URL {
  for (const name of ['./module-worker.js', './module-worker.mjs']) {
    const url = new URL(name, import.meta.url);
    if (fs.existsSync(url)) return url;
  }
  throw new Error(`the worker script module-worker.js is missing next to ${new URL('.', import.meta.url).pathname}`);
}
