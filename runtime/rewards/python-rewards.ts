// Python reward functions: `term acc = python("./rewards.py:accuracy")` in a single-turn text
// task's reward. Each function is called as TRL calls one (prompts=, completions=,
// completion_ids=, and the rows' other columns as keyword arguments, a list each), once per batch
// of completions, in one Python worker process of the Gymnasium bridge (../envs/python/: the same
// worker.py, pipes, watchdog and interpreter choice). What comes back is checked before any of it
// is used: a list of one number or None per completion, every number finite; anything else fails
// the batch with a RewardError naming the function and the row. None means "not scored by this
// function" (TRL's rule): the terms that read it are left out of that completion's total.
import type { DatasetMessage } from '../../dsl/schema/dataset.js';
import { parsePythonFunction } from '../../dsl/schema/python-reward.js';
import { PythonEnvError, PythonWorker } from '../envs/python/python-worker.js';
import { pythonCommand, pythonRewardFile } from '../envs/python/python-env-plan.js';
import { ExprError } from './expr.js';
import { InputError } from '../../shared/input-error.js';

/** A reward function's failure (it raised, hung, or returned what is not one reward per completion): the message names the function and the row. */
export class PythonRewardError extends InputError {
  override name = 'PythonRewardError';
}

/** One completion to score, with what its prompt came from. */
export interface RewardSample {
  readonly prompt: string;
  /** A conversational prompt: the functions get it as messages, and the completion as [{"role": "assistant", "content": ...}]. */
  readonly messages?: readonly DatasetMessage[];
  readonly completion: string;
  /** The policy's token ids of the completion (its stop token not included). */
  readonly completionIds: readonly number[];
  /** The dataset row (its columns become keyword arguments); a generated task has none. */
  readonly row?: Readonly<Record<string, unknown>>;
  /** The row in words, for errors: `./data.jsonl line 12`. */
  readonly where: string;
}

/** Where and how the functions run: the .rlx file's folder (or a run folder that recorded the files), the interpreter, the timeout. */
export interface PythonRewardPlace {
  readonly baseDir?: string;
  /** TextTask's `python` setting ('' for RLX_PYTHON, else python3). */
  readonly python?: string;
  /** TextTask's `reward_timeout`, seconds one call may take. */
  readonly timeoutSeconds?: number;
  readonly processEnv?: NodeJS.ProcessEnv;
}

/** The columns TRL does not pass as keyword arguments (they are the prompts and completions themselves). */
const NOT_COLUMNS = new Set(['prompt', 'completion', 'completion_ids']);

/** Python gets this long to start and import a reward file, at least. */
const MIN_START_SECONDS = 30;

/** The python(...) calls of one reward, each function once, and its last batch's values. */
export class PythonRewardFunctions {
  readonly functions: { readonly spec: string; readonly file: string; readonly function: string }[] = [];
  /** Per function, per completion of the last batch: the value, and whether it was None. */
  private values: Float64Array[] = [];
  private none: Uint8Array[] = [];
  private worker: PythonWorker | undefined;
  private place: PythonRewardPlace = {};

  constructor(private readonly owner: string) {}

  /** The slot of `spec`'s function (a second call of one function shares it). Throws ExprError for a malformed spec. */
  slot(spec: string): number {
    const parsed = parsePythonFunction(spec);
    if (typeof parsed === 'string') throw new ExprError(`python(${JSON.stringify(spec)}): ${parsed}`);
    const found = this.functions.findIndex((f) => f.file === parsed.file && f.function === parsed.function);
    if (found >= 0) return found;
    return this.functions.push({ spec, ...parsed }) - 1;
  }

  get size(): number {
    return this.functions.length;
  }

  /** Where the files are and which Python runs them; before the first score(). */
  configure(place: PythonRewardPlace): void {
    this.place = place;
  }

  /** The absolute path of each function's file: from a run folder's record, else relative to the .rlx file's folder. */
  resolvedFiles(): string[] {
    return this.functions.map((f) => {
      const found = pythonRewardFile(f.file, this.place.baseDir);
      if (typeof found !== 'string') throw new PythonRewardError(`${this.owner}: python(${JSON.stringify(f.spec)}): ${found.problem}`);
      return found;
    });
  }

  /** Calls every function on `samples`, once each, and checks what each returned; throws PythonRewardError naming the function and the row. */
  score(samples: readonly RewardSample[]): void {
    const worker = this.worker ?? this.start();
    const request = requestOf(samples);
    this.values = [];
    this.none = [];
    this.functions.forEach((f, k) => {
      const label = `${this.owner}: python(${JSON.stringify(f.spec)})`;
      const answer = this.call(worker, k, request, samples, label);
      const { values, none } = checkedValues(answer, samples, label);
      this.values.push(values);
      this.none.push(none);
    });
  }

  /** Sets the context's python values to completion `r` of the last batch. */
  select(values: Float64Array, none: Uint8Array, r: number): void {
    for (let k = 0; k < this.functions.length; k++) {
      values[k] = this.values[k]![r]!;
      none[k] = this.none[k]![r]!;
    }
  }

  close(): void {
    this.worker?.close();
    this.worker = undefined;
  }

