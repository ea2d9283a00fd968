// The plan's reward terms (a `reward { term ... }` declaration), compiled once into one JS
// function per run that evaluates every term for one transition, writes each term's value
// and returns their sum. The trainer fills a RewardContext per env step and calls evaluate().
//
// Names a term can use (docs/language.md#rewards-and-conditions): obs.FIELD and next_obs.FIELD (the env's
// observation fields; next_obs is the observation that ended the episode on its last step,
// not the next episode's first), obs / next_obs as vectors, action (a number, or a vector for
// multi-dimensional boxes), goal and achieved (goal-conditioned envs, after the step),
// terminated, truncated, success, t (the step's index in its episode, from 0), info.NAME (what
// a user module's spec declares it reports; bound to the env's values by bindInfo()). Text envs
// add their texts (text-terms.ts); dialogues, evaluated once per agent turn,
// add env_reward, the env's own reward for the turn.
import type { PlanReward } from '../../dsl/compile/plan.js';
import { spaceSize, type Space } from '../envs/types.js';
import { NOT_IMPLEMENTED_REWARD_NAMES } from '../not-implemented.js';
import { TEXT_NAMES, textNamesOf, TextVerifiers } from './text-terms.js';
import { INTRINSIC_NAMES, readsIntrinsic } from './intrinsic-rewards.js';
import { compileScalar, ExprError, type Code } from './expr.js';
import { InputError } from '../../shared/input-error.js';
import { PythonRewardFunctions } from './python-rewards.js';
import type { CodeCases } from './code-verifier.js';
import { RowFields, type RowSource } from './row-fields.js';

export { compileScalar, EXPR_FUNCTIONS, ExprError, numberLiteral, type Code, type NameResolver } from './expr.js';

/** The names (and name prefixes) a reward term may use with this runtime's envs. */
export const REWARD_REFS = ['obs', 'next_obs', 'action', 'goal', 'achieved', 'terminated', 'truncated', 'success', 't', 'info'] as const;

/**
 * A reward that cannot be evaluated against its env: a name the env lacks (`obs.positon`,
 * `info.distnce`). The message names the reward, the term and what the env has instead.
 */
export class RewardError extends InputError {
  override name = 'RewardError';
}

/** What the reward compiler needs to know about the env. */
export interface RewardEnv {
  readonly kind: string;
  readonly obsFields: readonly string[];
  readonly actionSpace: Space;
  /** Goal-conditioned envs: the observation fields holding the goal and the achieved goal. */
  readonly goalFields?: readonly string[];
  readonly achievedFields?: readonly string[];
  /** A text env: terms read its texts through the verifiers (runtime/text). */
  readonly text?: boolean;
  /** A multi-turn text env: terms read reply, env_reward and info per agent turn (runtime/text/dialogue-reward.ts). */
  readonly dialogue?: boolean;
}

/** One transition, as the trainer fills it before each evaluate(). */
export class RewardContext implements RowSource {
  readonly obs: Float32Array;
  readonly nextObs: Float32Array;
  readonly action: Float32Array;
  terminated = 0;
  truncated = 0;
  success = 0;
  t = 0;
  /** The info values the terms read (CompiledReward.infoNames), in that order. */
  info: Float64Array = new Float64Array(0);
  /** Text envs: the texts verifiers read. */
  prompt = '';
  completion = '';
  target = '';
  reply = '';
  /** Dialogues: the env's own reward for the turn. */
  envReward = 0;
  /** Single-turn text tasks: the completion's intrinsic rewards (intrinsic-rewards.ts). */
  selfCertainty = 0;
  negEntropy = 0;
  logprob = 0;
  /** Single-turn text tasks read from a dataset: the prompt's row (`row.NAME`) and where it is (`./data.jsonl line 12`). */
  row: Readonly<Record<string, unknown>> | undefined = undefined;
  rowWhere = '';
  /** The python(...) functions' values for this completion, and which of them were None (not scored). */
  python: Float64Array = new Float64Array(0);
  pythonNone: Uint8Array = new Uint8Array(0);

  constructor(obsDim: number, actionDim: number) {
    this.obs = new Float32Array(obsDim);
    this.nextObs = new Float32Array(obsDim);
    this.action = new Float32Array(actionDim);
  }
}

/** Run-time state some functions need: novelty() counts visits; the verifiers' compiled patterns and literals. */
class RewardHelpers {
  private readonly visits = new Map<string, number>();

  constructor(readonly text: TextVerifiers | undefined, readonly row: RowFields) {}

  /** 1/sqrt(n), n the visits so far (this one included) to the observation rounded to 0.1 per element. */
  novelty(...values: number[]): number {
    const key = values.map((v) => Math.round(v * 10)).join(',');
    const n = (this.visits.get(key) ?? 0) + 1;
    this.visits.set(key, n);
    return 1 / Math.sqrt(n);
  }
}

