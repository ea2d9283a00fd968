// Gymnasium environments in Python worker processes (`env Cart = gymnasium("CartPole-v1")`):
// the copies the trainer asks for, each a FastEnv whose reset() and step() run in a worker
// (python-worker.ts, worker.py). Copies are handed out in order and packed
// `copies_per_process` to a worker, so `num_envs: 8` with `copies_per_process: 4` runs two
// processes, stepped in parallel: VecEnv steps all copies through stepAll() (CopyBatch), which
// sends every worker its frame before it reads any answer.
import { PYTHON_GOAL_ENV } from '../../../dsl/schema/python-env.js';
import { Rng } from '../../../shared/random.js';
import { spaceSize, type FastEnv, type GoalConditioned, type GoalOutcomes, type ResetResult, type RgbFrame, type Space, type StepResult } from '../types.js';
import type { CopyBatch } from '../vector.js';
import { PythonEnvError, PythonWorker, type WorkerConfig } from './python-worker.js';

export { PythonEnvError } from './python-worker.js';

/** How a gymnasium(...) env runs, from its declaration (python-env-config.ts reads it from the plan). */
export interface PythonEnvOptions extends WorkerConfig {
  /** The env's name in the .rlx file, for messages. */
  readonly name: string;
  /** The interpreter's command. */
  readonly python: string;
  readonly timeoutSeconds: number;
  readonly copiesPerProcess: number;
  /** The environment of the worker processes (PYTHONPATH for tests); this process's by default. */
  readonly processEnv?: NodeJS.ProcessEnv;
  /** The observation names the declaration gives (`observations: [...]`); empty or absent: the env's own, else x0, x1, ... */
  readonly observations?: readonly string[];
}

const FLAG_TERMINATED = 1;
const FLAG_TRUNCATED = 2;
/** info["is_success"] of the step (Gymnasium-Robotics' goal envs report it). */
const FLAG_SUCCESS = 4;
/**
 * The step ended an episode whose info["episode"]["r"] gives its return (RecordEpisodeStatistics):
 * the number follows the step's records. Under a reward-normalising wrapper the rewards rlx
 * sums are the normalised ones; the env's own count is the return to log.
 */
const FLAG_EPISODE_RETURN = 8;
/** Either end of an episode: the worker of a vector step ("A") then resets the copy and sends its first observation. */
const ENDED = FLAG_TERMINATED | FLAG_TRUNCATED;
/** Seconds a worker may take to import gymnasium and make its first copy, at least. */
const MIN_START_SECONDS = 60;

interface Handshake {
  readonly ok: boolean;
  readonly error?: string;
  readonly observation?: Space;
  /** Names of the observation's numbers: a Dict's from its keys, else x0, x1, ... */
  readonly observation_names?: readonly string[];
  readonly action?: Space;
  /** A goal env's goals, by observation name, and whether it has compute_terminated. */
  readonly goal?: PythonGoal;
  /** The episode limit in force (the id's registered one when max_steps is 0); null when none. */
  readonly max_steps?: number | null;
  /** The env's render_mode (gymnasium.make's kwargs); "rgb_array" gives frames (worker.py render_frame). */
  readonly render_mode?: string | null;
  /** A Discrete env that gives action masks: from info["action_mask"] or its action_masks() method (worker.py action_mask_source). */
  readonly action_mask?: 'info' | 'method';
}

export interface PythonGoal {
  readonly achieved: readonly string[];
  readonly desired: readonly string[];
  readonly terminated: boolean;
}

/** A goal named by the worker's observation names, named by the copies' (declared `observations` rename them). */
function renameGoal(goal: PythonGoal, workerNames: readonly string[], obsFields: readonly string[]): PythonGoal {
  const rename = (name: string) => obsFields[workerNames.indexOf(name)] ?? name;
  return { ...goal, achieved: goal.achieved.map(rename), desired: goal.desired.map(rename) };
}

/** Episodes of an env with no limit of its own still end somewhere, for the trainer's bookkeeping. */
const NO_LIMIT = 1_000_000;
/** The largest frame a worker may send (4096 x 4096 RGBA); a larger one is refused rather than read. */
const MAX_FRAME_BYTES = 4096 * 4096 * 4;