  private start(): PythonWorker {
    const files = this.resolvedFiles();
    const timeout = this.place.timeoutSeconds ?? 60;
    const python = pythonCommand(this.place.python ?? '', this.place.processEnv ?? process.env);
    const rewards = this.functions.map((f, k) => ({ file: files[k]!, function: f.function }));
    const worker = new PythonWorker(`${this.owner}: the Python reward functions`, python, { id: '', kwargs: {}, imports: [], maxSteps: 0, rewards }, timeout * 1000, this.place.processEnv);
    try {
      const said = receiveJson(worker, 'while starting (importing the reward files)', Math.max(timeout, MIN_START_SECONDS) * 1000) as { ok: boolean; error?: string };
      if (!said.ok) throw new PythonRewardError(`${this.owner}: Python could not load the reward functions (${this.functions.map((f) => f.spec).join(', ')}):\n${said.error ?? ''}`);
      worker.connected();
    } catch (err) {
      worker.close();
      if (err instanceof PythonEnvError) throw new PythonRewardError(err.message, { cause: err });
      throw err;
    }
    this.worker = worker;
    return worker;
  }

  private call(worker: PythonWorker, k: number, request: Record<string, unknown>, samples: readonly RewardSample[], label: string): unknown {
    const body = Buffer.from(JSON.stringify({ function: k, ...request }), 'utf8');
    const frame = Buffer.alloc(5 + body.length);
    frame.write('W', 0, 'latin1');
    frame.writeUInt32LE(body.length, 1);
    body.copy(frame, 5);
    let answer: { ok: boolean; values?: unknown; error?: string };
    try {
      worker.send(frame);
      answer = receiveJson(worker, `while scoring ${samples.length} completions (rows ${rowsOf(samples)})`, undefined, 'reward_timeout') as typeof answer;
    } catch (err) {
      this.worker = undefined;
      if (err instanceof PythonEnvError) throw new PythonRewardError(`${label}: ${err.message.replace(/^[^:]*: the Python reward functions: /, '')}`, { cause: err });
      throw err;
    }
    if (!answer.ok) throw new PythonRewardError(`${label} raised on ${samples.length} completions (rows ${rowsOf(samples)}), so nothing was trained on them:\n${answer.error ?? ''}`);
    return answer.values;
  }
}

/** TRL's arguments for a batch: prompts and completions (messages where the prompt is a conversation), completion ids, and each column a list. */
function requestOf(samples: readonly RewardSample[]): Record<string, unknown> {
  const names = new Set<string>();
  for (const s of samples) for (const name of Object.keys(s.row ?? {})) if (!NOT_COLUMNS.has(name)) names.add(name);
  // A row without a column others have gives None there, as a datasets.Dataset would.
  const columns = Object.fromEntries([...names].map((name) => [name, samples.map((s) => (s.row && Object.hasOwn(s.row, name) ? s.row[name] : null))]));
  return {
    prompts: samples.map((s) => s.messages ?? s.prompt),
    completions: samples.map((s) => (s.messages ? [{ role: 'assistant', content: s.completion }] : s.completion)),
    completion_ids: samples.map((s) => s.completionIds),
    columns,
  };
}

/** The rows of a batch in words: the first few. */
function rowsOf(samples: readonly RewardSample[]): string {
  const distinct = [...new Set(samples.map((s) => s.where))];
  return distinct.length <= 4 ? distinct.join(', ') : `${distinct.slice(0, 4).join(', ')} and ${distinct.length - 4} more`;
}

/** What a function returned, checked: one number or None per completion, every number finite. */
function checkedValues(answer: unknown, samples: readonly RewardSample[], label: string): { values: Float64Array; none: Uint8Array } {
  const n = samples.length;
  if (!Array.isArray(answer)) {
    const returned = typeof answer === 'object' && answer !== null && 'returned' in answer ? String((answer as { returned: unknown }).returned) : typeof answer;
    throw new PythonRewardError(`${label} returned a ${returned}, not a list of ${n} rewards (one per completion; None where it does not score one)`);
  }
  if (answer.length !== n) throw new PythonRewardError(`${label} returned ${answer.length} rewards for ${n} completions (rows ${rowsOf(samples)}); it must return one per completion (None where it does not score one)`);
  const values = new Float64Array(n);
  const none = new Uint8Array(n);
  answer.forEach((value: unknown, r) => {
    if (value === null) none[r] = 1;
    else if (typeof value === 'number') values[r] = value;
    else {
      const what = typeof value === 'object' && 'nonfinite' in value ? String((value as { nonfinite: unknown }).nonfinite) : `a ${String((value as { type?: unknown }).type ?? typeof value)}`;
      throw new PythonRewardError(`${label} returned ${what} for completion ${r + 1} of ${n} (row ${samples[r]!.where}); a reward must be a finite number, or None where the function does not score it`);
    }
  });
  return { values, none };
}

/** One answer frame: u32 length, then JSON. */
function receiveJson(worker: PythonWorker, what: string, timeoutMs?: number, limit?: string): unknown {
  const head = new Uint8Array(4);
  worker.receive(head, what, timeoutMs, limit ?? 'reward_timeout');
  const length = new DataView(head.buffer).getUint32(0, true);
  const body = new Uint8Array(length);
  worker.receive(body, what, timeoutMs, limit ?? 'reward_timeout');
  return JSON.parse(Buffer.from(body).toString('utf8'));
}
