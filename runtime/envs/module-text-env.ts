// A user's text env (a module whose spec says `actions: 'text'`) made into a checked dialogue
// env: each result checked against the interface and the bounds its spec declares, so that a
// wrong one fails with what to fix before it reaches the token grid. Runs inside the module's
// worker thread (module-worker.ts), like module-env.ts for numeric modules.
//
// What a text module provides (docs/language.md#user-text-environments):
//
//   export const spec = { actions: 'text', max_turns: 3, max_observation: 12, max_action: 12, alphabet: '...' };
//   export default class MyTextEnv {
//     constructor(params) { ... }
//     reset(seed) { return { observation: 'the opening', info: {} }; }
//     step(text) { return { observation: 'the reply', reward: 0, done: false, info: { success: false } }; }
//     expert() { return 'a good next turn'; }      // optional: demonstrations for SFT
//   }
import type { EnvModuleSpec, TextModuleSpec } from '../../dsl/schema/env-module.js';
import { describeThrown, EnvModuleError, short } from './module-errors.js';
import { codePointLength } from '../../shared/code-points.js';

/** What the trainer hears of a reset(): the env's opening message. */
export interface TextReset {
  readonly observation: string;
}

/** What the trainer hears of a step(): the env's reply, the reward, whether the dialogue ended and whether it succeeded. */
export interface TextStep {
  readonly observation: string;
  readonly reward: number;
  readonly done: boolean;
  /** info.success, where the module reports it. */
  readonly success?: boolean;
  /** The info values spec.info declares (true/false as 1/0), for reward terms' `info.NAME`. */
  readonly info: Readonly<Record<string, number>>;
}

interface UserTextEnv {
  reset?: unknown;
  step?: unknown;
  expert?: unknown;
}

/** One copy of a user's text env, with its results checked. */
export class TextModuleEnv {
  readonly bounds: TextModuleSpec;
  /** What step() reports in info, as `spec.info` declares (checked, as for numeric modules). */
  readonly infoFields: readonly string[];
  readonly hasExpert: boolean;
  private readonly characters: ReadonlySet<string>;

  constructor(
    private readonly user: UserTextEnv,
    readonly kind: string,
    private readonly origin: string,
    spec: EnvModuleSpec,
  ) {
    const missing = ['reset', 'step'].filter((m) => typeof user[m as keyof UserTextEnv] !== 'function');
    if (missing.length > 0) throw new EnvModuleError(`the text env of ${origin} lacks the method${missing.length > 1 ? 's' : ''} ${missing.join(', ')}; see docs/language.md#user-text-environments for the interface`);
    if (user.expert !== undefined && typeof user.expert !== 'function') throw new EnvModuleError(`${origin}: expert must be a method that returns the next good agent turn`);
    this.bounds = spec.text!;
    this.infoFields = spec.info;
    this.hasExpert = user.expert !== undefined;
    this.characters = new Set(this.bounds.alphabet);
  }

  reset(seed: number): TextReset {
    const result = this.call(() => (this.user.reset as (seed: number) => unknown).call(this.user, seed), 'reset()') as { observation?: unknown } | undefined;
    if (typeof result?.observation !== 'string') throw new EnvModuleError(`${this.origin}: reset() must return { observation: string, info }; got ${short(result)}`);
    return { observation: this.message(result.observation, 'reset()') };
  }

  step(text: string): TextStep {
    const result = this.call(() => (this.user.step as (text: string) => unknown).call(this.user, text), 'step()') as Record<string, unknown> | undefined;
    if (typeof result?.observation !== 'string' || typeof result.reward !== 'number' || !Number.isFinite(result.reward) || typeof result.done !== 'boolean') {
      throw new EnvModuleError(`${this.origin}: step() must return { observation: string, reward: number, done: boolean, info }; got ${short(result)}`);
    }
    const info = (result.info ?? {}) as Record<string, unknown>;
    this.checkInfo(info);
    // A last reply is never shown: it is neither checked nor passed on.
    const observation = result.done ? '' : this.message(result.observation, 'step()');
    const declared = Object.fromEntries(this.infoFields.map((name) => [name, Number(info[name] ?? 0)]));
    return { observation, reward: result.reward, done: result.done, ...(info.success !== undefined ? { success: info.success === true } : {}), info: declared };
  }

  /** The module's next good turn; null when it has no expert. */
  expert(): string | null {
    if (!this.hasExpert) return null;
    const turn = this.call(() => (this.user.expert as () => unknown).call(this.user), 'expert()');
    if (typeof turn !== 'string') throw new EnvModuleError(`${this.origin}: expert() must return the next agent turn as a string; got ${short(turn)}`);
    return this.within(turn, this.bounds.maxAction, 'expert()', 'max_action');
  }

  /** An env message within max_observation, in the alphabet. */
  private message(text: string, what: string): string {
    return this.within(text, this.bounds.maxObservation, what, 'max_observation');
  }

  private within(text: string, max: number, what: string, key: string): string {
    // Measured before the text is taken apart: a module may return 100 MB, and an array of its
    // characters would take gigabytes (the trainer died of a heap out of memory). A character
    // is one or two UTF-16 units, so text.length bounds the count from both sides.
    const count = text.length <= max ? text.length : text.length > 2 * max ? undefined : codePointLength(text);
    if (count === undefined || count > max) {
      const size = count !== undefined ? `${count} characters` : `${text.length > 2 ** 20 ? `${(text.length / 2 ** 20).toFixed(1)} M` : text.length} UTF-16 units`;
      throw new EnvModuleError(`${this.origin}: ${what} returned ${preview(text)}, ${size}, but spec.${key} is ${max}; raise ${key} or write less`);
    }
    for (const c of text) {
      if (!this.characters.has(c)) throw new EnvModuleError(`${this.origin}: ${what} returned ${preview(text)}, with ${JSON.stringify(c)}, which is not in spec.alphabet; add it there`);
    }
    return text;
  }

  /** Each declared info value is in the info, a number or true/false; `success` may be left out (false). */
  private checkInfo(info: Record<string, unknown>): void {
    if (info.success !== undefined && typeof info.success !== 'boolean') throw new EnvModuleError(`${this.origin}: step()'s info.success must be true or false; got ${short(info.success)}`);
    for (const name of this.infoFields) {
      const value = info[name];
      if (typeof value === 'number' || typeof value === 'boolean' || (value === undefined && name === 'success')) continue;
      throw new EnvModuleError(value === undefined
        ? `${this.origin}: step() returned an info without '${name}', which spec.info declares; report it on every step`
        : `${this.origin}: step()'s info.${name} must be a number or true/false; got ${short(value)}`);
    }
  }

  /** Runs the user's method; whatever it throws becomes an EnvModuleError that names the method. */
  private call(method: () => unknown, what: string): unknown {
    try {
      return method();
    } catch (err) {
      throw new EnvModuleError(`${this.origin}: ${what} threw: ${describeThrown(err)}`);
    }
  }
}

/** A text in a message: its first 80 characters, quoted (the rest would flood the terminal). */
function preview(text: string): string {
  return text.length <= 80 ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, 80))}...`;
}

/** One reset, the expert's turn (if any) and one step, so a broken module fails before training with a clear message. */
export function probeText(env: TextModuleEnv): void {
  env.reset(0);
  env.step(env.expert() ?? '');
}
