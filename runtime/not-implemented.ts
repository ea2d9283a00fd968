// What the language declares (dsl/schema) but this runtime does not run yet, read from the
// schema registry, which holds the ONE list: a built-in, block or metric the trainer cannot
// run carries a `notImplemented` reason there, so `rlx check` warns at check time with the
// same words `rlx train` refuses with (support.ts).
//
// The registry drift test (test/runtime/registry-drift.test.ts) fails when a built-in of the
// registry is neither implemented here nor marked there, or is both. Implementing one means:
// add it to its registry in the runtime, delete its `notImplemented` in dsl/schema.
import {
  FUNCTIONS, NOT_IMPLEMENTED_BUILTINS, NOT_IMPLEMENTED_FEATURES, NOT_IMPLEMENTED_METRICS, REWARD_NAME_ENVS, REWARD_NAMES,
} from '../dsl/schema/index.js';

/** Built-ins by declaration kind: name -> why it cannot run yet (shown to the user). */
export const NOT_IMPLEMENTED = NOT_IMPLEMENTED_BUILTINS;

export { NOT_IMPLEMENTED_FEATURES, NOT_IMPLEMENTED_METRICS };

/**
 * Reward-expression functions of the registry the numeric reward compiler does not provide: the
 * text verifiers (`text: true` in the registry), which only a text env (TextTask) compiles
 * (runtime/rewards/text-terms.ts).
 */
export const NOT_IMPLEMENTED_FUNCTIONS: Readonly<Record<string, string>> = Object.fromEntries(
  FUNCTIONS.filter((f) => f.text).map((f) => [f.name, 'text verifiers need a text environment (TextTask)']),
);

/** Names a reward term may use that only text environments have; runtime/rewards/text-terms.ts compiles them there. */
export const NOT_IMPLEMENTED_REWARD_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  REWARD_NAMES.flatMap((n) => (n.availableFor === 'text' || n.availableFor === 'task' || n.availableFor === 'dialogue' ? [[n.name, `only ${REWARD_NAME_ENVS[n.availableFor]} have a ${n.name}`]] : [])),
);
