// What a user learner module (`algorithm Mine = module("./mine.ts")`) declares about itself, so
// that the checker, completion and hover know its settings without running user code:
//
//   export const spec = {
//     api: 1,                         // optional: the rlx/learner version it is written against
//     kind: 'text',                   // 'text' (a language model on text envs) | 'numeric'
//     doc: 'What it optimises.',      // optional, shown on hover
//     settings: {                     // its own settings, set in the .rlx body like a built-in's
//       positive_weight: { type: 'number', default: 0.1, min: 0, max: 10, doc: 'Weight of ...' },
//       mode: { type: 'choice', options: ['mean', 'median'], default: 'mean' },
//       steps: { type: 'int', default: 4, min: 1 },
//       normalise: { type: 'bool', default: true },
//     },
//   };
//
// Besides its own settings a learner has rlx's (TEXT_LEARNER_PARAMS, NUMERIC_LEARNER_PARAMS by
// kind): how batches are sampled and how the optimiser steps; a module setting may not take one
// of their names. The checker
// reads the spec from the file's text (semantics/env-module.ts reads both kinds of module); the
// trainer checks the module's actual `spec` export against the same rules (learnerModuleSpec).
import { bool, choice, count, discount, int, learningRate, num, option, param } from './build.js';
import type { AlgorithmSpec, ParamSpec, PlanValue, ValueType } from './types.js';
import { PROMPT_LENGTH_PARAMS, SAMPLING_PARAMS } from './sampling.js';
import { MODULE_MEMORY_PARAMS } from './text-memory.js';

/** The rlx/learner API version this rlx implements; a spec's `api` must not be newer. */
export const LEARNER_API_VERSION = 1;

export type LearnerKind = 'text' | 'numeric';

export interface LearnerSetting {
  readonly name: string;
  readonly type: 'number' | 'int' | 'bool' | 'choice';
  readonly default: number | boolean | string;
  readonly min?: number;
  readonly max?: number;
  readonly options?: readonly string[];
  readonly doc: string;
}

export interface LearnerModuleSpec {
  readonly api: number;
  readonly kind: LearnerKind;
  readonly doc: string;
  readonly settings: readonly LearnerSetting[];
}

/** The keys that make a spec a learner's rather than an env's (an env spec has none of them). */
export const LEARNER_SPEC_KEYS = ['api', 'kind', 'doc', 'settings'];
const SETTING_KEYS = ['type', 'default', 'min', 'max', 'options', 'doc'];
const SETTING_NAME = /^[a-z_][a-z0-9_]*$/;

const buildTimeout = param('build_timeout', num({ min: 0, exclusiveMin: true, max: 3600 }), 60, 'Seconds the module may take to load and build its loss (tried first in a worker thread) before the run fails: a loop that never ends is stopped.');

/** The settings rlx owns for every text learner module: sampling and the optimiser (runtime/algorithms/module/). */
export const TEXT_LEARNER_PARAMS: readonly ParamSpec[] = [
  param('group_size', int({ min: 1, max: 1024 }), 8, 'Completions sampled per prompt (a group: the batch\'s rows come in groups of this many).'),
  param('prompts_per_update', count({ max: 1e5 }), 16, 'Prompts per update.'),
  learningRate(1e-4),
  param('iterations', count({ max: 100 }), 1, 'Gradient steps on each batch; with more than one the module may read oldLogProb (the sampling policy\'s).'),
  param('max_new_tokens', count({ max: 1_048_576 }), 8, 'Longest completion sampled, in the policy\'s tokens (at most the env\'s max_tokens; with the prompt, at most a pretrained model\'s context).'),
  param('temperature', num({ min: 0, exclusiveMin: true, max: 10 }), 1.0, 'Sampling temperature; log-probabilities are of the logits divided by it.'),
  ...SAMPLING_PARAMS,
  ...PROMPT_LENGTH_PARAMS,
  param('max_grad_norm', num({ min: 0, exclusiveMin: true }), 1.0, 'Gradients are rescaled so their global norm is at most this.'),
  ...MODULE_MEMORY_PARAMS,
  buildTimeout,
];

/**
 * The settings rlx owns for every numeric learner module: the off-policy loop around its
 * losses (runtime/algorithms/module/numeric-learner.ts); defaults as CleanRL's td3_continuous_action.py.
 */
