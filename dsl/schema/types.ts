// The shapes of the schema registry: what a built-in declares about itself. The checker,
// completion, hover, the compiler, the docs generator and the runtime's drift test all read
// these declarations; nothing else states a built-in's parameters, defaults or ranges.
import type { DeclKind } from '../syntax/ast.js';

/** A fully resolved value as it appears in a plan (plain JSON). */
export type PlanValue = number | string | boolean | null | PlanValue[] | { [key: string]: PlanValue };

export interface NumberType {
  kind: 'number';
  integer?: boolean;
  min?: number;
  max?: number;
  /** `min` itself is not allowed (e.g. a learning rate must be > 0). */
  exclusiveMin?: boolean;
  exclusiveMax?: boolean;
  /** Allowed but unusual: a warning says why. */
  suspicious?: { above?: number; below?: number; why: string };
  /** Also accepts a schedule call: constant, linear, cosine, warmup. */
  schedule?: boolean;
}

/** One of a set of named options, bare (`tanh`) or called with arguments (`future(k: 4)`). */
export interface ChoiceOption {
  name: string;
  doc: string;
  /** Arguments of the call form; an option with no params is written bare. */
  params?: ParamSpec[];
}

/** What a `file` setting's file holds. */
export interface DataFileType {
  /** In words, for docs and messages: 'demonstrations, one {"prompt", "target"} object a line'. */
  readonly what: string;
  /**
   * How its contents are checked: `examples`, a JSONL file as `dataset("...")` reads it (dataset.ts);
   * `transitions`, an .npz of transitions (shared/transitions/transitions.ts: its headers, and its
   * observations against the env's); absent, only that it is a file rlx reads.
   */
  readonly format?: 'examples' | 'transitions';
}

export type ValueType =
  | NumberType
  | { kind: 'bool' }
  /**
   * A string; with `file`, the path of a data file a learner reads (relative to the .rlx file),
   * which its work lists (AlgorithmWork.dataFiles), the checker reads where the spec names it and
   * `rlx train` copies into the run folder (docs/run-directory.md#data); `nonEmpty`: the empty
   * string is refused (a stop string).
   */
  | { kind: 'string'; file?: DataFileType; nonEmpty?: boolean }
  | { kind: 'list'; of: ValueType; minItems?: number }
  | { kind: 'choice'; options: ChoiceOption[] }
  /** The name of a declaration of this kind (a user declaration, or for env/policy/algorithm a built-in). */
  | { kind: 'ref'; declKind: DeclKind }
  /** Any of several types, tried in order (`alpha: auto` or `alpha: 0.2`). */
  | { kind: 'oneOf'; types: ValueType[] }
  /** A boolean condition over run metrics (`eval.mean_return >= 475`). */
  | { kind: 'condition' }
  /** A dotted path into the experiment (`env.size`). */
  | { kind: 'path' }
  /** A value sent as JSON as written: a number, a string, true/false, none, or a list of these (a Python env's kwargs). */
  | { kind: 'literal' };

export interface ParamSpec {
  name: string;
  type: ValueType;
  /** Changing it changes the observation or action size, so a curriculum cannot move it (Bandit's arms). */
  changesSpaces?: boolean;
  /** Filled into the plan when the source does not state it; absent for required or optional-without-default. */
  default?: PlanValue;
  required?: boolean;
  doc: string;
  /**
   * The action kinds of the experiment's env on which the trainer does not read it (an eval
   * block's episodes on a text env): the checker warns where it is stated, inlay hints do not
   * offer its default.
   */
  unusedOn?: readonly ActionKind[];
}

export interface BlockSpec {
  name: string;
  doc: string;
  params: ParamSpec[];
  /** Why the trainer does not honour this block yet; absent when it does. */
  notImplemented?: string;
  /** Keys besides `params` the block accepts, each of this type (a chat template's variables). */
  otherKeys?: { type: ValueType; doc: string };
}

/** What an env's actions are: one of n choices, a vector of floats (a Box), n independent bits (MultiBinary), or text. */
export type ActionKind = 'discrete' | 'continuous' | 'multibinary' | 'text';

interface BuiltinBase {
  name: string;
  doc: string;
  params: ParamSpec[];
  /**
   * Why the trainer does not run this built-in yet; absent when it does. The checker warns at
   * the name, `rlx train` refuses it (runtime/not-implemented.ts reads it from here).
   */
  notImplemented?: string;
  /** Blocks its body may hold (a pretrained model's `lora { }`). */
  blocks?: BlockSpec[];
}

export interface EnvSpec extends BuiltinBase {
  declKind: 'env';
  /** Named observation fields, as reward expressions write them: `obs.theta`. */
  obsFields: string[];
  action: ActionKind;
  /** A multi-turn text env (a dialogue): reward terms are evaluated per agent turn and read `reply`, `env_reward`. */
  dialogue?: boolean;
  /** Has `goal` and `achieved`, so hindsight relabeling applies. */
  goalConditioned?: boolean;
  /** Extra names in `info.NAME`. */
  infoFields?: string[];
  /** Says which of its discrete actions are legal at each step (an action mask), so `action_mask: on` applies. */
  actionMask?: boolean;
  /** Observations are images [C, H, W] of pixel values 0-255 (what a `cnn` policy reads). */
  image?: boolean;
}

