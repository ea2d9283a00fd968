// The plan's reward terms on a dialogue (GuessNumber, a user text module), evaluated once per
// agent turn. A term reads the turn as TextTask's terms read a completion, plus what only a
// dialogue has (docs/language.md, "Names in reward terms"):
//
//   completion  the agent's turn            prompt      the dialogue before it, one message a line
//   reply       the env's answer ('' on the turn that ends the dialogue: never shown)
//   env_reward  the env's reward for it     terminated  the env said done
//   truncated   the last allowed turn, not done            success  the turn's success
//   t           the turn, from 0            info.NAME   what step() reported (spec.info)
//
// The turn's training reward is the terms' sum, added to the env's reward or replacing it
// (replace_env_reward); a dialogue's return is the sum over its turns, as for any episode.
import type { Plan } from '../../dsl/compile/plan.js';
import { PYTHON_TEXT_ENV_KIND } from '../../dsl/schema/python-text-env.js';
import { compileReward, type CompiledReward } from '../rewards/index.js';
import type { DialogueMessage } from './text-env.js';

// TurnResult lives here, not in dialogue.ts (which re-exports it): the reward reads it, and the
// dialogue loop reads the reward, so neither file imports the other back.
/** What the env says after an agent turn. */
export interface TurnResult {
  /** The env's next message (ignored once the dialogue is done). */
  readonly observation: string;
  /** The same as chat messages, where the env gave a list of them (`observation` is their contents joined by newlines). */
  readonly messages?: readonly DialogueMessage[];
  readonly reward: number;
  readonly done: boolean;
  /** Whether the agent reached the goal (GuessNumber: found the number); feeds `success`. */
  readonly success?: boolean;
  /** The values the env reports for reward terms' `info.NAME` (true/false as 1/0). */
  readonly info?: Readonly<Record<string, number>>;
}

/** One agent turn, as the terms see it. */
export interface TurnFacts {
  /** The dialogue before the turn: the opening, then each agent turn and env reply, joined by newlines. */
  readonly prompt: string;
  readonly completion: string;
  readonly result: TurnResult;
  /** The turn's index in its dialogue, from 0. */
  readonly t: number;
  /** The dialogue was cut after this turn (its last allowed one, without done). */
  readonly truncated: boolean;
}

export class DialogueReward {
  readonly termNames: readonly string[];

  private constructor(
    private readonly reward: CompiledReward | null,
    /** The info values the env reports (GuessNumber's registry entry, a module's spec.info). */
    infoFields: readonly string[],
    kind: string,
  ) {
    this.termNames = reward?.termNames ?? [];
    reward?.bindInfo({ kind, infoFields });
  }

  /** The env's own rewards, unchanged. */
  static none(): DialogueReward {
    return new DialogueReward(null, [], '');
  }

  /** The plan's reward (none when it declares none) for a dialogue env reporting `infoFields`; errors name the term. */
  static fromPlan(plan: Plan, infoFields: readonly string[]): DialogueReward {
    if (!plan.reward) return DialogueReward.none();
    // A user's env (a module, a Python text env) is named by its declaration.
    const kind = plan.env.kind === 'module' || plan.env.kind === PYTHON_TEXT_ENV_KIND ? plan.env.name : plan.env.kind;
    const compiled = compileReward(plan.reward, { kind, obsFields: [], actionSpace: { kind: 'discrete', n: 1 }, text: true, dialogue: true });
    return new DialogueReward(compiled, infoFields, kind);
  }

  /** The turn's training reward; each term's value is added into `termSums` from `offset` (in termNames order). */
  score(turn: TurnFacts, termSums: Float64Array, offset: number): number {
    const reward = this.reward;
    const { result } = turn;
    if (!reward) return result.reward;
    const c = reward.context;
    c.prompt = turn.prompt;
    c.completion = turn.completion;
    c.reply = result.done || turn.truncated ? '' : result.observation;
    c.envReward = result.reward;
    c.terminated = result.done ? 1 : 0;
    c.truncated = turn.truncated ? 1 : 0;
    c.success = result.success ? 1 : 0;
    c.t = turn.t;
    reward.infoNames.forEach((name, k) => (c.info[k] = result.info?.[name] ?? 0));
    const sum = reward.evaluate();
    reward.values.forEach((v, k) => {
      if (!Number.isFinite(v)) throw new Error(`reward ${reward.name}: term ${reward.termNames[k]} is ${v} at turn ${turn.t} of a dialogue (the turn ${JSON.stringify(turn.completion)}); make the term finite for every turn`);
      termSums[offset + k] += v;
    });
    return reward.replaceEnvReward ? sum : result.reward + sum;
  }
}