/** The workers of one gymnasium(...) env and the copies they hold. */
export class PythonEnvs implements CopyBatch {
  readonly observationSpace: Space;
  readonly actionSpace: Space;
  readonly obsDim: number;
  readonly actionDim: number;
  /** Numbers of one action mask the worker sends after each observation: the discrete actions, for an env that masks them; else 0. */
  readonly maskWidth: number;
  /** Numbers of an observation as the worker sends it: the observation, then its action mask. */
  readonly obsWidth: number;
  readonly record: number;
  readonly maxSteps: number;
  /** Whether the env was made with render_mode "rgb_array", so that its copies draw frames. */
  readonly rendersFrames: boolean;
  /** Where a goal env's goals are (by name in obsFields); null for other envs. */
  readonly goal: PythonGoal | null;
  /** The names of the observation numbers, for `obs.NAME` in reward terms. */
  readonly obsFields: readonly string[];
  /** Records of the last stepAll(), by copy number. */
  prepared = new Float64Array(0);
  private preparedFor = new Uint8Array(0);
  /** The first observations of the episodes the last stepAll() started (the worker resets a copy whose episode ended), by copy number. */
  private preparedResets = new Float64Array(0);
  private preparedResetFor = new Uint8Array(0);
  /** info["episode"]["r"] of the episode each copy's last step ended (FLAG_EPISODE_RETURN), by copy number. */
  episodeReturns = new Float64Array(0);
  private readonly workers: PythonWorker[] = [];
  private readonly copies: PythonEnvCopy[] = [];
  /** Per worker, for stepAll(): the rows of `copies` it steps (no allocation per step). */
  private readonly rowsOf: Int32Array[] = [];
  private readonly rowCounts: number[] = [];
  private readonly steppingTexts: { first: number; last: number; text: string }[] = [];
  private frame = new Uint8Array(0);
  /** Copies in the last worker, and the kwargs it was made with (as JSON). */
  private copiesInLast = 1;
  private lastKwargs: string;
  /** The frame's numbers, after the opcode (longer than a command's: send the count). */
  private frameNumbers = new Float64Array(0);
  private reply = new Uint8Array(0);
  private replyNumbers = new Float64Array(0);

  /** Starts the first worker and learns the env's spaces from it; throws PythonEnvError with the reason when it cannot. */
  constructor(readonly options: PythonEnvOptions) {
    this.lastKwargs = JSON.stringify(options.kwargs);
    const first = this.startWorker();
    const spaces = this.handshake(first);
    this.observationSpace = withInfiniteBounds(spaces.observation!);
    this.actionSpace = withInfiniteBounds(spaces.action!);
    this.obsDim = spaceSize(this.observationSpace);
    this.actionDim = spaceSize(this.actionSpace);
    this.maskWidth = spaces.action_mask !== undefined && this.actionSpace.kind === 'discrete' ? this.actionSpace.n : 0;
    this.obsWidth = this.obsDim + this.maskWidth;
    this.record = this.obsWidth + 2;
    this.maxSteps = options.maxSteps || spaces.max_steps || NO_LIMIT;
    this.rendersFrames = spaces.render_mode === 'rgb_array';
    this.obsFields = this.observationNames(spaces);
    this.goal = spaces.goal ? renameGoal(spaces.goal, spaces.observation_names ?? [], this.obsFields) : null;
  }

  get label(): string {
    const { id, file, className } = this.options;
    return file ? `env ${this.options.name} (python class ${className ?? ''} in ${file})` : `env ${this.options.name} (gymnasium "${id}")`;
  }

  /** The declared names (as many as the observation has numbers), else the env's own, else x0, x1, ... */
  private observationNames(spaces: Handshake): readonly string[] {
    const declared = this.options.observations ?? [];
    if (declared.length > 0) {
      if (declared.length !== this.obsDim) {
        this.close();
        throw new PythonEnvError(`${this.label}: the declaration names ${declared.length} observations (observations: [${declared.join(', ')}]), but the env's observation space has ${this.obsDim} numbers; name each of them, in order`);
      }
      return [...declared];
    }
    const own = spaces.observation_names;
    if (Array.isArray(own) && own.length === this.obsDim && own.every((n) => typeof n === 'string')) return [...own];
    return Array.from({ length: this.obsDim }, (_, k) => `x${k}`);
  }

