// A gymnasium(...) env whose probe answered (semantics/python-env.ts): its observation names
// and action kind are checked and completed as a TS module's declared spec; without an answer
// (no provider, a probe still running, an untrusted workspace) nothing changes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyze, CheckCache, Workspace, type AnalyzeOptions, type PythonEnvFacts, type PythonEnvQuery, type PythonEnvRead } from '../../../dsl/index.js';
import { completion } from '../../../server/features/completion/index.js';
import { DEFAULT_SETTINGS, linesOf, pathToUri } from '../../../server/context.js';
import { expectClean, expectDiagnostics, MemoryHost, virtualPath } from '../../helpers/source.js';
import { parseMarked } from '../../server/features/fixture.js';

const CARTPOLE: PythonEnvFacts = { kind: 'facts', observationNames: ['x0', 'x1', 'x2', 'x3'], observationShape: [4], action: { kind: 'discrete', n: 2 }, maxSteps: 500, goalConditioned: false, image: null };
const PENDULUM: PythonEnvFacts = { kind: 'facts', observationNames: ['cos', 'sin', 'speed'], observationShape: [3], action: { kind: 'continuous', dims: 1 }, maxSteps: 200, goalConditioned: false, image: null };

/** A provider that knows `facts` by id and records the queries it was asked. */
function provider(facts: Record<string, PythonEnvRead>, asked: PythonEnvQuery[] = []): AnalyzeOptions {
  return { pythonEnvs: { lookup: (query) => (asked.push(query), facts[query.id]) } };
}

const experiment = (algorithm: string, reward = '') =>
  `policy P = mlp { }\nexperiment E {\n  env: Cart\n  policy: P\n  algorithm: ${algorithm}\n  budget: 10k${reward ? `\n  reward: R` : ''}\n}\n${reward}`;

test('with facts, an unknown obs.NAME in a reward term is an error that lists the probed names', () => {
  const source = `env Cart = gymnasium("CartPole-v1")\n${experiment('PPO', 'reward R {\n  term t = -abs(obs.⟦theta⟧)\n}\n')}`;
  expectDiagnostics(source, [{ code: 'unknown-field', message: /^Cart \(gymnasium\("CartPole-v1"\)\) has no observation field 'theta'; its fields are: x0, x1, x2, x3/ }], { analyze: provider({ 'CartPole-v1': CARTPOLE }) });
  expectClean(source.replace('⟦theta⟧', 'x2'));
  const known = source.replace('⟦theta⟧', 'x2');
  const asked: PythonEnvQuery[] = [];
  expectDiagnostics(known, [], { analyze: provider({ 'CartPole-v1': CARTPOLE }, asked) });
  assert.deepEqual(asked[0], { id: 'CartPole-v1', kwargs: {}, imports: [], python: '', envTimeout: 30 });
});

test('without facts (no provider, a probe pending, none allowed) obs names are left to training, as before', () => {
  const source = `env Cart = gymnasium("CartPole-v1")\n${experiment('PPO', 'reward R {\n  term t = -abs(obs.theta)\n}\n')}`;
  expectDiagnostics(source, [], {});
  expectDiagnostics(source, [], { analyze: provider({ 'CartPole-v1': 'pending' }) });
  expectDiagnostics(source, [], { analyze: provider({}) });
});

test('with facts, the action kind is checked: DQN on continuous actions is an error, SAC on them is fine', () => {
  const source = `env Cart = gymnasium("Pendulum-v1") { imports: ["my_envs"], python: "python3.11" }\n${experiment('⟦DQN⟧')}`;
  const asked: PythonEnvQuery[] = [];
  expectDiagnostics(source, [{ code: 'incompatible-env', message: /^DQN cannot train on Cart \(gymnasium\("Pendulum-v1"\)\): it needs discrete actions, and gymnasium\("Pendulum-v1"\) has continuous actions/ }], { analyze: provider({ 'Pendulum-v1': PENDULUM }, asked), others: 'allowed' });
  assert.deepEqual(asked[0], { id: 'Pendulum-v1', kwargs: {}, imports: ['my_envs'], python: 'python3.11', envTimeout: 30 });
  expectDiagnostics(source.replace('⟦DQN⟧', 'SAC'), [], { analyze: provider({ 'Pendulum-v1': PENDULUM }), others: 'allowed' });
  expectDiagnostics(source.replace('⟦DQN⟧', 'DQN'), [], {});
});

