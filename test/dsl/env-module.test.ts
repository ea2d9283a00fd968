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
});

test('no spec, a spec that is not a literal, and a wrong one: each says so, with the line', () => {
  assert.deepEqual(readEnvModuleSpec('export default class {}\nconst spec = 1;\n'), { kind: 'undeclared' });
  assert.deepEqual(readEnvModuleSpec("\nexport const spec = makeSpec();\n"), { kind: 'invalid', line: 2, message: 'rlx reads spec without running the module, so it must be written out as a literal: found makeSpec();' });
  assert.deepEqual(readEnvModuleSpec("export const spec = { ...base, actions: 'discrete' };"), { kind: 'invalid', line: 1, message: 'rlx reads spec without running the module, so it must be written out as a literal: expected a key' });
  assert.deepEqual(readEnvModuleSpec("export const spec = {\n  observations: ['x', 'x'],\n  actions: 'discrete' };"), { kind: 'invalid', line: 1, message: "spec.observations names 'x' twice" });
  assert.deepEqual(readEnvModuleSpec("export const spec = { observations: ['x'] };"), { kind: 'invalid', line: 1, message: "spec.actions must be 'discrete' or 'continuous'" });
  assert.deepEqual(readEnvModuleSpec("export const spec = { observations: ['x'], actions: 'discrete'"), { kind: 'invalid', line: 1, message: "rlx reads spec without running the module, so it must be written out as a literal: expected ',' or '}'" });
});
