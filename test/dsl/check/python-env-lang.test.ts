// The language side of Python envs beyond a registered id: `kwargs { }` for gymnasium.make or the
// class, `python("./file.py:Class")` for a Gymnasium Env class in a file (checked against the
// file's text, never run), and `observations: [...]`, the names reward terms read as obs.NAME.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { analyze, compile, Workspace } from '../../../dsl/index.js';
import { completion } from '../../../server/features/completion/index.js';
import { expectClean, expectDiagnostics, MemoryHost, virtualPath } from '../../helpers/source.js';
import { fixture } from '../../server/features/fixture.js';

const EXPERIMENT = 'policy P = mlp { }\nalgorithm A = PPO { }\nexperiment E { env: Cart, policy: P, algorithm: A, budget: 10k }\n';
const REACHER = 'import gymnasium\n\n\nclass Reacher(gymnasium.Env):\n    pass\n';

function planOf(files: Record<string, string>, entryName = 'main.rlx', experiment = 'E') {
  const entry = virtualPath(entryName);
  const result = compile(analyze(new Workspace(new MemoryHost(files)), [entry]), entry, experiment);
  assert.ok(result.ok, result.ok ? '' : result.error);
  return [...result.plans][0]!;
}

test('kwargs { } takes numbers, strings, booleans, none and lists of these, and the plan carries them as written', () => {
  const source = `env Cart = gymnasium("CartPole-v1") {\n  kwargs { gravity: 9.8, render_mode: "rgb_array", sutton_barto_reward: true, seed_hint: none, sizes: [1, -2, 3k], step: 2 * 0.5 }\n}\n${EXPERIMENT}`;
  expectClean(source);
  const plan = planOf({ 'main.rlx': source });
  assert.deepEqual(plan.env.params.kwargs, { gravity: 9.8, render_mode: 'rgb_array', seed_hint: null, sizes: [1, -2, 3000], step: 1, sutton_barto_reward: true });
  // No kwargs block: the plan has none (so plans of envs without kwargs are as before).
  assert.equal(planOf({ 'main.rlx': `env Cart = gymnasium("CartPole-v1")\n${EXPERIMENT}` }).env.params.kwargs, undefined);
});

test('a kwargs value that cannot be sent as JSON (a reference, a call, an expression over names) is refused at the value', () => {
  expectDiagnostics(`env Cart = gymnasium("CartPole-v1") { kwargs { gravity: ⟦P⟧ } }\n${EXPERIMENT}`, [{ code: 'type-mismatch', message: /^gravity expects a number, a string, true\/false, none or a list of these/ }]);
  expectDiagnostics(`env Cart = gymnasium("CartPole-v1") { kwargs { xs: [1, ⟦abs(2)⟧] } }\n${EXPERIMENT}`, [{ code: 'type-mismatch', message: /found a call of 'abs'/ }]);
  expectDiagnostics(`env Cart = gymnasium("CartPole-v1") { kwargs { g: ⟦obs.x + 1⟧ } }\n${EXPERIMENT}`, [{ code: 'type-mismatch' }]);
  expectDiagnostics(`env Cart = gymnasium("CartPole-v1") { ⟦kwarg⟧ { g: 1 } }\n${EXPERIMENT}`, [{ code: 'unknown-property', message: /has no block 'kwarg'; did you mean 'kwargs'\?/ }]);
  // Written as a property, it does not parse ({ } makes a block): the message says how to write it.
  const [found] = expectDiagnostics(`env Cart = gymnasium("CartPole-v1") { ⟦kwargs⟧: { g: 1 } }\n`, [{ code: 'unknown-property', message: /^'kwargs' is a block of gymnasium\("CartPole-v1"\): write it without the colon, `kwargs \{ \.\.\. \}`$/ }], { others: 'allowed' });
  assert.ok(found!.checked.all.some((d) => d.code === 'syntax-error'), 'the value is a syntax error too');
});

test('kwargs merge through inheritance key by key', () => {
  const source = `env Base = gymnasium("CartPole-v1") { kwargs { gravity: 9.8, length: 0.5 } }\nenv Cart = Base { kwargs { length: 1 } }\n${EXPERIMENT}`;
  expectClean(source);
  assert.deepEqual(planOf({ 'main.rlx': source }).env.params.kwargs, { gravity: 9.8, length: 1 });
});

test('python("./envs/reacher.py:Reacher") with its settings is clean, and its plan names the file from the entry file and the class', () => {
  const source = `env Cart = python("./envs/reacher.py:Reacher") {\n  kwargs { arm_length: 0.2 }\n  max_steps: 100\n  copies_per_process: 2\n}\n${EXPERIMENT}`;
  expectClean({ 'main.rlx': source, 'envs/reacher.py': REACHER }, ['main.rlx']);
  const plan = planOf({ 'main.rlx': source, 'envs/reacher.py': REACHER });
  assert.deepEqual(plan.env, {
    name: 'Cart', kind: 'gymnasium',
    params: { file: 'envs/reacher.py', class: 'Reacher', max_steps: 100, imports: [], python: '', env_timeout: 30, copies_per_process: 2, observations: [], kwargs: { arm_length: 0.2 } },
  });
  // Declared in an imported file under another folder: the path is relative to the file that wrote it.
  const lib = 'env Base = python("../envs/reacher.py:Reacher")\n';
  const files = { 'main.rlx': `import "./lib/envs.rlx"\nenv Cart = Base { }\n${EXPERIMENT}`, 'lib/envs.rlx': lib, 'envs/reacher.py': REACHER };
  expectClean(files, ['main.rlx']);
  assert.equal(planOf(files).env.params.file, 'envs/reacher.py');
});

