// The plan: the compiler's output and the runtime's only input (docs/language.md#plans).
// Plain JSON, fully resolved: bases merged, defaults filled, schedules and expressions
// normalised. Bump PLAN_FORMAT when a change would make an old runtime misread a new plan.
import type { PlanValue } from '../schema/types.js';

export const PLAN_FORMAT = 1;

/** A hyperparameter that changes over a stage's budget; `over` is a fraction of that budget. */
export type Schedule =
  | { schedule: 'constant'; value: number }
  | { schedule: 'linear' | 'cosine'; from: number; to: number; over: number }
  | { schedule: 'warmup'; steps: number; then: Schedule };

/** A normalised expression: constants folded, named arguments bound, defaults filled. */
export type PlanExpr =
  | { const: number | boolean | string }
  | { ref: string }
  | { op: '+' | '-' | '*' | '/' | '^' | '==' | '!=' | '<' | '<=' | '>' | '>=' | 'and' | 'or'; args: [PlanExpr, PlanExpr] }
  | { op: 'neg' | 'not'; args: [PlanExpr] }
  | { call: string; args: PlanExpr[] }
  | { list: PlanExpr[] };

export interface PlanComponent {
  /** The user declaration's name (or the built-in's, when referenced directly). */
  name: string;
  /** The built-in at the root of the inheritance chain, or 'module' for user code. */
  kind: string;
  /** Every parameter of the built-in, defaults filled; schedulable ones as Schedule objects. */
  params: Record<string, PlanValue>;
  /** For kind 'module' (a learner module, `algorithm X = module("./x.ts")`): the file, relative to the directory of the plan's entry .rlx file. */
  module?: string;
}

/** The policy: for kind 'pretrained', its model folder; params hold `lora` (null: full fine-tuning) and `chat` (compile/pretrained.ts). */
export interface PlanPolicy extends PlanComponent {
  /** For kind 'pretrained': the Hugging Face model folder, absolute (it usually lies outside the spec's folder). */
  path?: string;
}

export interface PlanEnv extends PlanComponent {
  /** For kind 'module': the file, relative to the directory of the plan's entry .rlx file. */
  module?: string;
}

export interface PlanStage {
  name: string;
  algorithm: PlanComponent;
  /** Environment steps for this stage (SFT counts gradient steps in its own `updates`). */
  budget: number | null;
}

export interface PlanReward {
  name: string;
  replace_env_reward: boolean;
  terms: { name: string; expr: PlanExpr }[];
}

export interface Plan {
  rlx_plan: number;
  language_version: string;
  experiment: string;
  source: {
    /** The .rlx file the experiment was compiled from, relative to itself (its base name). */
    entry: string;
    /** Every file that contributed, relative to the entry's directory, sorted. */
    files: string[];
    /** sha256 over the files' paths and texts. */
    hash: string;
  };
  env: PlanEnv;
  policy: PlanPolicy;
  stages: PlanStage[];
  reward: PlanReward | null;
  envs: number;
  seeds: number[];
  device: string;
  /** 'fp16': mixed-precision gradient steps (docs/gpu.md#precision). Written only when not fp32, so plans from before it read the same; absent: fp32. */
  precision?: string;
  eval: { every: number; episodes: number; deterministic: boolean } | null;
  stop: PlanExpr | null;
  curriculum: { param: string; from: number; to: number; step: number; advance: PlanExpr } | null;
  /** Set on the members of a sweep. */
  sweep: {
    name: string;
    index: number;
    count: number;
    values: Record<string, PlanValue>;
    parallel: number;
    backend: string;
    slurm: Record<string, PlanValue> | null;
  } | null;
}
