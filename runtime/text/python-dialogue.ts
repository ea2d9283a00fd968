// A Python text env (`env Shop = python_text("./envs/shop.py:Shop")`, dsl/schema/python-text-env.ts)
// as a multi-turn dialogue env (dialogue.ts), which SFT, GRPO and REINFORCE train on as they do
// on GuessNumber, with the character-level transformer or a pretrained chat model. The class has
// Gymnasium's methods over text:
//
//   reset(seed=None, options=None) -> (observation, info)
//   step(action: str) -> (observation, reward, terminated, truncated, info)
//   expert(observation) -> str            optional: the next good turn, demonstrations for SFT
//
// An observation is a string or a list of chat messages ({"role": "system" | "user", "content"}).
// Copies run in the bridge's Python worker processes (worker.py serve_text), copies_per_process
// to a process: a batch runs many dialogues in lockstep, so there are as many copies as dialogues
// at once, made as needed and reused once their dialogue is over (as module-dialogue.ts does).
// Each dialogue is an episode, numbered from 1 in the order they start; every fault (a method
// that raises or hangs, a dead worker, a value of the wrong type, a NaN reward, a message past
// the declared bounds) ends the run with one error naming the env, the class, the method and
// the episode.
import type { PlanEnv } from '../../dsl/compile/plan.js';
import { PYTHON_TEXT_ALPHABET, PYTHON_TEXT_ENV_PARAMS } from '../../dsl/schema/python-text-env.js';
import { PlanParams } from '../plan-params.js';
import { pythonCommand, pythonEnvFile, type PythonEnvPlace } from '../envs/python/python-env-plan.js';
import { PythonEnvError } from '../envs/python/python-worker.js';
import { PythonTextWorker, type TextAnswer } from '../envs/python/text-worker.js';
import type { Rng } from '../../shared/random.js';
import type { Dialogue, DialogueEnv, DialogueMessage, TurnResult } from './dialogue.js';
import { length } from '../rewards/verifiers.js';

/** Dialogues of a held-out evaluation: reset(seed=0) .. reset(seed=99), the same for every run. */
export const EVAL_DIALOGUES = 100;

/** What the trainer needs to run the env: the plan's settings, resolved. */
export interface PythonTextOptions {
  /** The env as messages name it: `env Rooms (python_text "./envs/rooms.py:Rooms")`. */
  readonly label: string;
  readonly file: string;
  readonly className: string;
  readonly kwargs: Record<string, unknown>;
  readonly python: string;
  readonly timeoutSeconds: number;
  readonly copiesPerProcess: number;
  readonly maxTurns: number;
  readonly maxObservation: number;
  readonly maxAction: number;
  readonly alphabet: string;
  readonly info: readonly string[];
  readonly processEnv?: NodeJS.ProcessEnv;
}

/** The options a plan's python_text env gives (its file resolved against `place`, a run folder's record first); PythonEnvError for a value the plan should not hold. */
export function pythonTextOptions(env: PlanEnv, place: PythonEnvPlace = {}, processEnv?: NodeJS.ProcessEnv): PythonTextOptions {
  const { file, class: className, kwargs, ...settings } = env.params;
  if (typeof file !== 'string' || file === '' || typeof className !== 'string' || className === '') throw new PythonEnvError(`env ${env.name}: the plan names no Python file and class; recompile it`);
  if (kwargs !== undefined && (typeof kwargs !== 'object' || kwargs === null || Array.isArray(kwargs))) throw new PythonEnvError(`env ${env.name}: kwargs must be an object of keyword arguments; recompile the plan`);
  const p = new PlanParams(`env ${env.name}`, PYTHON_TEXT_ENV_PARAMS, settings, (_owner, _param, message) => new PythonEnvError(message));
  const info = p.value('info');
  if (!Array.isArray(info) || !info.every((n) => typeof n === 'string')) throw new PythonEnvError(`env ${env.name}: info must be a list of names`);
  const alphabet = String(p.value('alphabet'));
  return {
    label: `env ${env.name} (python_text "${file}:${className}")`,
    file: pythonEnvFile(env.name, file, place),
    className,
    kwargs: (kwargs ?? {}) as Record<string, unknown>,
    python: pythonCommand(String(p.value('python')), processEnv),
    timeoutSeconds: p.number('env_timeout'),
    copiesPerProcess: p.count('copies_per_process'),
    maxTurns: p.count('max_turns'),
    maxObservation: p.count('max_observation'),
    maxAction: p.count('max_action'),
    alphabet: alphabet === '' ? PYTHON_TEXT_ALPHABET : alphabet,
    info: info as string[],
    ...(processEnv ? { processEnv } : {}),
  };
}