test('with facts, MultiBinary actions are checked: DQN and SAC on them are errors that name what fits, PPO and REINFORCE are fine', () => {
  const BITS: PythonEnvFacts = { kind: 'facts', observationNames: ['x0', 'x1', 'x2', 'x3'], observationShape: [4], action: { kind: 'multibinary', n: 4 }, maxSteps: null, goalConditioned: false, image: null };
  const source = `env Cart = gymnasium("RlxBits-v0")\n${experiment('⟦DQN⟧')}`;
  const analyze = provider({ 'RlxBits-v0': BITS });
  expectDiagnostics(source, [{ code: 'incompatible-env', message: /^DQN cannot train on Cart \(gymnasium\("RlxBits-v0"\)\): it needs discrete actions, and gymnasium\("RlxBits-v0"\) has multibinary actions; algorithms that fit: PPO, REINFORCE$/ }], { analyze, others: 'allowed' });
  expectDiagnostics(source.replace('⟦DQN⟧', '⟦SAC⟧'), [{ code: 'incompatible-env', message: /^SAC cannot train on .* it needs discrete or continuous actions, and .* has multibinary actions/ }], { analyze, others: 'allowed' });
  for (const fits of ['PPO', 'REINFORCE']) expectDiagnostics(source.replace('⟦DQN⟧', fits), [], { analyze, others: 'allowed' });
});