  /**
   * The next copy: in the last worker while it has room and was made with the same kwargs, else
   * in a new one. `kwargs` (a curriculum's new value) replace the declaration's; the new copies
   * must have the spaces of the first.
   */
  create(kwargs: Readonly<Record<string, unknown>> = this.options.kwargs): PythonEnvCopy {
    const number = this.copies.length;
    const key = JSON.stringify(kwargs);
    let workerIndex = this.workers.length - 1;
    let slot = this.copiesInLast;
    if (number === 0 && key === this.lastKwargs) {
      slot = 0; // the first worker holds its first copy since the handshake
    } else if (slot >= this.options.copiesPerProcess || key !== this.lastKwargs) {
      workerIndex = this.workers.length;
      slot = 0;
      this.checkSameSpaces(this.handshake(this.startWorker(kwargs)), kwargs);
    } else {
      this.growWorker(this.workers[workerIndex]!);
    }
    this.copiesInLast = slot + 1;
    this.lastKwargs = key;
    const copy = this.goal !== null ? new GoalPythonEnvCopy(this, number, workerIndex, slot, this.goal) : new PythonEnvCopy(this, number, workerIndex, slot);
    this.copies.push(copy);
    if (this.prepared.length < this.copies.length * this.record) {
      const room = this.copies.length * 2;
      this.prepared = grow(this.prepared, room * this.record);
      this.preparedFor = grow(this.preparedFor, room);
      this.preparedResets = grow(this.preparedResets, room * this.obsWidth);
      this.preparedResetFor = grow(this.preparedResetFor, room);
      this.episodeReturns = grow(this.episodeReturns, room);
    }
    const rows = this.rowsOf[workerIndex];
    if (!rows || rows.length <= slot) this.rowsOf[workerIndex] = grow(rows ?? new Int32Array(0), this.options.copiesPerProcess);
    return copy;
  }

  /**
   * Steps `copies` together: every worker gets its frame before any answer is read. A copy
   * whose episode ends is reset by its worker in the same round trip (unseeded, as Gymnasium's
   * SyncVectorEnv does); its first observation waits for the copy's resetInto().
   */
  stepAll(copies: readonly FastEnv[], actions: ArrayLike<number>, actionDim: number): void {
    const { rowsOf, rowCounts } = this;
    const workerCount = this.workers.length;
    for (let w = 0; w < workerCount; w++) rowCounts[w] = 0;
    for (let row = 0; row < copies.length; row++) {
      const w = (copies[row] as PythonEnvCopy).worker;
      rowsOf[w]![rowCounts[w]!++] = row;
    }
    for (let w = 0; w < workerCount; w++) {
      const count = rowCounts[w]!;
      if (count === 0) continue;
      const rows = rowsOf[w]!;
      const length = 1 + count * (1 + actionDim);
      const numbers = this.commandFrame('A', length);
      numbers[0] = count;
      for (let k = 0; k < count; k++) {
        const row = rows[k]!;
        const at = 1 + k * (1 + actionDim);
        numbers[at] = (copies[row] as PythonEnvCopy).slot;
        for (let j = 0; j < actionDim; j++) numbers[at + 1 + j] = actions[row * actionDim + j]!;
      }
      this.sendFrame(w, length);
    }
    const { record, obsWidth, prepared, preparedFor, preparedResets, preparedResetFor } = this;
    for (let w = 0; w < workerCount; w++) {
      const count = rowCounts[w]!;
      if (count === 0) continue;
      const rows = rowsOf[w]!;
      const what = this.steppingText(w, (copies[rows[0]!] as PythonEnvCopy).number, (copies[rows[count - 1]!] as PythonEnvCopy).number);
      let numbers = this.receive(w, count * record, 0, what);
      let ended = 0;
      let returns = 0;
      for (let k = 0; k < count; k++) {
        const number = (copies[rows[k]!] as PythonEnvCopy).number;
        const from = k * record;
        const to = number * record;
        for (let j = 0; j < record; j++) prepared[to + j] = numbers[from + j]!;
        preparedFor[number] = 1;
        preparedResetFor[number] = 0;
        const flags = numbers[from + record - 1]!;
        if ((flags & ENDED) !== 0) ended++;
        if ((flags & FLAG_EPISODE_RETURN) !== 0) returns++;
      }
      if (ended === 0 && returns === 0) continue;
      // Then the episodes' returns the env reported, and the first observations of the episodes the worker started.
      numbers = this.receive(w, returns + ended * obsWidth, count * record, what);
      let at = count * record;
      for (let k = 0; k < count; k++) {
        if ((numbers[k * record + record - 1]! & FLAG_EPISODE_RETURN) === 0) continue;
        this.episodeReturns[(copies[rows[k]!] as PythonEnvCopy).number] = numbers[at++]!;
      }
      for (let k = 0; k < count; k++) {
        if ((numbers[k * record + record - 1]! & ENDED) === 0) continue;
        const number = (copies[rows[k]!] as PythonEnvCopy).number;
        for (let j = 0; j < obsWidth; j++) preparedResets[number * obsWidth + j] = numbers[at + j]!;
        preparedResetFor[number] = 1;
        at += obsWidth;
      }
    }
  }