/** A failure of the env: one message naming the env, the class, the method and the episode. */
export class PythonTextEnvError extends PythonEnvError {
  override name = 'PythonTextEnvError';
}

/** One copy: the worker process it lives in and its index there. */
interface Copy {
  readonly worker: PythonTextWorker;
  readonly index: number;
}

export class PythonDialogueEnv implements DialogueEnv {
  readonly description: string;
  readonly alphabet: string;
  readonly maxTurns: number;
  readonly maxOpening: number;
  readonly maxReply: number;
  readonly maxTurnLength: number;
  /** Whether the class has expert(): SFT trains on its turns. */
  readonly hasExpert: boolean;
  readonly infoFields: readonly string[];
  private readonly workers: PythonTextWorker[] = [];
  /** Copies made so far, the copies of each worker, and whether each is in a dialogue that may still take a turn. */
  private readonly copies: Copy[] = [];
  private readonly perWorker: number[] = [];
  private readonly busy: boolean[] = [];
  private readonly characters: ReadonlySet<string>;
  /** Dialogues started so far: the next one's episode number is this plus one. */
  private episodes = 0;

  /** Starts the first worker, which loads the class: a file, class or method that is wrong fails here, before training. */
  constructor(private readonly options: PythonTextOptions) {
    this.description = options.label;
    this.alphabet = options.alphabet;
    this.maxTurns = options.maxTurns;
    this.maxOpening = options.maxObservation;
    this.maxReply = options.maxObservation;
    this.maxTurnLength = options.maxAction;
    this.infoFields = options.info;
    this.characters = new Set(options.alphabet);
    const first = this.startWorker();
    this.hasExpert = first.hasExpert;
  }

  start(rng: Rng): Dialogue {
    return this.dialogue(rng.uint32());
  }

  evaluationDialogues(): Dialogue[] {
    return Array.from({ length: EVAL_DIALOGUES }, (_, seed) => this.dialogue(seed));
  }

  /** Ends every worker process (and what the env started in their groups). */
  close(): void {
    for (const worker of this.workers) worker.close();
    this.workers.length = 0;
  }

  /** The dialogue the class starts with reset(seed=seed), on a free copy. */
  dialogue(seed: number): Dialogue {
    const episode = ++this.episodes;
    const slot = this.freeCopy(episode);
    const copy = this.copies[slot]!;
    const where = (method: string, turn?: number) => `${this.options.className}.${method} in episode ${episode} (reset seed ${seed}${turn !== undefined ? `, turn ${turn}` : ''})`;
    let turns = 0;
    let over = false;
    const end = () => {
      over = true;
      this.busy[slot] = false;
    };
    let opened: { text: string; messages?: DialogueMessage[] };
    try {
      const answer = this.call(copy, { op: 'reset', copy: copy.index, seed }, where('reset()'));
      opened = this.observation(answer.observation, where('reset()'), 'the opening');
    } catch (err) {
      end();
      throw err;
    }
    const dialogue: Dialogue = {
      opening: opened.text,
      ...(opened.messages ? { openingMessages: opened.messages } : {}),
      turn: (text: string): TurnResult => {
        if (over) throw new Error(`a dialogue of ${this.description} took a turn after it ended`);
        turns++;
        const at = where('step()', turns);
        let answer: Readonly<Record<string, unknown>>;
        try {
          answer = this.call(copy, { op: 'step', copy: copy.index, action: text }, at);
        } catch (err) {
          end();
          throw err;
        }
        const done = answer.terminated === true || answer.truncated === true;
        if (done || turns >= this.maxTurns) end();
        const reply = done ? { text: '' } : this.observation(answer.observation, at, 'the reply');
        const info = (answer.info ?? {}) as Record<string, number>;
        return {
          observation: reply.text,
          ...(reply.messages ? { messages: reply.messages } : {}),
          reward: answer.reward as number,
          done,
          ...(typeof answer.success === 'boolean' ? { success: answer.success } : {}),
          info,
        };
      },
    };
    if (!this.hasExpert) return dialogue;
    return {
      ...dialogue,
      expert: () => {
        const at = where('expert()', turns + 1);
        const answer = this.call(copy, { op: 'expert', copy: copy.index }, at);
        return this.within(answer.turn as string, this.maxTurnLength, at, 'the turn', 'max_action');
      },
    };
  }

