// A user's text env module (`env Tool = module("./tool.ts")` whose spec says actions: 'text') as
// a multi-turn dialogue env (dialogue.ts), which the text learners train on as they do on
// GuessNumber. Each dialogue runs on a copy of the module in its worker thread: a batch runs
// many dialogues in lockstep, so there are as many copies as dialogues at once, made as needed
// and reused once their dialogue is over (it said done, or used its last turn).
//
// A dialogue starts by drawing a seed from the rng it is given and calling reset(seed): the
// dialogues of a group replay the same draws, so they share their start. Evaluation runs
// reset(0) .. reset(EVAL_DIALOGUES - 1), the same dialogues for every run.
import type { TextModule } from '../envs/user-module.js';
import type { Rng } from '../../shared/random.js';
import type { Dialogue, DialogueEnv, TurnResult } from './dialogue.js';

/** Dialogues of a held-out evaluation: seeds 0 .. 99. */
export const EVAL_DIALOGUES = 100;

export class ModuleDialogueEnv implements DialogueEnv {
  readonly alphabet: string;
  readonly maxTurns: number;
  readonly maxOpening: number;
  readonly maxReply: number;
  readonly maxTurnLength: number;
  /** Copies made so far, and whether each is in a dialogue that may still take a turn. */
  private readonly copies: number[] = [];
  private readonly busy: boolean[] = [];

  constructor(
    private readonly module: TextModule,
    private readonly params: Record<string, unknown>,
    /** The env as the plan names it, e.g. `Tool = module("./tool.ts")`. */
    readonly description: string,
  ) {
    const { bounds } = module.info;
    this.alphabet = bounds.alphabet;
    this.maxTurns = bounds.maxTurns;
    this.maxOpening = bounds.maxObservation;
    this.maxReply = bounds.maxObservation;
    this.maxTurnLength = bounds.maxAction;
  }

  start(rng: Rng): Dialogue {
    return this.dialogue(rng.uint32());
  }

  evaluationDialogues(): Dialogue[] {
    return Array.from({ length: EVAL_DIALOGUES }, (_, seed) => this.dialogue(seed));
  }

  /** The dialogue the module starts with reset(seed), on a free copy. */
  dialogue(seed: number): Dialogue {
    const module = this.module;
    const slot = this.freeCopy();
    const copy = this.copies[slot]!;
    const release = () => (this.busy[slot] = false);
    const { observation } = module.reset(copy, seed);
    let turns = 0;
    let over = false;
    const dialogue: Dialogue = {
      opening: observation,
      turn: (text: string): TurnResult => {
        if (over) throw new Error(`a dialogue of ${this.description} took a turn after it ended`);
        const result = module.step(copy, text);
        turns++;
        if (result.done || turns >= this.maxTurns) {
          over = true;
          release();
        }
        return result;
      },
    };
    return module.info.hasExpert ? { ...dialogue, expert: () => module.expert(copy) ?? '' } : dialogue;
  }

  /** The index of a copy no dialogue holds (a new one if all are held); marked held. */
  private freeCopy(): number {
    let slot = this.busy.indexOf(false);
    if (slot < 0) {
      this.copies.push(this.module.create(this.params));
      this.busy.push(false);
      slot = this.copies.length - 1;
    }
    this.busy[slot] = true;
    return slot;
  }
}
