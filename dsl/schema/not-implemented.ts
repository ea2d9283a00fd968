// What the language declares but the trainer does not run yet. Built-ins, blocks and metrics
// carry their own `notImplemented` reason; this file adds the features that are not one name
// (none at present) and gathers everything for the runtime, which refuses
// a plan that needs any of it (runtime/not-implemented.ts re-exports these). The checker warns
// at the place a spec uses one, so a spec that checks clean does not fail at `rlx train`.
import { ALGORITHMS } from './algorithms.js';
import { ENVS } from './envs.js';
import { METRICS } from './expressions.js';
import { POLICIES } from './policies.js';

/** Features of an experiment that the trainer cannot honour yet, by name: why (none at present). */
export const NOT_IMPLEMENTED_FEATURES: Readonly<Record<string, string>> = {};

const reasons = (specs: readonly { name: string; notImplemented?: string }[]): Readonly<Record<string, string>> =>
  Object.fromEntries(specs.flatMap((s) => (s.notImplemented === undefined ? [] : [[s.name, s.notImplemented]])));

/** Built-ins by declaration kind: name -> why the trainer cannot run it yet. */
export const NOT_IMPLEMENTED_BUILTINS: Readonly<Record<'env' | 'algorithm' | 'policy', Readonly<Record<string, string>>>> = {
  env: reasons(ENVS),
  algorithm: reasons(ALGORITHMS),
  policy: reasons(POLICIES),
};

/** Condition metrics the trainer cannot test yet: name -> why. */
export const NOT_IMPLEMENTED_METRICS: Readonly<Record<string, string>> = reasons(METRICS);
