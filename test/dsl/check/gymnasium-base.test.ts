// `env X = gymnasium("Id")` in the language: the checker takes one id in quotes, knows the
// settings of dsl/schema/python-env.ts (and refuses others), never runs Python, and compiles
// the env into a plan of kind 'gymnasium'; the editor completes and explains the settings.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { completion } from '../../../server/features/completion/index.js';
import { hover } from '../../../server/features/hover.js';
import * as path from 'node:path';
import { analyze, compile, Workspace } from '../../../dsl/index.js';
import { expectClean, expectDiagnostics } from '../../helpers/source.js';
import { fixture } from '../../server/features/fixture.js';

const EXPERIMENT = 'policy P = mlp { }\nalgorithm A = PPO { }\nexperiment E { env: Cart, policy: P, algorithm: A, budget: 10k }\n';

test('a registered id with its settings is clean, and reward terms on its observations are left to training', () => {
  expectClean(`env Cart = gymnasium("CartPole-v1") {\n  max_steps: 200\n  imports: ["my_envs"]\n  python: "python3"\n  env_timeout: 5\n  copies_per_process: 2\n}\n${EXPERIMENT}`);
  expectClean(`env Base = gymnasium("my_package/Maze-v0")\nenv Cart = Base { max_steps: 50 }\n${EXPERIMENT}`);
});

test('wrong arguments, a malformed id, an unknown or mistyped setting, and a non-env are errors at their place', () => {
  expectDiagnostics('env Cart = ⟦gymnasium()⟧\n', [{ code: 'wrong-arguments', message: /^gymnasium takes one registered Gymnasium id in quotes/ }]);
  expectDiagnostics('env Cart = ⟦gymnasium(CartPole)⟧\n', [{ code: 'wrong-arguments', message: /^gymnasium takes one/ }]);
  expectDiagnostics('env Cart = gymnasium(⟦"Cart Pole"⟧)\n', [{ code: 'type-mismatch', message: /"Cart Pole" is not a Gymnasium id/ }]);
  expectDiagnostics('env Cart = gymnasium("CartPole-v1") { ⟦max_stepz⟧: 3 }\n', [{ code: 'unknown-property', message: /has no property 'max_stepz'; did you mean 'max_steps'\?/ }]);
  expectDiagnostics('env Cart = gymnasium("CartPole-v1") { copies_per_process: ⟦0⟧ }\n', [{ code: 'out-of-range' }]);
  expectDiagnostics('policy P = ⟦gymnasium("CartPole-v1")⟧\n', [{ code: 'invalid-base', message: /makes an environment; a policy cannot/ }]);
});

test('the plan carries the id and every setting, defaults included', () => {
  const root = path.resolve('/virtual-rlx');
  const source = `env Cart = gymnasium("CartPole-v1") { copies_per_process: 2 }\n${EXPERIMENT}`;
  const entry = path.join(root, 'main.rlx');
  const result = compile(analyze(new Workspace({ readFile: (p) => (p === entry ? source : undefined) }), [entry]), entry, 'E');
  assert.ok(result.ok, result.ok ? '' : result.error);
  const [plan] = result.plans;
  assert.deepEqual(plan!.env, { name: 'Cart', kind: 'gymnasium', params: { id: 'CartPole-v1', imports: [], python: '', env_timeout: 30, copies_per_process: 2, observations: [] } });
});

test('a sweep over a setting puts each value into its member\'s plan', () => {
  const root = path.resolve('/virtual-rlx');
  const source = `env Cart = gymnasium("CartPole-v1")\n${EXPERIMENT}sweep S over E { env.copies_per_process: [1, 2] }\n`;
  const entry = path.join(root, 'main.rlx');
  const result = compile(analyze(new Workspace({ readFile: (p) => (p === entry ? source : undefined) }), [entry]), entry, 'S');
  assert.ok(result.ok, result.ok ? '' : result.error);
  assert.deepEqual([...result.plans].map((plan) => plan.env.params.copies_per_process), [1, 2]);
});

test('completion offers the settings, and hover explains them', () => {
  const f = fixture('env Cart = gymnasium("CartPole-v1") {\n  $0\n}\n');
  const labels = completion(f.doc, f.cursor, {}).map((item) => item.label);
  for (const name of ['max_steps', 'imports', 'python', 'env_timeout', 'copies_per_process']) assert.ok(labels.includes(name), `${name} in ${labels.join(', ')}`);
  const h = fixture('env Cart = gymnasium("CartPole-v1") { copies_per$0_process: 2 }\n');
  const result = hover(h.doc, h.cursor);
  assert.match((result?.contents as { value: string } | undefined)?.value ?? '', /Env copies each Python worker process holds/);
});