export const NUMERIC_LEARNER_PARAMS: readonly ParamSpec[] = [
  learningRate(3e-4),
  param('buffer', count({ max: 1e8 }), 1_000_000, 'Replay buffer capacity, in transitions.'),
  param('batch_size', count({ max: 1e6 }), 256, 'Transitions per update (batch.observations has this many rows).'),
  discount(0.99),
  param('tau', num({ min: 0, exclusiveMin: true, max: 1 }), 0.005, 'Target network update rate (Polyak averaging), after each actor step.'),
  param('learning_starts', int({ min: 0 }), 25_000, 'Environment steps of uniformly random actions before the first update.'),
  param('exploration_noise', num({ min: 0, max: 10 }), 0.1, 'Acting adds N(0, exploration_noise * (high - low) / 2) to the actor\'s action, clipped to the bounds.'),
  param('train_every', count(), 1, 'Environment steps between updates.'),
  param('gradient_steps', count({ max: 1000 }), 1, 'Updates (a batch, then the losses due) each time the learner trains.'),
  buildTimeout,
];

/** rlx's own settings of a learner of `kind`. */
export function learnerParams(kind: LearnerKind): readonly ParamSpec[] {
  return kind === 'text' ? TEXT_LEARNER_PARAMS : NUMERIC_LEARNER_PARAMS;
}

/** The spec a value describes, or what is wrong with it (the trainer checks the module's export with this). */
export function learnerModuleSpec(value: unknown): { spec: LearnerModuleSpec } | { problem: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: "a learner's spec must be an object: { kind: 'text', settings: { ... } }" };
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((k) => !LEARNER_SPEC_KEYS.includes(k));
  if (unknown.length > 0) return { problem: `a learner's spec has no key ${unknown.map((k) => `'${k}'`).join(', ')}; its keys are ${LEARNER_SPEC_KEYS.join(', ')}` };
  const api = record.api ?? LEARNER_API_VERSION;
  if (typeof api !== 'number' || !Number.isInteger(api) || api < 1) return { problem: `spec.api must be a whole number such as ${LEARNER_API_VERSION}, not ${JSON.stringify(api)}` };
  if (api > LEARNER_API_VERSION) return { problem: `spec.api is ${api}, but this rlx implements rlx/learner version ${LEARNER_API_VERSION}: update rlx, or write the learner against version ${LEARNER_API_VERSION}` };
  if (record.kind !== 'text' && record.kind !== 'numeric') return { problem: `spec.kind must be 'text' or 'numeric'${record.kind === undefined ? '' : `, not ${JSON.stringify(record.kind)}`}` };
  if (record.doc !== undefined && typeof record.doc !== 'string') return { problem: 'spec.doc must be a string' };
  const settingsValue = record.settings ?? {};
  if (typeof settingsValue !== 'object' || settingsValue === null || Array.isArray(settingsValue)) return { problem: 'spec.settings must be an object of settings: { name: { type: \'number\', default: 1 } }' };
  const settings: LearnerSetting[] = [];
  for (const [name, declared] of Object.entries(settingsValue as Record<string, unknown>)) {
    const setting = learnerSetting(name, declared, record.kind);
    if (typeof setting === 'string') return { problem: setting };
    settings.push(setting);
  }
  return { spec: { api, kind: record.kind, doc: (record.doc as string | undefined) ?? '', settings } };
}