export interface AlgorithmSpec extends BuiltinBase {
  declKind: 'algorithm';
  /** Action kinds of the envs this algorithm can train on. */
  actions: ActionKind[];
  /** Action kinds of `actions` the trainer does not train this algorithm on yet, with why. */
  actionsNotImplemented?: Partial<Record<ActionKind, string>>;
  /** The parameter that gives the algorithm a length of its own, so a stage may omit `budget` (SFT: `updates`). */
  lengthParam?: string;
  /**
   * The networks it trains over observation vectors, in words ("an actor-critic"): a stage
   * starts from the previous stage's networks, so consecutive stages on a numeric env must
   * train the same ones. Absent for algorithms of text envs only (one language model).
   */
  networks?: string;
  /** Carries a policy's recurrent core (`core: gru(64)`): its state through rollouts, its sequences through the update. */
  recurrent?: boolean;
  /**
   * What one update holds at once, from its settings (all given, defaults filled): the one answer
   * the checker's memory estimate, the trainer's memory check and the device rule read, so none
   * of them switches on an algorithm's name.
   */
  work(params: Readonly<Record<string, PlanValue>>, on: WorkContext): Omit<AlgorithmWork, 'dataFiles'>;
}

/** What the env tells an algorithm's work: its copies and how many rows an episode makes. */
export interface WorkContext {
  /** The env is a text env: a language model samples its rows. */
  readonly text: boolean;
  /** Env copies stepped at once (a plan's `envs`). */
  readonly envs: number;
  /** Rows an episode gives a gradient step: 1 on a text env (a completion, a dialogue), its steps on an env of numbers. */
  readonly rowsPerEpisode: number;
}

/** An algorithm's update in rows and copies (AlgorithmSpec.work). */
export interface AlgorithmWork {
  /** Rows a language model decodes at once for one update (prompts x completions); 0 when it samples none (SFT, learners of numeric envs). */
  readonly sampleRows: number;
  /** Rows in one gradient step: a minibatch, a batch, an update's completions (and demonstrations). */
  readonly trainRows: number;
  /** Rows per forward/backward pass where a step is split into micro-batches; absent: trainRows at once. */
  readonly microBatch?: number;
  /** Rows a micro-batch keeps together, so micro_batch is a multiple of it (a learner module's groups: its loss may reshape rows by group_size); absent: 1. */
  readonly rowGroup?: number;
  /** The longest completion it samples, in tokens, where it bounds it (GRPO's max_new_tokens); else the env's. */
  readonly completionTokens?: number;
  /** Whether it keeps a frozen copy of the policy as a KL reference (with full fine-tuning: a copy of the model). */
  readonly referenceCopy: boolean;
  /** The data files it reads, by setting: the values of its `file` settings that name a file (filled from the settings' types, work.ts). */
  readonly dataFiles: readonly { readonly param: string; readonly path: string; readonly file: DataFileType }[];
  /** The sizes in words, for people: "GRPO 16 prompts x 8 completions". */
  readonly what: string;
}

export interface PolicySpec extends BuiltinBase {
  declKind: 'policy';
  /**
   * Written as a call with one folder path, `pretrained("./models/Qwen3-0.6B")`, relative to the
   * .rlx file: what the folder is. Such a policy is used through a declaration that names its folder.
   */
  folder?: { doc: string };
}

export type BuiltinSpec = EnvSpec | AlgorithmSpec | PolicySpec;

/** What a function in an expression takes and gives; `any` accepts anything. */
export type ExprType = 'number' | 'bool' | 'string' | 'vector' | 'any';

/**
 * What the text of a string argument must be: `regex`, a JavaScript regular expression; `tag`, a
 * tag name (`tagged`). Either is read once, before training, so it is written as a "string"
 * literal, which the checker reads too.
 */
/** What a "string" literal argument must be: a regex, a tag name, or `./file.py:function` (python()). */
/** What a string argument must be: a regex, a tag name or a Python function ("string" literals read once), or tests (a dataset field that may be a list of texts). */
export type StringSyntax = 'regex' | 'tag' | 'python-function' | 'tests';

export interface FunctionSpec {
  name: string;
  doc: string;
  params: { name: string; type: ExprType; default?: number; doc?: string; syntax?: StringSyntax }[];
  /** Accepts any number (>= 1) of arguments of the first param's type (min, max). */
  variadic?: boolean;
  returns: ExprType;
  /** Only meaningful on text tasks (verifiers). */
  text?: boolean;
  /** Only in the reward of a single-turn text task (TextTask), not a dialogue's or a condition (python()). */
  taskOnly?: boolean;
}

/** A name a reward term may use (`obs`, `action`, `prompt`, ...), and when it exists. */
export interface RewardName {
  name: string;
  doc: string;
  type: ExprType;
  /** `obs.FIELD`: the env's observation fields; `info.NAME`: any name; `row.NAME`: a dataset's columns. */
  fields?: 'obs' | 'info' | 'row';
  availableFor: RewardNameAvailability;
}

/**
 * Which envs have a reward name: every env, goal-conditioned ones, text envs (TextTask and
 * dialogues), single-turn text tasks only (TextTask), dialogue envs only, or envs of numbers.
 */
export type RewardNameAvailability = 'all' | 'goal' | 'text' | 'task' | 'dialogue' | 'nontext';

export interface MetricName {
  name: string;
  doc: string;
  /** Only text runs report it. */
  textOnly?: boolean;
  /** Why the trainer cannot test it in a condition yet; absent when it can. */
  notImplemented?: string;
}

/** The members a user declaration of a kind may hold (experiment, reward, sweep, and a stage). */
export interface DeclarationSchema {
  declKind: DeclKind | 'stage';
  doc: string;
  params: ParamSpec[];
  blocks: BlockSpec[];
  /** Which `term`/`stage` members are allowed. */
  named?: 'term' | 'stage';
}
