// User learner modules (`algorithm Mine = module("./mine.ts")`): what the checker reads of their
// settings from the module's text, without running it, and what it then checks and compiles.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { analyze, compile, Workspace } from '../../dsl/index.js';
import { readEnvModuleSpec } from '../../dsl/semantics/env-module.js';
import { learnerModuleSpec } from '../../dsl/schema/learner-module.js';
import { expectClean, expectDiagnostic, expectDiagnostics, MemoryHost, virtualPath } from '../helpers/source.js';

const LEARNER_TS = `import type { LossGraph, TextBatch } from 'rlx/learner';
// read by rlx without running the module
export const spec = {
  api: 1,
  kind: 'text',
  doc: 'Pushes wrong answers down.',
  settings: {
    positive_weight: { type: 'number', default: 0.1, min: 0, max: 10, doc: 'Weight of a right answer.' },
    mode: { type: 'choice', options: ['mean', 'sum'], default: 'mean' },
    steps: { type: 'int', default: 2, min: 1 },
    centred: { type: 'bool', default: true },
  },
};
export function buildLoss(g: LossGraph, batch: TextBatch) { return { loss: g.mean(batch.logProb) }; }
`;

/** Only the .rlx file is analysed; the module is only read. */
const ROOTS = ['main.rlx'];

const TEXT_PRELUDE = `env Arith = TextTask { task: addition(digits: 2) }
policy Tiny = transformer { layers: 2 }
reward Correct { term answer = exact(completion, target) }
`;

function sources(algorithm: string, experiment = 'experiment E {\n  env: Arith\n  policy: Tiny\n  reward: Correct\n  algorithm: Mine\n  budget: 1k\n}\n', module = LEARNER_TS): Record<string, string> {
  return { 'main.rlx': `${TEXT_PRELUDE}${algorithm}\n${experiment}`, 'mine.ts': module };
}

describe('a learner module\'s spec, read from its text', () => {
  test('its settings, types, ranges and docs', () => {
    const read = readEnvModuleSpec(LEARNER_TS);
    assert.equal(read.kind, 'learner');
    assert.deepEqual(read.kind === 'learner' && read.spec, {
      api: 1,
      kind: 'text',
      doc: 'Pushes wrong answers down.',
      settings: [
        { name: 'positive_weight', type: 'number', default: 0.1, min: 0, max: 10, doc: 'Weight of a right answer.' },
        { name: 'mode', type: 'choice', default: 'mean', options: ['mean', 'sum'], doc: '' },
        { name: 'steps', type: 'int', default: 2, min: 1, doc: '' },
        { name: 'centred', type: 'bool', default: true, doc: '' },
      ],
    });
  });

  test('a wrong spec says what is wrong', () => {
    const problem = (spec: unknown) => {
      const read = learnerModuleSpec(spec);
      return 'problem' in read ? read.problem : 'fine';
    };
    assert.equal(problem({ kind: 'texts' }), "spec.kind must be 'text' or 'numeric', not \"texts\"");
    assert.equal(problem({ kind: 'text', api: 2 }), 'spec.api is 2, but this rlx implements rlx/learner version 1: update rlx, or write the learner against version 1');
    assert.equal(problem({ kind: 'text', settings: { lr: { type: 'number', default: 1, max: 0.5 } } }), 'spec.settings.lr: min undefined is above max 0.5'.replace('min undefined is above max 0.5', '.default 1 is outside its range [-inf, 0.5]').replace(': .', '.'));
    assert.equal(problem({ kind: 'text', settings: { learning_rate: { type: 'number', default: 1 } } }), "spec.settings.learning_rate: 'learning_rate' is one of rlx's own settings of every text learner (group_size, prompts_per_update, learning_rate, iterations, max_new_tokens, temperature, top_k, top_p, min_p, repetition_penalty, stop, max_prompt_length, truncation, max_grad_norm, micro_batch, generation_batch, build_timeout); name yours otherwise");
    assert.equal(problem({ kind: 'text', settings: { m: { type: 'choice', options: ['a'], default: 'b' } } }), 'spec.settings.m.default must be one of its options (a)');
    assert.equal(problem({ kind: 'text', settings: { k: { type: 'int', default: 1.5 } } }), "spec.settings.k.default must be a whole number (type 'int')");
    assert.equal(problem({ kind: 'text', setings: {} }), "a learner's spec has no key 'setings'; its keys are api, kind, doc, settings");
  });
});