function learnerSetting(name: string, value: unknown, kind: LearnerKind): LearnerSetting | string {
  const owned = learnerParams(kind);
  const at = `spec.settings.${name}`;
  if (!SETTING_NAME.test(name)) return `${at}: a setting's name is lower case letters, digits and '_' (as .rlx writes it)`;
  // Settings become keys of plain objects (the plan's, the module's settings): this one would set a prototype instead.
  if (name === '__proto__') return `${at}: '__proto__' cannot name a setting (JavaScript gives it a meaning of its own); name it otherwise`;
  if (owned.some((p) => p.name === name)) return `${at}: '${name}' is one of rlx's own settings of every ${kind} learner (${owned.map((p) => p.name).join(', ')}); name yours otherwise`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${at} must be an object such as { type: 'number', default: 0.5 }`;
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((k) => !SETTING_KEYS.includes(k));
  if (unknown.length > 0) return `${at} has no key ${unknown.map((k) => `'${k}'`).join(', ')}; a setting's keys are ${SETTING_KEYS.join(', ')}`;
  const type = record.type;
  if (type !== 'number' && type !== 'int' && type !== 'bool' && type !== 'choice') return `${at}.type must be 'number', 'int', 'bool' or 'choice'${type === undefined ? '' : `, not ${JSON.stringify(type)}`}`;
  if (record.doc !== undefined && typeof record.doc !== 'string') return `${at}.doc must be a string`;
  const doc = (record.doc as string | undefined) ?? '';
  const fallback = record.default;
  if (type === 'bool') {
    if (typeof fallback !== 'boolean') return `${at}.default must be true or false`;
    if (record.min !== undefined || record.max !== undefined || record.options !== undefined) return `${at}: a bool setting has no min, max or options`;
    return { name, type, default: fallback, doc };
  }
  if (type === 'choice') {
    const options = record.options;
    if (!Array.isArray(options) || options.length === 0 || !options.every((o) => typeof o === 'string' && SETTING_NAME.test(o))) return `${at}.options must be a non-empty list of names such as ['mean', 'median']`;
    if (typeof fallback !== 'string' || !options.includes(fallback)) return `${at}.default must be one of its options (${options.join(', ')})`;
    if (record.min !== undefined || record.max !== undefined) return `${at}: a choice setting has no min or max`;
    return { name, type, default: fallback, options: options as string[], doc };
  }
  if (record.options !== undefined) return `${at}: a ${type} setting has no options (type 'choice' has)`;
  for (const bound of ['min', 'max'] as const) {
    const b = record[bound];
    if (b !== undefined && (typeof b !== 'number' || !Number.isFinite(b))) return `${at}.${bound} must be a number`;
  }
  const min = record.min as number | undefined;
  const max = record.max as number | undefined;
  if (min !== undefined && max !== undefined && min > max) return `${at}: min ${min} is above max ${max}`;
  if (typeof fallback !== 'number' || !Number.isFinite(fallback)) return `${at}.default must be a number`;
  if (type === 'int' && !Number.isInteger(fallback)) return `${at}.default must be a whole number (type 'int')`;
  if ((min !== undefined && fallback < min) || (max !== undefined && fallback > max)) return `${at}.default ${fallback} is outside its range [${min ?? '-inf'}, ${max ?? 'inf'}]`;
  return { name, type, default: fallback, ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}), doc };
}

function settingType(setting: LearnerSetting): ValueType {
  const range = { ...(setting.min !== undefined ? { min: setting.min } : {}), ...(setting.max !== undefined ? { max: setting.max } : {}) };
  switch (setting.type) {
    case 'bool': return bool;
    case 'choice': return choice(...setting.options!.map((o) => option(o, `${setting.name}: ${o}`)));
    case 'int': return int(range);
    default: return num(range);
  }
}

/** The module's settings as the schema registry's parameters (checked, completed and hovered like a built-in's). */
export function learnerSettingParams(spec: LearnerModuleSpec): ParamSpec[] {
  return spec.settings.map((s) => param(s.name, settingType(s), s.default as PlanValue, s.doc || `A setting of this learner module (${s.type}).`));
}

/** The algorithm spec the checker, completion and hover use for a learner module: rlx's settings, then the module's own. */
export function moduleAlgorithmSpec(spec: LearnerModuleSpec, file: string): AlgorithmSpec {
  return {
    declKind: 'algorithm',
    name: `module("${file}")`,
    doc: `A user learner (${spec.kind}): ${file}.${spec.doc ? ` ${spec.doc}` : ''}`,
    // A numeric learner's actor is deterministic into a Box (runtime/algorithms/module/numeric-networks.ts).
    actions: spec.kind === 'text' ? ['text'] : ['continuous'],
    params: [...learnerParams(spec.kind), ...learnerSettingParams(spec)],
    work: learnerWork(spec.kind),
  };
}

/**
 * What a learner module's update holds, from rlx's settings of its kind: a text learner samples
 * prompts_per_update groups of group_size completions and trains on them all, and may keep a
 * reference copy (its loss may read refLogProb); a numeric one trains on batches of batch_size.
 */
export function learnerWork(kind: LearnerKind): AlgorithmSpec['work'] {
  if (kind === 'numeric') {
    return (p) => ({ sampleRows: 0, trainRows: p.batch_size as number, referenceCopy: false, what: `a learner module's batches of ${p.batch_size as number}` });
  }
  return (p) => {
    const rows = (p.prompts_per_update as number) * (p.group_size as number);
    return { sampleRows: rows, trainRows: rows, rowGroup: p.group_size as number, completionTokens: p.max_new_tokens as number, referenceCopy: true, what: `a learner module's ${p.prompts_per_update as number} prompts x ${p.group_size as number} completions` };
  };
}