type TermsFunction = (c: RewardContext, h: RewardHelpers, out: Float64Array) => number;

export class CompiledReward {
  /** Values of the terms at the last evaluate(), in the order of termNames. */
  readonly values: Float64Array;
  /** Where each of infoNames sits in the env's info row (bindInfo()). */
  private infoIndex: Int32Array | null = null;
  private infoWidth = 0;

  constructor(
    readonly name: string,
    readonly termNames: readonly string[],
    readonly replaceEnvReward: boolean,
    readonly context: RewardContext,
    private readonly fn: TermsFunction,
    /** The generated JS, for debugging. */
    readonly source: string,
    private readonly helpers: RewardHelpers,
    /** The `info.NAME`s the terms read, each once. */
    readonly infoNames: readonly string[] = [],
    /** The terms read an intrinsic reward (self_certainty, neg_entropy, logprob): a text task then records its tokens' sampling statistics. */
    readonly intrinsic = false,
    /** The python("...") functions the terms call (none: size 0); scored a batch at a time before evaluate(). */
    readonly python: PythonRewardFunctions = new PythonRewardFunctions(`reward ${name}`),
    /** Per term, whether it calls a python() function (its value may then be "not scored": NaN in values). */
    readonly pythonTerms: readonly boolean[] = [],
  ) {
    this.values = new Float64Array(termNames.length);
    this.context.info = new Float64Array(infoNames.length);
    this.context.python = new Float64Array(python.size);
    this.context.pythonNone = new Uint8Array(python.size);
  }

  /** The passes() calls' cases where a term calls passes() (the env runs a batch's together before scoring it), else undefined. */
  get code(): CodeCases | undefined {
    return this.helpers.text?.readsCode ? this.helpers.text.code : undefined;
  }

  /** Loads completion `r` of the batch the python() functions last scored into the context. */
  selectPython(r: number): void {
    if (this.python.size > 0) this.python.select(this.context.python, this.context.pythonNone, r);
  }

  /**
   * Finds the info values the terms read among those the env reports (VecEnv.infoFields);
   * a RewardError names the first missing one. The stepper calls it once, before training.
   */
  bindInfo(env: { readonly kind: string; readonly infoFields: readonly string[] }): void {
    const missing = this.infoNames.find((n) => !env.infoFields.includes(n));
    if (missing !== undefined) {
      const has = env.infoFields.length > 0 ? `it reports ${env.infoFields.join(', ')}` : "it reports none (a user module declares what it reports in its spec's info)";
      throw new RewardError(`reward ${this.name}: env ${env.kind} reports no info value "${missing}" (info.${missing}); ${has}`);
    }
    this.infoIndex = Int32Array.from(this.infoNames, (n) => env.infoFields.indexOf(n));
    this.infoWidth = env.infoFields.length;
  }

  /** Loads copy `copy`'s row of the env's info values (VecEnv.info) into the context. */
  readInfo(info: Float64Array, copy: number): void {
    const index = this.infoIndex;
    if (index === null) return;
    for (let k = 0; k < index.length; k++) this.context.info[k] = info[copy * this.infoWidth + index[k]];
  }

  /** Evaluates every term for the transition in `context`; returns their sum. */
  evaluate(): number {
    return this.fn(this.context, this.helpers, this.values);
  }
}

/** Compiles the plan's reward for `env`; errors name the reward, the term and the bad name. */
export function compileReward(reward: PlanReward, env: RewardEnv): CompiledReward {
  const actionDim = spaceSize(env.actionSpace);
  const infoNames: string[] = [];
  const row = new RowFields(`reward ${reward.name}`);
  const resolve = rewardResolver(env, actionDim, infoNames, row);
  const task = env.text === true && env.dialogue !== true;
  const text = env.text ? new TextVerifiers(textNamesOf({ dialogue: env.dialogue === true }), task ? row : undefined) : undefined;
  const python = new PythonRewardFunctions(`reward ${reward.name}`);
  const pythonTerms: boolean[] = [];
  const lines = ['let s = 0, v = 0;'];
  reward.terms.forEach((term, i) => {
    let code: string;
    // The python() functions this term reads: where one returned None, the term is not scored.
    const slots: number[] = [];
    try {
      code = compileScalar(term.expr, resolve, {
        novelty: (args) => `h.novelty(${args.join(', ')})`,
        text: text && ((call, args, scalar) => text.compileCall(call, args, scalar)),
        ...(task ? { python: (spec: string) => {
          const k = python.slot(spec);
          if (!slots.includes(k)) slots.push(k);
          return `c.python[${k}]`;
        } } : {}),
      });
    } catch (err) {
      if (err instanceof ExprError) throw new RewardError(`reward ${reward.name}, term ${term.name}: ${err.message}`, { cause: err });
      throw err;
    }
    pythonTerms.push(slots.length > 0);
    const scored = [`v = ${code};`, `out[${i}] = v;`, 's += v;'];
    if (slots.length === 0) lines.push(...scored);
    else lines.push(`if (${slots.map((k) => `c.pythonNone[${k}] !== 0`).join(' || ')}) { out[${i}] = NaN; } else { ${scored.join(' ')} }`);
  });
  lines.push('return s;');
  const source = lines.join('\n');
  const fn = new Function('c', 'h', 'out', source) as TermsFunction;
  const context = new RewardContext(env.obsFields.length, actionDim);
  return new CompiledReward(reward.name, reward.terms.map((t) => t.name), reward.replace_env_reward, context, fn, source, new RewardHelpers(text, row), infoNames, readsIntrinsic(reward), python, pythonTerms);
}