  /** 'while stepping copies first..last' for worker `w`'s messages, made once for the copies it steps. */
  private steppingText(w: number, first: number, last: number): string {
    const cached = this.steppingTexts[w];
    if (cached && cached.first === first && cached.last === last) return cached.text;
    const text = first === last ? `while stepping copy ${first}` : `while stepping copies ${first}..${last}`;
    this.steppingTexts[w] = { first, last, text };
    return text;
  }

  /** Where copy `number`'s record of the last stepAll() starts, once; -1 when there is none. */
  takePrepared(number: number): number {
    if (this.preparedFor[number] !== 1) return -1;
    this.preparedFor[number] = 0;
    return number * this.record;
  }

  /** The first observation of the episode the worker started for copy `number` in the last stepAll(), once; null when there is none. */
  takePreparedReset(number: number): Float64Array | null {
    if (this.preparedResetFor[number] !== 1) return null;
    this.preparedResetFor[number] = 0;
    return this.preparedResets.subarray(number * this.obsWidth, (number + 1) * this.obsWidth);
  }

  /** Steps one copy on its own; its record. */
  stepOne(copy: PythonEnvCopy, actions: ArrayLike<number>, offset: number): Float64Array {
    const numbers = this.commandFrame('S', 2 + this.actionDim);
    numbers[0] = 1;
    numbers[1] = copy.slot;
    for (let j = 0; j < this.actionDim; j++) numbers[2 + j] = actions[offset + j];
    this.sendFrame(copy.worker, 2 + this.actionDim);
    this.preparedResetFor[copy.number] = 0;
    const what = `while stepping copy ${copy.number}`;
    const record = this.receive(copy.worker, this.record, 0, what);
    if ((record[this.record - 1]! & FLAG_EPISODE_RETURN) === 0) return record;
    const withReturn = this.receive(copy.worker, 1, this.record, what);
    this.episodeReturns[copy.number] = withReturn[this.record]!;
    return withReturn;
  }

  /** Resets one copy (seed < 0: none); its first observation. */
  reset(copy: PythonEnvCopy, seed: number | undefined): Float64Array {
    const numbers = this.commandFrame('R', 2);
    numbers[0] = copy.slot;
    numbers[1] = seed ?? -1;
    this.sendFrame(copy.worker, 2);
    this.preparedResetFor[copy.number] = 0;
    return this.receive(copy.worker, this.obsWidth, 0, `while resetting copy ${copy.number}`);
  }