test('python(...): a missing file, a malformed argument, a class name that is not one, and a non-env are errors at their place', () => {
  expectDiagnostics({ 'main.rlx': `env Cart = python(⟦"./envs/gone.py:Reacher"⟧)\n${EXPERIMENT}` }, [{ code: 'module-not-found', message: /^cannot read '\.\/envs\/gone\.py' \(looked for .*gone\.py\); python\("\.\.\."\) paths are relative to this file$/ }]);
  expectDiagnostics(`env Cart = python(⟦"./envs/reacher.py"⟧)\n`, [{ code: 'type-mismatch', message: /is not a file and a class: write python\("\.\/envs\/my_env\.py:MyEnv"\)/ }]);
  expectDiagnostics(`env Cart = python(⟦"./envs/reacher.txt:Reacher"⟧)\n`, [{ code: 'type-mismatch', message: /a \.py file relative to this file/ }]);
  expectDiagnostics({ 'main.rlx': `env Cart = python(⟦"./envs/reacher.py:2Reacher"⟧)\n`, 'envs/reacher.py': REACHER }, [{ code: 'type-mismatch', message: /'2Reacher' is not a Python class name/ }], { roots: ['main.rlx'] });
  expectDiagnostics('env Cart = ⟦python()⟧\n', [{ code: 'wrong-arguments', message: /^python takes one file and class in quotes/ }]);
  expectDiagnostics('env Cart = module(⟦"./envs/reacher.py"⟧)\n', [{ code: 'type-mismatch', message: /must name a \.ts or \.js file; a Gymnasium env class in Python is written python\("\.\/envs\/reacher\.py:ClassName"\)$/ }]);
  expectDiagnostics('policy P = ⟦python("./envs/reacher.py:Reacher")⟧\n', [{ code: 'invalid-base', message: /makes an environment; a policy cannot/ }]);
  expectDiagnostics({ 'main.rlx': `env Cart = python("./envs/reacher.py:Reacher") { ⟦max_stepz⟧: 3 }\n`, 'envs/reacher.py': REACHER },
    [{ code: 'unknown-property', message: /python\("\.\/envs\/reacher\.py:Reacher"\) has no property 'max_stepz'/ }], { roots: ['main.rlx'] });
});

test('python(...): a class the file does not define is a warning (the checker reads the file, it never runs it)', () => {
  expectDiagnostics({ 'main.rlx': `env Cart = python(⟦"./envs/reacher.py:Reachr"⟧)\n${EXPERIMENT}`, 'envs/reacher.py': REACHER },
    [{ code: 'unknown-name', severity: 'warning', message: /^\.\/envs\/reacher\.py does not seem to define Reachr \(no `class Reachr` in it\)/ }], { roots: ['main.rlx'] });
  // Defined by an import or an assignment: no warning.
  for (const text of ['from reacher_impl import Reacher\n', 'import gymnasium\nReacher = gymnasium.make\n']) {
    expectClean({ 'main.rlx': `env Cart = python("./envs/reacher.py:Reacher")\n${EXPERIMENT}`, 'envs/reacher.py': text }, ['main.rlx']);
  }
});

test('observations: names reward terms read as obs.NAME; an unknown one is an error at the field, with a fix', () => {
  const env = 'env Cart = gymnasium("CartPole-v1") { observations: ["x", "x_dot", "theta", "theta_dot"] }\n';
  const experiment = 'policy P = mlp { }\nalgorithm A = PPO { }\nexperiment E { env: Cart, policy: P, algorithm: A, budget: 10k, reward: R }\n';
  expectClean(`${env}reward R { term upright = -abs(obs.theta) + 0.1 * obs.x_dot }\n${experiment}`);
  const [found] = expectDiagnostics(`${env}reward R { term upright = -abs(obs.⟦thetta⟧) }\n${experiment}`,
    [{ code: 'unknown-field', message: /^Cart \(gymnasium\("CartPole-v1"\)\) has no observation 'thetta'; its observations are: x, x_dot, theta, theta_dot; did you mean 'theta'\?/ }]);
  assert.deepEqual(found!.diagnostic.fixes?.map((f) => f.title), ["Change to 'theta'"]);
  // Without the list, the names are learnt when training starts: any name is left to then.
  expectClean(`env Cart = gymnasium("CartPole-v1")\nreward R { term upright = -abs(obs.anything) }\n${experiment}`);
  // The plan carries them.
  assert.deepEqual(planOf({ 'main.rlx': `${env}${EXPERIMENT}` }).env.params.observations, ['x', 'x_dot', 'theta', 'theta_dot']);
});