test('with facts, relabel: on a Python env that is not a goal env is an error that says what makes one; on a goal env it is fine', () => {
  const GOAL: PythonEnvFacts = { ...PENDULUM, observationNames: ['achieved_goal_0', 'achieved_goal_1', 'desired_goal_0', 'desired_goal_1', 'observation_0'], observationShape: [5], goalConditioned: true };
  const source = `env Cart = gymnasium("⟦Pendulum-v1⟧")\nalgorithm Her = SAC { relabel: future(k: 4) }\n${experiment('⟦Her⟧')}`;
  expectDiagnostics(source.replace('⟦Pendulum-v1⟧', 'Pendulum-v1'), [{
    code: 'incompatible-env',
    message: /^Her relabels goals \(relabel: future\), but Cart \(gymnasium\("Pendulum-v1"\)\) is not goal-conditioned; a Python env is a goal env when its observation is a Dict with achieved_goal and desired_goal and env.unwrapped has compute_reward\(achieved_goal, desired_goal, info\) \(docs\/python-envs.md#goal-envs-and-hindsight-relabeling\), or set relabel: none$/,
  }], { analyze: provider({ 'Pendulum-v1': PENDULUM }), others: 'allowed' });
  const goal = source.replace('⟦Pendulum-v1⟧', 'PointGoal-v0').replace('⟦Her⟧', 'Her');
  expectDiagnostics(goal, [], { analyze: provider({ 'PointGoal-v0': GOAL }), others: 'allowed' });
  // The goal env's reward names are offered too.
  expectDiagnostics(goal.replace('budget: 10k', 'budget: 10k\n  reward: R') + 'reward R {\n  term t = -dist(achieved, goal)\n}\n', [], { analyze: provider({ 'PointGoal-v0': GOAL }), others: 'allowed' });
});

test('settings that are not literals the checker reads ask for no probe', () => {
  const asked: PythonEnvQuery[] = [];
  expectDiagnostics(`env Cart = gymnasium("CartPole-v1") { imports: ⟦"x"⟧ }\n`, [{ code: 'type-mismatch' }], { analyze: provider({}, asked), others: 'allowed' });
  assert.deepEqual(asked, []);
});

test('completion after obs. offers the probed names', () => {
  const marked = `env Cart = gymnasium("CartPole-v1")\n${experiment('PPO', 'reward R {\n  term t = obs.$0\n}\n')}`;
  const { text, cursor } = parseMarked(marked);
  const file = virtualPath('main.rlx');
  const analysis = analyze(new Workspace(new MemoryHost({ 'main.rlx': text })), [file], provider({ 'CartPole-v1': CARTPOLE }));
  const unit = analysis.units[0]!;
  const lines = linesOf(unit);
  const doc = { uri: pathToUri(file), unit, analysis, lines, settings: DEFAULT_SETTINGS };
  const labels = completion(doc, lines.position(cursor!), {}).map((item) => item.label);
  assert.deepEqual(labels.filter((l) => /^x\d$/.test(l)), ['x0', 'x1', 'x2', 'x3']);
});

test('a kept check result is not replayed once the probe has answered (check/reuse.ts follows the read)', () => {
  const text = `env Cart = gymnasium("CartPole-v1")\n${experiment('PPO', 'reward R {\n  term t = -abs(obs.theta)\n}\n')}`;
  const file = virtualPath('main.rlx');
  const workspace = new Workspace(new MemoryHost({ 'main.rlx': text }));
  const cache = new CheckCache();
  let read: PythonEnvRead = 'pending';
  const options: AnalyzeOptions = { cache, pythonEnvs: { lookup: () => read } };
  const codes = () => (analyze(workspace, [file], options).diagnostics.get(file) ?? []).map((d) => d.code);
  assert.deepEqual(codes(), []);
  assert.deepEqual(codes(), [], 'pending still');
  assert.ok(cache.counts.reused > 0, 'the second analysis replayed kept results');
  read = CARTPOLE;
  assert.deepEqual(codes(), ['unknown-field']);
  read = { kind: 'failed', message: 'ModuleNotFoundError: No module named \'gymnasium\'' };
  assert.deepEqual(codes(), ['python-env-probe-failed']);
});

test('a python("file.py:Class") env asks for its file, class and kwargs; declared observations rename the probed ones', () => {
  const text = [
    'env Cart = python("./envs/cart.py:Cart") {',
    '  kwargs { length: 0.5, mode: "fast", sizes: [1, 2], debug: none }',
    '  observations: ["x", "v", "angle", "spin"]',
    '}',
    experiment('PPO', 'reward R {\n  term t = -abs(obs.angle) - abs(obs.x2)\n}\n'),
  ].join('\n');
  const files = { 'main.rlx': text, 'envs/cart.py': 'class Cart:\n    pass\n' };
  const asked: PythonEnvQuery[] = [];
  const options: AnalyzeOptions = { pythonEnvs: { lookup: (query) => (asked.push(query), CARTPOLE) } };
  const file = virtualPath('main.rlx');
  const found = analyze(new Workspace(new MemoryHost(files)), [file], options).diagnostics.get(file) ?? [];
  assert.equal(asked[0]!.id, '');
  assert.equal(asked[0]!.file, virtualPath('envs/cart.py'));
  assert.equal(asked[0]!.className, 'Cart');
  assert.deepEqual(asked[0]!.kwargs, { length: 0.5, mode: 'fast', sizes: [1, 2], debug: null });
  // obs.angle is a declared name; obs.x2 was the probe's own name for it, replaced by the declaration.
  assert.deepEqual(found.map((d) => [d.code, d.message.split(';')[0]]), [['unknown-field', 'Cart (python("./envs/cart.py:Cart")) has no observation field \'x2\'']]);
});

test('observations that name another number of values than the probe found is an error at the setting', () => {
  const source = `env Cart = gymnasium("CartPole-v1") {\n  ⟦observations⟧: ["x", "v"]\n}\n${experiment('PPO')}`;
  expectDiagnostics(source, [{ code: 'type-mismatch', message: /^observations names 2 numbers, but gymnasium\("CartPole-v1"\) observes 4 \(as probed: x0, x1, x2, x3\)/ }], { analyze: provider({ 'CartPole-v1': CARTPOLE }) });
  expectDiagnostics(source.replace(/[⟦⟧]/g, ''), [], {});
});
