// GuessNumber: the agent guesses a hidden whole number in [low, high]; after each guess the env
// answers "higher", "lower" or "correct" (anything that is not a whole number: "invalid"). The
// reward is 1 for finding the number within max_turns guesses. Its dialogues open with the
// range, "1..100", so a policy trained on one range can read the range it is asked about.
//
// Its expert (demonstrations for SFT) bisects: it guesses the middle of the numbers still
// possible, which finds any number of [1, 100] within 7 guesses.
import { builtin, type EnvSpec } from '../../dsl/schema/index.js';
import { envParams } from '../envs/params.js';
import type { Rng } from '../../shared/random.js';
import type { Dialogue, DialogueEnv, TurnResult } from './dialogue.js';

export const REPLIES = { higher: 'higher', lower: 'lower', correct: 'correct', invalid: 'invalid' } as const;

/** At most this many hidden numbers are evaluated (evenly spread over the range). */
const EVAL_LIMIT = 256;

export class GuessNumber implements DialogueEnv {
  /** What each turn reports to reward terms' `info.NAME` (the registry's list): guesses so far, and the hidden number. */
  static readonly INFO_FIELDS: readonly string[] = (builtin('GuessNumber') as EnvSpec).infoFields ?? [];

  readonly description: string;
  readonly alphabet: string;
  readonly maxOpening: number;
  readonly maxReply: number;
  readonly maxTurnLength: number;

  constructor(
    readonly low: number,
    readonly high: number,
    readonly maxTurns: number,
  ) {
    this.description = `GuessNumber { low: ${low}, high: ${high}, max_turns: ${maxTurns} }`;
    const opening = this.opening();
    this.alphabet = `0123456789-${opening}${Object.values(REPLIES).join('')}`;
    this.maxOpening = [...opening].length;
    this.maxReply = Math.max(...Object.values(REPLIES).map((r) => r.length));
    this.maxTurnLength = Math.max(String(low).length, String(high).length);
  }

  /** GuessNumber's params from a plan (the registry's defaults and checks). */
  static fromParams(given: object): GuessNumber {
    const p = envParams('GuessNumber', given);
    const low = p.number('low');
    const high = p.number('high');
    if (high < low) p.fail('high', `at least low (${low})`);
    return new GuessNumber(low, high, p.count('max_turns'));
  }

  private opening(): string {
    return `${this.low}..${this.high}`;
  }

  start(rng: Rng): Dialogue {
    return this.dialogue(this.low + rng.int(this.high - this.low + 1));
  }

  evaluationDialogues(): Dialogue[] {
    const span = this.high - this.low + 1;
    const count = Math.min(span, EVAL_LIMIT);
    return Array.from({ length: count }, (_, i) => this.dialogue(this.low + Math.floor((i * span) / count)));
  }

  /** A dialogue about `hidden`. */
  dialogue(hidden: number): Dialogue & { readonly hidden: number } {
    let low = this.low;
    let high = this.high;
    let turns = 0;
    return {
      hidden,
      opening: this.opening(),
      turn(text: string): TurnResult {
        const info = { turns: ++turns, hidden };
        const guess = /^-?[0-9]+$/.test(text.trim()) ? Number(text.trim()) : NaN;
        if (Number.isNaN(guess)) return { observation: REPLIES.invalid, reward: 0, done: false, success: false, info };
        if (guess === hidden) return { observation: REPLIES.correct, reward: 1, done: true, success: true, info };
        // The expert's interval narrows only on answers it can use: a guess outside it tells nothing new.
        if (guess < hidden) low = Math.max(low, guess + 1);
        else high = Math.min(high, guess - 1);
        return { observation: guess < hidden ? REPLIES.higher : REPLIES.lower, reward: 0, done: false, success: false, info };
      },
      expert: () => String(Math.floor((low + high) / 2)),
    };
  }
}