  /** A picture of one copy's state: its env.render(), which the worker checks is a uint8 image. */
  render(copy: PythonEnvCopy): RgbFrame {
    const numbers = this.commandFrame('F', 1);
    numbers[0] = copy.slot;
    this.sendFrame(copy.worker, 1);
    const worker = this.workers[copy.worker]!;
    const what = `while drawing copy ${copy.number} (render())`;
    const head = new Uint8Array(12);
    worker.receive(head, what);
    const view = new DataView(head.buffer);
    const [height, width, channels] = [view.getUint32(0, true), view.getUint32(4, true), view.getUint32(8, true)];
    if (height === 0) {
      const length = new Uint8Array(4);
      worker.receive(length, what);
      const body = new Uint8Array(new DataView(length.buffer).getUint32(0, true));
      worker.receive(body, what);
      const error = (JSON.parse(Buffer.from(body).toString('utf8')) as Handshake).error ?? '';
      throw new PythonEnvError(`${this.label} copy ${copy.number}: render() failed, so its frames cannot be recorded:\n${error}\n${renderHint(error)}`);
    }
    if (height * width * channels > MAX_FRAME_BYTES) {
      this.close();
      throw new PythonEnvError(`${this.label} copy ${copy.number}: render() returned a ${width} x ${height} frame of ${channels} channels, over the ${MAX_FRAME_BYTES / 2 ** 20} MiB rlx reads; render smaller frames`);
    }
    const pixels = new Uint8Array(height * width * channels);
    worker.receive(pixels, what);
    return { height, width, channels: channels as 1 | 3 | 4, pixels };
  }

  /**
   * A goal env's compute_reward (and compute_terminated) for `count` pairs of goals in one round
   * trip. Worker 0 answers (every worker holds a copy of the env); relabeling calls this on the
   * trainer's thread between steps, so no step is in flight.
   */
  goalOutcomes(achieved: ArrayLike<number>, goals: ArrayLike<number>, count: number, width: number): GoalOutcomes {
    const goal = this.goal!;
    // The worker reads rows of its goals' width: another would leave the pipe out of step.
    if (width !== goal.achieved.length) throw new PythonEnvError(`${this.label}: goals of ${width} numbers asked for, but the env's goals have ${goal.achieved.length}`);
    const length = 1 + 2 * count * width;
    const numbers = this.commandFrame('G', length);
    numbers[0] = count;
    for (let i = 0; i < count * width; i++) {
      numbers[1 + i] = achieved[i]!;
      numbers[1 + count * width + i] = goals[i]!;
    }
    this.sendFrame(0, length);
    const answer = this.receive(0, goal.terminated ? 2 * count : count, 0, `while computing the rewards of ${count} relabeled goals (compute_reward)`);
    const rewards = Float64Array.from(answer.subarray(0, count));
    rewards.forEach((reward, i) => {
      if (!Number.isFinite(reward)) throw new PythonEnvError(`${this.label}: compute_reward returned ${reward} for achieved goal [${Array.from(achieved).slice(i * width, (i + 1) * width).join(', ')}] and desired goal [${Array.from(goals).slice(i * width, (i + 1) * width).join(', ')}]; it must return finite numbers`);
    });
    const terminated = goal.terminated ? Array.from(answer.subarray(count, 2 * count), (flag) => flag !== 0) : null;
    return { rewards, terminated };
  }

  /** Ends every worker; the copies fail from then on. */
  close(): void {
    for (const worker of this.workers) worker.close();
  }

  /** The pids of the workers (tests check that none outlives close()). */
  get pids(): number[] {
    return this.workers.map((w) => w.pid);
  }

  private startWorker(kwargs: Readonly<Record<string, unknown>> = this.options.kwargs): PythonWorker {
    const { options } = this;
    const label = `${this.label} worker ${this.workers.length}`;
    const worker = new PythonWorker(label, options.python, { ...options, kwargs }, options.timeoutSeconds * 1000, options.processEnv);
    this.workers.push(worker);
    return worker;
  }