  /** A request's answer when it is ok; a PythonTextEnvError naming `where` otherwise (the env raised or hung, its worker died, a value of the wrong type). */
  private call(copy: Copy, body: Readonly<Record<string, unknown>>, where: string): Readonly<Record<string, unknown>> {
    let answer: TextAnswer;
    try {
      answer = copy.worker.request(body, `while running ${where}`);
    } catch (err) {
      if (err instanceof PythonEnvError) throw new PythonTextEnvError(err.message, { cause: err });
      throw err;
    }
    if (answer.ok) return answer;
    if ('wrong' in answer) throw new PythonTextEnvError(`${this.description}: ${where}: ${answer.wrong}`);
    throw new PythonTextEnvError(`${this.description}: ${where} raised:\n${answer.error.trimEnd()}`);
  }

  /** An observation the worker passed on, as text (a list of messages: their contents joined by newlines), checked against the bounds. */
  private observation(value: unknown, where: string, what: string): { text: string; messages?: DialogueMessage[] } {
    const given = value as { text?: string; messages?: { role: 'system' | 'user'; content: string }[] };
    if (given.messages) {
      const messages = given.messages.map((m): DialogueMessage => [m.role, m.content]);
      return { text: this.within(messages.map(([, content]) => content).join('\n'), this.maxOpening, where, what, 'max_observation'), messages };
    }
    return { text: this.within(given.text ?? '', this.maxOpening, where, what, 'max_observation') };
  }

  /** A text within `max` characters, in the alphabet; else a PythonTextEnvError saying which setting to raise. */
  private within(text: string, max: number, where: string, what: string, setting: string): string {
    // Measured before the text is taken apart (as module-text-env.ts does): an env may return 100 MB.
    const count = text.length <= max ? text.length : text.length > 2 * max ? undefined : length(text);
    if (count === undefined || count > max) {
      throw new PythonTextEnvError(`${this.description}: ${where} returned ${what} ${preview(text)}, ${count ?? text.length} characters, but the env's ${setting} is ${max}; raise ${setting} or write less`);
    }
    for (const c of text) {
      if (!this.characters.has(c)) throw new PythonTextEnvError(`${this.description}: ${where} returned ${what} ${preview(text)}, with ${JSON.stringify(c)}, which is not in the env's alphabet; add it to \`alphabet\``);
    }
    return text;
  }

  /** The index of a copy no dialogue holds (a new one if all are held, in a new worker when the last is full); marked held. */
  private freeCopy(episode: number): number {
    let slot = this.busy.indexOf(false);
    if (slot < 0) {
      let w = this.workers.length - 1;
      if (this.perWorker[w]! >= this.options.copiesPerProcess) {
        this.startWorker();
        w++;
      }
      const copy = { worker: this.workers[w]!, index: this.perWorker[w]! };
      this.call(copy, { op: 'make' }, `${this.options.className}(**kwargs) for episode ${episode}`);
      this.perWorker[w]!++;
      this.copies.push(copy);
      this.busy.push(false);
      slot = this.copies.length - 1;
    }
    this.busy[slot] = true;
    return slot;
  }

  private startWorker(): PythonTextWorker {
    const o = this.options;
    const worker = new PythonTextWorker({ label: o.label, python: o.python, file: o.file, className: o.className, info: o.info, kwargs: o.kwargs, timeoutSeconds: o.timeoutSeconds, ...(o.processEnv ? { processEnv: o.processEnv } : {}) });
    this.workers.push(worker);
    this.perWorker.push(0);
    return worker;
  }
}

/** A text in a message: its first 80 characters, quoted. */
function preview(text: string): string {
  return text.length <= 80 ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, 80))}...`;
}