describe('the checker on a learner module', () => {
  test('a module with its settings set in range is clean, and its stage is checked as any algorithm\'s', () => {
    expectClean(sources('algorithm Mine = module("./mine.ts") { positive_weight: 0.5, mode: sum, steps: 3, centred: false, group_size: 4 }'), ROOTS);
    expectClean(sources('algorithm Mine = module("./mine.ts") { }', 'experiment E {\n  env: Arith\n  policy: Tiny\n  reward: Correct\n  stage warm = SFT { updates: 10 }\n  stage main = Mine { budget: 1k, steps: 4 }\n}\n'), ROOTS);
  });

  test('an unknown setting, a wrong type and a value out of range are errors at the setting', () => {
    expectDiagnostics(sources('algorithm Mine = module("./mine.ts") {\n  ⟦positive_wieght⟧: 0.5\n  mode: ⟦median⟧\n  steps: ⟦0⟧\n  centred: ⟦3⟧\n}'), [
      { code: 'unknown-property', message: /positive_wieght.*did you mean 'positive_weight'/ },
      { code: 'type-mismatch', message: "'median' is not a valid mode; expected one of: mean, sum; did you mean 'mean'?" },
      { code: 'out-of-range', message: 'steps must be >= 1; found 0' },
      { code: 'type-mismatch', message: 'centred expects true or false; found the number 3' },
    ], { roots: ROOTS });
  });

  test('micro_batch holds whole groups and at most the update: errors at the value', () => {
    expectClean(sources('algorithm Mine = module("./mine.ts") { group_size: 4, prompts_per_update: 4, micro_batch: 8, generation_batch: 6 }'), ROOTS);
    expectDiagnostic(sources('algorithm Mine = module("./mine.ts") { group_size: 4, micro_batch: ⟦6⟧ }'), 'out-of-range',
      'micro_batch 6 splits a group: a learner module\'s micro-batches hold whole groups of group_size 4 rows (its loss may reshape rows by group); use a multiple of 4, or auto', { roots: ROOTS });
    expectDiagnostic(sources('algorithm Mine = module("./mine.ts") { group_size: 4, prompts_per_update: 2, micro_batch: ⟦12⟧ }'), 'out-of-range',
      /^micro_batch 12 is more rows than an update trains \(8: a learner module's 2 prompts x 4 completions\); use at most 8, or auto$/, { roots: ROOTS });
  });

  test('a stage of a learner module needs a budget, as any algorithm but SFT', () => {
    expectDiagnostic(sources('algorithm Mine = module("./mine.ts") { }', 'experiment E {\n  env: Arith\n  policy: Tiny\n  reward: Correct\n  stage ⟦main⟧ = Mine { steps: 4 }\n}\n'), 'missing-property', /budget/, { roots: ROOTS });
  });

  test('a text learner on an env of numbers is refused as a built-in text algorithm is', () => {
    expectDiagnostic(sources('algorithm Mine = module("./mine.ts") { }', 'policy Actor = mlp { }\nexperiment E {\n  env: Pole\n  policy: Actor\n  algorithm: ⟦Mine⟧\n  budget: 1k\n}\nenv Pole = CartPole { }\n'), 'incompatible-env', /module\("\.\/mine\.ts"\) cannot train on Pole \(CartPole\): it needs text actions/, { roots: ROOTS });
  });

  test('a numeric learner checks clean on a continuous env, with rlx\'s off-policy settings, and is refused on a text task', () => {
    const numeric = "export const spec = { kind: 'numeric', settings: { policy_delay: { type: 'int', default: 2, min: 1 } } };\nexport function buildLosses() {}\n";
    const rlx = 'env Swing = Pendulum { }\npolicy Actor = mlp { }\nalgorithm Mine = module("./mine.ts") { policy_delay: 3, exploration_noise: 0.2, tau: 0.01 }\nexperiment E {\n  env: Swing\n  policy: Actor\n  algorithm: Mine\n  budget: 1k\n}\n';
    expectClean({ 'main.rlx': rlx, 'mine.ts': numeric }, ROOTS);
    // It trains networks of its own: a stage after SAC's cannot start from them (as rlx train refuses).
    const staged = rlx.replace('  algorithm: Mine\n  budget: 1k\n', '  stage warm = Soft { budget: 1k }\n  stage main = ⟦Mine⟧ { budget: 1k }\n') + 'algorithm Soft = SAC { }\n';
    expectDiagnostic({ 'main.rlx': staged, 'mine.ts': numeric }, 'incompatible-stages', /stage main \(module\("\.\/mine\.ts"\)\) cannot start from the weights of stage warm \(SAC\)/, { roots: ROOTS });
    expectDiagnostic(sources('algorithm Mine = module("./mine.ts") { }', 'experiment E {\n  env: Arith\n  policy: Tiny\n  reward: Correct\n  algorithm: ⟦Mine⟧\n  budget: 1k\n}\n', numeric), 'incompatible-env', /needs continuous actions/, { others: 'allowed', roots: ROOTS });
  });

  test('a module without a spec, with an env\'s spec, or a missing one is an error at its path', () => {
    const mine = (module: string) => sources('algorithm Mine = module(⟦"./mine.ts"⟧) { }', undefined, module);
    expectDiagnostic(mine('export function buildLoss() {}\n'), 'invalid-module-spec', /does not declare its settings/, { others: 'allowed', roots: ROOTS });
    expectDiagnostic(mine("export const spec = { actions: 'discrete' };\n"), 'invalid-module-spec', /declares an environment's spec/, { others: 'allowed', roots: ROOTS });
    expectDiagnostic(mine("export const spec = { kind: 'text', settings: { x: { type: 'number' } } };\n"), 'invalid-module-spec', /mine\.ts:1: spec\.settings\.x\.default must be a number \(docs\/learners\.md/, { others: 'allowed', roots: ROOTS });
    expectDiagnostic({ 'main.rlx': `env E = module(⟦"./mine.ts"⟧)\n`, 'mine.ts': LEARNER_TS }, 'invalid-module-spec', /declares a learner's spec/, { roots: ROOTS });
  });

  test('a spec nested 20,000 levels deep is one error at the path, not an internal error (issue 43 item 14)', () => {
    const deep = `export const spec = { kind: 'text', settings: ${'{ a: '.repeat(20_000)}1${' }'.repeat(20_000)} };\n`;
    expectDiagnostic(sources('algorithm Mine = module(⟦"./mine.ts"⟧) { }', undefined, deep), 'invalid-module-spec', /mine\.ts:1: spec nests objects and lists more than 32 deep; it needs three levels/, { roots: ROOTS });
  });

  test("a setting named __proto__ is refused by name, not dropped (issue 43 item 14)", () => {
    const proto = "export const spec = { kind: 'text', settings: { __proto__: { type: 'number', default: 1 } } };\n";
    expectDiagnostic(sources('algorithm Mine = module(⟦"./mine.ts"⟧) { }', undefined, proto), 'invalid-module-spec', /spec\.settings\.__proto__: '__proto__' cannot name a setting/, { roots: ROOTS });
  });
});

test('the plan names the module and fills its settings\' defaults', () => {
  const files = sources('algorithm Mine = module("./mine.ts") { positive_weight: 0.5 }');
  const entry = virtualPath('main.rlx');
  const result = compile(analyze(new Workspace(new MemoryHost(files)), [entry]), entry);
  assert.ok(result.ok, JSON.stringify(result));
  const [plan] = result.plans.first(1);
  assert.deepEqual(plan!.stages[0]!.algorithm, {
    name: 'Mine',
    kind: 'module',
    module: 'mine.ts',
    params: { group_size: 8, prompts_per_update: 16, learning_rate: { schedule: 'constant', value: 1e-4 }, iterations: 1, max_new_tokens: 8, temperature: 1, top_k: 'none', top_p: 1, min_p: 0, repetition_penalty: 1, stop: [], max_prompt_length: 'none', truncation: 'left', max_grad_norm: 1, micro_batch: 'auto', generation_batch: 'auto', build_timeout: 60, positive_weight: 0.5, mode: 'mean', steps: 2, centred: true },
  });
});

test('a sweep over a learner module\'s settings puts each value into its plan', () => {
  const files = sources('algorithm Mine = module("./mine.ts") { }', 'experiment E {\n  env: Arith\n  policy: Tiny\n  reward: Correct\n  algorithm: Mine\n  budget: 1k\n}\nsweep S over E {\n  algorithm.positive_weight: [0.2, 0.4]\n  algorithm.mode: [sum]\n  algorithm.learning_rate: [linear(1e-3, 0)]\n}\n');
  const entry = virtualPath('main.rlx');
  const result = compile(analyze(new Workspace(new MemoryHost(files)), [entry]), entry, 'S');
  assert.ok(result.ok, JSON.stringify(result));
  const params = [...result.plans].map((p) => p.stages[0]!.algorithm.params);
  assert.deepEqual(params.map((p) => [p.positive_weight, p.mode, p.learning_rate]), [
    [0.2, 'sum', { schedule: 'linear', from: 1e-3, to: 0, over: 1 }],
    [0.4, 'sum', { schedule: 'linear', from: 1e-3, to: 0, over: 1 }],
  ]);
});