  private handshake(worker: PythonWorker): Handshake {
    const startMs = Math.max(this.options.timeoutSeconds, MIN_START_SECONDS) * 1000;
    // Start-up is allowed env_timeout but at least MIN_START_SECONDS: say which, not "env_timeout" for a wait it did not set.
    const limit = this.options.timeoutSeconds >= MIN_START_SECONDS ? 'env_timeout' : `the start-up allowance: env_timeout is ${this.options.timeoutSeconds} s, and starting may take ${MIN_START_SECONDS} s`;
    const head = new Uint8Array(4);
    worker.receive(head, 'while starting (importing gymnasium and making the env)', startMs, limit);
    const length = new DataView(head.buffer).getUint32(0, true);
    const body = new Uint8Array(length);
    worker.receive(body, 'while starting', startMs, limit);
    const said = JSON.parse(Buffer.from(body).toString('utf8')) as Handshake;
    if (!said.ok) {
      this.close();
      throw new PythonEnvError(`${this.label}: Python could not make the env:\n${said.error ?? ''}\n${hint(said.error ?? '')}`);
    }
    worker.connected();
    return said;
  }

  /** Copies made with other kwargs (a curriculum's) must keep the spaces: the policy cannot follow another size. */
  private checkSameSpaces(said: Handshake, kwargs: Readonly<Record<string, unknown>>): void {
    const observation = spaceSize(said.observation!);
    const action = spaceSize(said.action!);
    if (observation === this.obsDim && action === this.actionDim && said.action!.kind === this.actionSpace.kind) return;
    this.close();
    throw new PythonEnvError(`${this.label}: with kwargs ${JSON.stringify(kwargs)} the env has ${observation} observation numbers and ${action} action numbers (${said.action!.kind}), not the ${this.obsDim} and ${this.actionDim} (${this.actionSpace.kind}) of its first copies: a curriculum may not change the observation or action size`);
  }

  private growWorker(worker: PythonWorker): void {
    this.commandFrame('M', 0);
    worker.send(this.frame.subarray(7, 8));
    const head = new Uint8Array(4);
    worker.receive(head, 'while making another copy');
    const length = new DataView(head.buffer).getUint32(0, true);
    if (length === 0) return;
    const body = new Uint8Array(length);
    worker.receive(body, 'while making another copy');
    this.close();
    throw new PythonEnvError(`${this.label}: Python could not make another copy:\n${(JSON.parse(Buffer.from(body).toString('utf8')) as Handshake).error ?? ''}`);
  }

  /** A frame with room for `count` numbers after the opcode (at byte 7, so that the numbers are 8-byte aligned); its numbers. */
  private commandFrame(op: string, count: number): Float64Array {
    const bytes = 8 + count * 8;
    if (this.frame.length < bytes) {
      this.frame = new Uint8Array(bytes * 2);
      this.frameNumbers = new Float64Array(this.frame.buffer, 8);
    }
    this.frame[7] = op.charCodeAt(0);
    return this.frameNumbers;
  }

  private sendFrame(worker: number, count: number): void {
    this.workers[worker]!.send(this.frame.subarray(7, 8 + count * 8));
  }

  /** Reads `count` numbers from the worker into the reply after its first `after` numbers (kept); the reply's numbers. */
  private receive(worker: number, count: number, after: number, what: string): Float64Array {
    const bytes = (after + count) * 8;
    if (this.reply.length < bytes) {
      const grown = new Uint8Array(bytes * 2);
      grown.set(this.reply.subarray(0, after * 8));
      this.reply = grown;
      this.replyNumbers = new Float64Array(grown.buffer);
    }
    this.workers[worker]!.receive(this.reply.subarray(after * 8, bytes), what);
    return this.replyNumbers;
  }
}

/** A space from the handshake: JSON has no Infinity, so an unbounded side of a box comes as null. */
function withInfiniteBounds(space: Space): Space {
  if (space.kind !== 'box') return space;
  const bound = (values: readonly (number | null)[], infinity: number) => values.map((v) => (v === null ? infinity : v));
  return { ...space, low: bound(space.low, -Infinity), high: bound(space.high, Infinity) };
}