test('observations: a name that is not an identifier, or one given twice, is an error at it', () => {
  expectDiagnostics('env Cart = gymnasium("CartPole-v1") { observations: ["x", ⟦"x dot"⟧] }\n', [{ code: 'type-mismatch', message: /"x dot" cannot be an observation name/ }]);
  expectDiagnostics('env Cart = gymnasium("CartPole-v1") { observations: ["x", "theta", ⟦"x"⟧] }\n', [{ code: 'duplicate-name', message: /observation "x" is named twice/ }]);
  expectDiagnostics('env Cart = gymnasium("CartPole-v1") { observations: [⟦1⟧] }\n', [{ code: 'type-mismatch' }]);
});

test('completion offers kwargs and observations in the body, and the declared names after obs.', () => {
  const body = fixture('env Cart = gymnasium("CartPole-v1") {\n  $0\n}\n');
  const labels = completion(body.doc, body.cursor, {}).map((item) => item.label);
  for (const name of ['kwargs', 'observations']) assert.ok(labels.includes(name), `${name} in ${labels.join(', ')}`);
  const term = fixture('env Cart = gymnasium("CartPole-v1") { observations: ["x", "theta"] }\nreward R { term t = obs.$0 }\npolicy P = mlp { }\nalgorithm A = PPO { }\nexperiment E { env: Cart, policy: P, algorithm: A, budget: 10k, reward: R }\n');
  assert.deepEqual(completion(term.doc, term.cursor, {}).map((item) => item.label), ['x', 'theta']);
});

test('the entry file\'s folder is where a python(...) plan\'s path starts', () => {
  const files = { 'specs/main.rlx': `env Cart = python("../envs/reacher.py:Reacher")\n${EXPERIMENT}`, 'envs/reacher.py': REACHER };
  const plan = planOf(files, 'specs/main.rlx');
  assert.equal(plan.env.params.file, '../envs/reacher.py');
  assert.equal(path.posix.normalize(`specs/${String(plan.env.params.file)}`), 'envs/reacher.py');
});

test('a curriculum over a Python env moves one of its keyword arguments, env.kwargs.NAME; its worker settings are refused with what to write', () => {
  const env = 'env Cart = gymnasium("CartPole-v1") { kwargs { gravity: 9.8 } }\npolicy P = mlp { }\nalgorithm A = PPO { }\n';
  const experiment = (param: string) => `${env}experiment E {\n  env: Cart, policy: P, algorithm: A, budget: 10k\n  curriculum { param: ${param}, from: 9.8, to: 15, step: 1, advance: train.mean_return >= 100 }\n}\n`;
  expectClean(experiment('env.kwargs.gravity'));
  const plan = planOf({ 'main.rlx': experiment('env.kwargs.gravity') });
  assert.equal(plan.curriculum?.param, 'env.kwargs.gravity');
  expectDiagnostics(experiment('env.⟦gravity⟧'), [{ code: 'type-mismatch', message: /^a curriculum over Cart \(gymnasium\("CartPole-v1"\)\) moves one of its keyword arguments: write env\.kwargs\.gravity$/ }]);
  expectDiagnostics(experiment('env.⟦max_steps⟧'), [{ code: 'type-mismatch', message: /write env\.kwargs\.max_steps \(env\.max_steps is a setting of its Python workers, which a curriculum cannot move\)/ }]);
  expectDiagnostics(experiment('env.⟦settings⟧.gravity'), [{ code: 'type-mismatch', message: /write env\.kwargs\.NAME$/ }]);
});

test('a sweep over env.kwargs.NAME puts each value into its member\'s kwargs; an unknown setting of a Python env is an error, not a silent no-op', () => {
  const base = `env Cart = gymnasium("Pendulum-v1") { kwargs { g: 9.8, render_mode: "rgb_array" } }\n${EXPERIMENT}`;
  const source = `${base}sweep S over E { env.kwargs.g: [1, 2.5] }\n`;
  expectClean(source);
  const entry = virtualPath('main.rlx');
  const result = compile(analyze(new Workspace(new MemoryHost({ 'main.rlx': source })), [entry]), entry, 'S');
  assert.ok(result.ok, result.ok ? '' : result.error);
  assert.deepEqual([...result.plans].map((plan) => plan.env.params.kwargs), [{ g: 1, render_mode: 'rgb_array' }, { g: 2.5, render_mode: 'rgb_array' }]);
  expectDiagnostics(`${base}sweep S over E { env.⟦g⟧: [1, 2] }\n`, [{ code: 'unknown-property', message: /^env \(gymnasium\("Pendulum-v1"\)\) has no 'g'\. Valid paths: .*kwargs\.NAME$/ }]);
  expectDiagnostics(`${base}sweep S over E { env.kwargs.g: [1, ⟦P⟧] }\n`, [{ code: 'type-mismatch', message: /expects a number, a string/ }]);
});
