// The language side of Python text envs: `python_text("./envs/shop.py:Shop")` with its settings
// (dsl/schema/python-text-env.ts), checked against the file's text (never run): a missing file is
// an error, a class it does not define or one without reset()/step() a warning; `info: [...]`
// gives reward terms their info.NAME; the plan names the file and class; and the file is among
// the user code an untrusted workspace will not train.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyze, compile, Workspace } from '../../../dsl/index.js';
import { userModules } from '../../../dsl/compile/plans.js';
import { untrustedModules } from '../../../extension/messages.js';
import { expectClean, expectDiagnostics, MemoryHost, virtualPath } from '../../helpers/source.js';

const SHOP = [
  'import random',
  '',
  'class Shop:',
  '    """A shop."""',
  '    def __init__(self, items=3):',
  '        self.items = items',
  '',
  '    def reset(self, seed=None, options=None):',
  "        return 'welcome', {}",
  '    def step(self, action):',
  '        def inner():',
  '            pass',
  "        return 'ok', 0.0, False, False, {'paid': 1}",
  '',
  'class Half:',
  '    def reset(self, seed=None, options=None):',
  "        return 'hi', {}",
  '',
  'class Derived(Shop):',
  '    pass',
  '',
].join('\n');

const EXPERIMENT = 'policy P = transformer { context: 512 }\nalgorithm A = SFT { }\nexperiment E { env: Shop, policy: P, stage s = A { updates: 10 } }\n';

function planOf(files: Record<string, string>) {
  const entry = virtualPath('main.rlx');
  const result = compile(analyze(new Workspace(new MemoryHost(files)), [entry]), entry, 'E');
  assert.ok(result.ok, result.ok ? '' : result.error);
  return [...result.plans][0]!;
}

test('python_text("./envs/shop.py:Shop") with its settings is clean, and its plan names the file, the class, the settings and kwargs', () => {
  const source = `env Shop = python_text("./envs/shop.py:Shop") {\n  kwargs { items: 5 }\n  max_turns: 4\n  info: ["paid"]\n}\n${EXPERIMENT}`;
  const files = { 'main.rlx': source, 'envs/shop.py': SHOP };
  expectClean(files, ['main.rlx']);
  assert.deepEqual(planOf(files).env, {
    name: 'Shop', kind: 'python_text',
    params: { file: 'envs/shop.py', class: 'Shop', max_turns: 4, max_observation: 200, max_action: 32, alphabet: '', info: ['paid'], python: '', env_timeout: 30, copies_per_process: 8, kwargs: { items: 5 } },
  });
});

test('python_text(...): a missing file, a malformed argument and a non-env are errors at their place', () => {
  expectDiagnostics({ 'main.rlx': `env Shop = python_text(⟦"./envs/gone.py:Shop"⟧)\n${EXPERIMENT}` }, [{ code: 'module-not-found', message: /^cannot read '\.\/envs\/gone\.py' \(looked for .*gone\.py\); python_text\("\.\.\."\) paths are relative to this file$/ }]);
  expectDiagnostics(`env Shop = python_text(⟦"./envs/shop.py"⟧)\n`, [{ code: 'type-mismatch', message: /is not a file and a class: write python_text\("\.\/envs\/shop\.py:Shop"\)/ }]);
  expectDiagnostics('env Shop = ⟦python_text()⟧\n', [{ code: 'wrong-arguments', message: /^python_text takes one file and class in quotes/ }]);
  expectDiagnostics('policy P = ⟦python_text("./envs/shop.py:Shop")⟧\n', [{ code: 'invalid-base', message: /makes a text environment; a policy cannot/ }]);
  expectDiagnostics({ 'main.rlx': `env Shop = python_text("./envs/shop.py:Shop") { ⟦max_stepz⟧: 3 }\n`, 'envs/shop.py': SHOP },
    [{ code: 'unknown-property', message: /python_text\("\.\/envs\/shop\.py:Shop"\) has no property 'max_stepz'/ }], { roots: ['main.rlx'] });
});

test('python_text(...): a class the file does not define, or one without reset() and step(), is a warning', () => {
  expectDiagnostics({ 'main.rlx': `env Shop = python_text(⟦"./envs/shop.py:Shp"⟧)\n${EXPERIMENT}`, 'envs/shop.py': SHOP },
    [{ code: 'unknown-name', severity: 'warning', message: /^\.\/envs\/shop\.py does not seem to define Shp \(no `class Shp` in it\)/ }], { roots: ['main.rlx'] });
  expectDiagnostics({ 'main.rlx': `env Shop = python_text(⟦"./envs/shop.py:Half"⟧)\n${EXPERIMENT}`, 'envs/shop.py': SHOP },
    [{ code: 'unknown-name', severity: 'warning', message: /^Half in \.\/envs\/shop\.py has no method step; a Python text env has reset\(seed=None, options=None\)/ }], { roots: ['main.rlx'] });
  // A class with a base may inherit its methods: not warned about.
  expectClean({ 'main.rlx': `env Shop = python_text("./envs/shop.py:Derived")\n${EXPERIMENT}`, 'envs/shop.py': SHOP }, ['main.rlx']);
});

test('python_text(...): info names are what reward terms read as info.NAME; others are refused at the term', () => {
  const reward = 'reward R { term paid = info.paid }\n';
  const files = (term: string) => ({ 'main.rlx': `env Shop = python_text("./envs/shop.py:Shop") { info: ["paid"] }\nreward R { term t = ${term} }\n${EXPERIMENT.replace('env: Shop,', 'env: Shop, reward: R,')}`, 'envs/shop.py': SHOP });
  expectClean(files('info.paid + 0.1 * env_reward'), ['main.rlx']);
  expectDiagnostics(files('info.⟦payd⟧'), [{ code: 'unknown-field', message: /reports no info value 'payd'; it reports: paid; did you mean 'paid'\?/ }], { roots: ['main.rlx'] });
  expectDiagnostics({ 'main.rlx': `env Shop = python_text("./envs/shop.py:Shop") { info: [⟦"2x"⟧] }\n${reward}`, 'envs/shop.py': SHOP }, [{ code: 'type-mismatch', message: /"2x" cannot be an info name/ }], { roots: ['main.rlx'], others: 'allowed' });
});

test('python_text(...) is a text env: an mlp policy or PPO on it is refused', () => {
  const files = { 'main.rlx': 'env Shop = python_text("./envs/shop.py:Shop")\npolicy P = mlp { }\nalgorithm A = PPO { }\nexperiment E { env: Shop, policy: ⟦P⟧, algorithm: ⟦A⟧, budget: 10k }\n', 'envs/shop.py': SHOP };
  expectDiagnostics(files, [
    { code: 'incompatible-env', message: /is a text task; an mlp cannot read or write text; use transformer/ },
    { code: 'incompatible-env', message: /^PPO cannot train on Shop \(python_text\("\.\/envs\/shop\.py:Shop"\)\): it needs .* and python_text\("\.\/envs\/shop\.py:Shop"\) has text actions; algorithms that fit: REINFORCE, GRPO, SFT/ },
  ], { roots: ['main.rlx'] });
});

test('an untrusted workspace does not train a python_text env: its file is user code that runs the workspace\'s Python', () => {
  const files = { 'main.rlx': `env Shop = python_text("./envs/shop.py:Shop")\n${EXPERIMENT}`, 'envs/shop.py': SHOP };
  const modules = userModules([planOf(files)]);
  assert.deepEqual(modules, ['envs/shop.py']);
  assert.match(untrustedModules('E', modules), /^Cannot train E in Restricted Mode: it runs the workspace's Python \(envs\/shop\.py\)/);
});