/** `array` grown to hold `length` elements, its elements kept. */
function grow<T extends Float64Array | Uint8Array | Int32Array>(array: T, length: number): T {
  if (array.length >= length) return array;
  const grown = new (array.constructor as new (length: number) => T)(length);
  grown.set(array);
  return grown;
}

/** What to do about a worker's traceback, when its last line says. */
function hint(error: string): string {
  if (/No module named '?(gymnasium|numpy)/.test(error)) return 'Install it for this interpreter (pip install gymnasium), or name another with the env\'s `python` setting or RLX_PYTHON.';
  if (/NameNotFound|not found in gymnasium registry|Environment .* doesn't exist/i.test(error)) return 'Check the id, and name the package that registers it with `imports: ["my_package"]`.';
  if (/No module named/.test(error)) return 'Install the package for this interpreter, or check the names in `imports: [...]`.';
  return '';
}

/** What to do about a render() that failed. */
function renderHint(error: string): string {
  if (/pygame/i.test(error)) return 'Install pygame for this interpreter (pip install "gymnasium[classic-control]"), or leave render_mode out of the env\'s kwargs.';
  return 'Fix the env\'s render(), or leave render_mode out of the env\'s kwargs.';
}

/** One copy of a gymnasium env in a worker, with the FastEnv shape the vectorised stepper uses. */
export class PythonEnvCopy implements FastEnv {
  readonly obsDim: number;
  readonly actionDim: number;
  readonly stateLayout: readonly string[] = [];
  readonly obsFields: readonly string[];
  terminated = false;
  truncated = false;
  /** info["is_success"] of the last step. */
  success = false;
  /** info["episode"]["r"] where the last step ended an episode and the env reports it; else null. */
  episodeReturn: number | null = null;
  elapsedSteps = 0;
  /** The copy's frame (types.ts RendersFrames), only where the env renders rgb_array pictures. */
  readonly renderFrame?: () => RgbFrame;
  /** Where the env gives action masks: the mask of the last observation (VecEnv checks it). */
  readonly masksActions: boolean;
  readonly actionMask?: Float64Array;
  private pendingSeed: number | undefined;

  constructor(protected readonly host: PythonEnvs, readonly number: number, readonly worker: number, readonly slot: number) {
    this.obsDim = host.obsDim;
    this.actionDim = host.actionDim;
    this.obsFields = host.obsFields;
    if (host.rendersFrames) this.renderFrame = () => host.render(this);
    this.masksActions = host.maskWidth > 0;
    if (this.masksActions) this.actionMask = new Float64Array(host.maskWidth);
  }

  /** VecEnv steps the copies together (vector.ts CopyBatch). */
  get batch(): CopyBatch {
    return this.host;
  }
  get kind(): string {
    return this.host.options.name;
  }
  get goalEnvAdvice(): string {
    return PYTHON_GOAL_ENV;
  }
  get observationSpace(): Space {
    return this.host.observationSpace;
  }
  get actionSpace(): Space {
    return this.host.actionSpace;
  }
  get maxSteps(): number {
    return this.host.maxSteps;
  }

  seed(seed: number, stream = 0): void {
    // Gymnasium's reset takes one seed: derive it from (seed, stream), as for TS modules.
    this.pendingSeed = new Rng(seed).fork(stream).uint32();
  }

  reset(seed?: number): ResetResult {
    const obs = this.startEpisode(seed);
    return { obs: Array.from(obs.subarray(0, this.obsDim)), info: this.maskInfo() };
  }

  step(action: number | ArrayLike<number>): StepResult {
    const obs = new Float32Array(this.obsDim);
    const reward = this.stepInto(typeof action === 'number' ? [action] : action, 0, obs, 0);
    return { obs: Array.from(obs), reward, terminated: this.terminated, truncated: this.truncated, info: this.maskInfo() };
  }

  /** The plain API's info: the action mask, where the env gives one. */
  private maskInfo(): Record<string, unknown> {
    return this.actionMask !== undefined ? { action_mask: Array.from(this.actionMask) } : {};
  }

  resetInto(obsOut: Float32Array, obsOffset: number): void {
    const obs = this.startEpisode(this.pendingSeed);
    this.pendingSeed = undefined;
    for (let k = 0; k < this.obsDim; k++) obsOut[obsOffset + k] = obs[k]!;
  }

  stepInto(actions: ArrayLike<number>, actionOffset: number, obsOut: Float32Array, obsOffset: number): number {
    const { host } = this;
    let at = host.takePrepared(this.number);
    let source: Float64Array = host.prepared;
    if (at < 0) {
      source = host.stepOne(this, actions, actionOffset);
      at = 0;
    }
    const obsDim = this.obsDim;
    this.elapsedSteps++;
    for (let k = 0; k < obsDim; k++) {
      const value = source[at + k]!;
      if (!Number.isFinite(value)) this.notFinite(`observation element ${k} is ${value}`);
      obsOut[obsOffset + k] = value;
    }
    const mask = this.actionMask;
    if (mask !== undefined) for (let k = 0; k < mask.length; k++) mask[k] = source[at + obsDim + k]!;
    const width = host.obsWidth;
    const reward = source[at + width]!;
    if (!Number.isFinite(reward)) this.notFinite(`the reward is ${reward}`);
    const flags = source[at + width + 1]!;
    this.terminated = (flags & FLAG_TERMINATED) !== 0;
    this.truncated = (flags & FLAG_TRUNCATED) !== 0;
    this.success = (flags & FLAG_SUCCESS) !== 0;
    this.episodeReturn = (flags & FLAG_EPISODE_RETURN) !== 0 ? host.episodeReturns[this.number]! : null;
    return reward;
  }

  getState(): number[] {
    throw new PythonEnvError(`${this.host.label}: Python envs have no getState()`);
  }

  setState(): void {
    throw new PythonEnvError(`${this.host.label}: Python envs have no setState()`);
  }

  private notFinite(what: string): never {
    throw new PythonEnvError(`${this.host.label} copy ${this.number}, step ${this.elapsedSteps} of its episode: ${what}; the env returned a number that is not finite`);
  }

  private startEpisode(seed: number | undefined): Float64Array {
    // Unseeded, the episode the worker started when the last one ended (stepAll) is the one a reset now would start.
    const obs = (seed === undefined ? this.host.takePreparedReset(this.number) : null) ?? this.host.reset(this, seed);
    for (let k = 0; k < this.obsDim; k++) {
      if (!Number.isFinite(obs[k]!)) this.notFinite(`the reset observation's element ${k} is ${obs[k]}`);
    }
    // The worker sends the observation's action mask after it (a reply buffer the next read reuses: copied now).
    this.actionMask?.set(obs.subarray(this.obsDim, this.obsDim + this.actionMask.length));
    this.elapsedSteps = 0;
    this.terminated = false;
    this.truncated = false;
    this.success = false;
    return obs;
  }
}

/**
 * A copy of a goal env (a Dict observation with achieved_goal and desired_goal, and
 * compute_reward): hindsight relabeling asks its worker for the rewards of whole batches.
 */
export class GoalPythonEnvCopy extends PythonEnvCopy implements GoalConditioned {
  readonly achievedFields: readonly string[];
  readonly goalFields: readonly string[];
  /** Absent where the env has no compute_terminated: relabeled rows then keep their stored dones. */
  readonly computeTerminated?: (achieved: ArrayLike<number>, goal: ArrayLike<number>) => boolean;

  constructor(host: PythonEnvs, number: number, worker: number, slot: number, goal: PythonGoal) {
    super(host, number, worker, slot);
    this.achievedFields = goal.achieved;
    this.goalFields = goal.desired;
    if (goal.terminated) this.computeTerminated = (achieved, wanted) => this.host.goalOutcomes(achieved, wanted, 1, achieved.length).terminated![0]!;
  }

  computeReward(achieved: ArrayLike<number>, goal: ArrayLike<number>): number {
    return this.host.goalOutcomes(achieved, goal, 1, achieved.length).rewards[0]!;
  }

  computeRewards(achieved: Float32Array, goals: Float32Array, count: number, width: number): GoalOutcomes {
    return this.host.goalOutcomes(achieved, goals, count, width);
  }
}