/** `infoNames` collects the info values the terms read, each once. */
function rewardResolver(env: RewardEnv, actionDim: number, infoNames: string[], row: RowFields): (ref: string) => Code {
  const fields = env.obsFields;
  const field = (vector: 'obs' | 'nextObs', name: string, shown: string): Code => {
    const index = fields.indexOf(name);
    if (index < 0) {
      const known = fields.length > 0 ? `its fields are ${fields.join(', ')}` : 'it has no named observation fields';
      throw new ExprError(`${env.kind} has no observation field "${name}" (in ${shown}); ${known}`);
    }
    return { scalar: `c.${vector}[${index}]` };
  };
  const whole = (vector: 'obs' | 'nextObs'): Code => ({ vector: fields.map((_, i) => `c.${vector}[${i}]`) });
  const goalVector = (which: 'goalFields' | 'achievedFields', name: string): Code => {
    const names = env[which];
    if (!names) throw new ExprError(`"${name}" needs a goal-conditioned env; ${env.kind} is not one`);
    return { vector: names.map((n) => (field('nextObs', n, name) as { scalar: string }).scalar) };
  };
  return (ref) => {
    const [head, ...rest] = ref.split('.');
    const sub = rest.join('.');
    if ((head === 'obs' || head === 'next_obs') && sub) return field(head === 'obs' ? 'obs' : 'nextObs', sub, ref);
    if (rest.length > 0 && head !== 'info' && head !== 'row') throw new ExprError(`"${head}" has no fields (in ${ref})`);
    switch (head) {
      case 'obs':
        return whole('obs');
      case 'next_obs':
        return whole('nextObs');
      case 'action':
        return actionDim === 1 ? { scalar: 'c.action[0]' } : { vector: Array.from({ length: actionDim }, (_, i) => `c.action[${i}]`) };
      case 'goal':
        return goalVector('goalFields', ref);
      case 'achieved':
        return goalVector('achievedFields', ref);
      case 'terminated':
      case 'truncated':
      case 'success':
      case 't':
        return { scalar: `c.${head}` };
      case 'env_reward':
        if (!env.dialogue) throw new ExprError(`"env_reward": only dialogue envs (GuessNumber, user text modules) have one; ${env.kind} is not one`);
        return { scalar: 'c.envReward' };
      case 'self_certainty':
      case 'neg_entropy':
      case 'logprob':
        // Statistics of the distributions a completion's tokens were sampled from: only a single-turn text task records them.
        if (!env.text || env.dialogue) throw new ExprError(`"${head}" is an intrinsic reward of a text task's completion (its tokens' sampling distributions); ${env.kind} ${env.text ? 'is a dialogue: only single-turn TextTask has it' : 'samples no text'}`);
        return { scalar: `c.${INTRINSIC_NAMES[head]}` };
      case 'row': {
        // Single-turn text tasks: a field of the dataset row the prompt came from (row-fields.ts).
        if (!env.text || env.dialogue) throw new ExprError(`"row.${sub}": only a single-turn text task (TextTask) with a dataset has rows; ${env.kind} has none`);
        if (!sub || rest.length > 1) throw new ExprError(`"${ref}": name one field of the dataset row, such as row.answer`);
        return { scalar: `h.row.number(c, ${row.index(sub)})` };
      }
      case 'info': {
        // Single-turn text tasks report none; others report what they declare, bound by bindInfo().
        if ((env.text && !env.dialogue) || !sub) throw new ExprError(`${env.kind} reports no info value "${sub}" to reward terms`);
        if (!infoNames.includes(sub)) infoNames.push(sub);
        return { scalar: `c.info[${infoNames.indexOf(sub)}]` };
      }
    }
    if (env.text && (TEXT_NAMES as readonly string[]).includes(head)) throw new ExprError(`"${head}" is text: use it in a verifier such as exact(${head}, target) or length(${head})`);
    if (Object.hasOwn(NOT_IMPLEMENTED_REWARD_NAMES, head)) throw new ExprError(`"${head}": ${NOT_IMPLEMENTED_REWARD_NAMES[head]}`);
    throw new ExprError(`unknown name "${ref}"; reward terms can use ${REWARD_REFS.join(', ')}`);
  };
}
