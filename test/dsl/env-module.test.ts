// What a user env module declares (`export const spec = {...}`), read from its text without
// running it, as the checker and the language server do.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readEnvModuleSpec } from '../../dsl/semantics/env-module.js';

const declared = (observations: string[], actions: string, info: string[]) => ({ kind: 'declared', spec: { observations, actions, info } });

test('a literal spec, written as TypeScript people write it: types, comments, quotes, trailing commas, as const', () => {
  const text = `import { clamp } from './walls.js';
// export const spec = { actions: 'continuous' }  (an old one, commented out)
export const spec: { observations: string[] } = {
  /* names */ observations: ["x", 'x_dot'],  // two numbers
  'actions': 'discrete',
  info: ['success',],
} as const;
export default class {}
`;
  assert.deepEqual(readEnvModuleSpec(text), declared(['x', 'x_dot'], 'discrete', ['success']));
  assert.deepEqual(readEnvModuleSpec("export const spec = { actions: 'continuous' };"), declared([], 'continuous', []));
  assert.deepEqual(readEnvModuleSpec("export const spec = { actions: 'multibinary' };"), declared([], 'multibinary', []));
});

test('no spec, a spec that is not a literal, and a wrong one: each says so, with the line', () => {
  assert.deepEqual(readEnvModuleSpec('export default class {}\nconst spec = 1;\n'), { kind: 'undeclared' });
  assert.deepEqual(readEnvModuleSpec("\nexport const spec = makeSpec();\n"), { kind: 'invalid', line: 2, message: 'rlx reads spec without running the module, so it must be written out as a literal: found makeSpec();' });
  assert.deepEqual(readEnvModuleSpec("export const spec = { ...base, actions: 'discrete' };"), { kind: 'invalid', line: 1, message: 'rlx reads spec without running the module, so it must be written out as a literal: expected a key' });
  assert.deepEqual(readEnvModuleSpec("export const spec = {\n  observations: ['x', 'x'],\n  actions: 'discrete' };"), { kind: 'invalid', line: 1, message: "spec.observations names 'x' twice" });
  assert.deepEqual(readEnvModuleSpec("export const spec = { observations: ['x'] };"), { kind: 'invalid', line: 1, message: "spec.actions must be 'discrete', 'continuous', 'multibinary' or 'text'" });
  assert.deepEqual(readEnvModuleSpec("export const spec = { observations: ['x'], actions: 'discrete'"), { kind: 'invalid', line: 1, message: "rlx reads spec without running the module, so it must be written out as a literal: expected ',' or '}'" });
});

test('a text env declares its dialogue bounds instead of observations; its alphabet is printable ASCII unless it says', () => {
  const read = readEnvModuleSpec("export const spec = {\n  actions: 'text',\n  max_turns: 3, // calc, then answer\n  max_observation: 10,\n  max_action: 11,\n  alphabet: '0123456789+-* acl',\n  info: ['success'],\n};\n");
  assert.deepEqual(read, { kind: 'declared', spec: { observations: [], actions: 'text', info: ['success'], text: { maxTurns: 3, maxObservation: 10, maxAction: 11, alphabet: '0123456789+-* acl' } } });
  const plain = readEnvModuleSpec("export const spec = { actions: 'text', max_turns: 1, max_observation: 5, max_action: 5 };");
  assert.equal(plain.kind === 'declared' && plain.spec.text?.alphabet, ' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~');
  const problem = (spec: string) => {
    const r = readEnvModuleSpec(`export const spec = ${spec};`);
    return r.kind === 'invalid' ? r.message : r.kind;
  };
  assert.equal(problem("{ actions: 'text', max_turns: 3, max_observation: 10 }"), "a text env's spec needs max_action: a whole number from 1 to 1000 (the longest turn the agent may write, in characters)");
  assert.equal(problem("{ actions: 'text', max_turns: 0, max_observation: 10, max_action: 4 }"), 'spec.max_turns must be a whole number from 1 to 100, not 0');
  assert.equal(problem("{ actions: 'text', observations: ['x'], max_turns: 3, max_observation: 10, max_action: 4 }"), "spec has no key 'observations' (a text env's observations are its messages, bounded by max_observation); its keys are actions, info, max_turns, max_observation, max_action, alphabet");
  assert.equal(problem("{ actions: 'discrete', max_turns: 3 }"), "spec has no key 'max_turns' (only text envs, actions: 'text', have them); its keys are observations, actions, info, goal, achieved");
  assert.equal(problem("{ actions: 'text', max_turns: 3, max_observation: 10, max_action: 4, alphabet: '' }"), 'spec.alphabet must be a non-empty string of the characters the env and the agent write, not ""');
});
