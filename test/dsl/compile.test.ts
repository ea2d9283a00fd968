// The compiler: plans are complete, resolved and deterministic; sweeps expand; errors refuse.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { analyze, compile, runnableNames, stringifyPlan, userModules, Workspace, writePlanList, type Plan } from '../../dsl/index.js';
import { exampleFiles } from '../helpers/repo.js';

const ROOT = path.resolve('/virtual-rlx');

function plansOf(files: Record<string, string>, name?: string, entry = 'main.rlx'): Plan[] {
  const ws = new Workspace({ readFile: (p) => files[path.relative(ROOT, p)] });
  const entryPath = path.join(ROOT, entry);
  const result = compile(analyze(ws, [entryPath]), entryPath, name);
  if (!result.ok) throw new Error(result.error);
  return [...result.plans];
}

const BALANCE = `
env Pole = CartPole { max_steps: 500 }
policy Actor = mlp { hidden: [64, 64] }
algorithm Tuned = PPO {
  learning_rate: linear(2.5e-4, 0)
  epochs: 4
}
experiment Balance {
  env: Pole
  envs: 4
  policy: Actor
  algorithm: Tuned
  budget: 500k
  seeds: [1, 2, 3]
  eval { every: 10k }
  stop: eval.mean_return >= 475
}
`;

describe('compiler', () => {
  test('fills every default of the built-ins and resolves suffixes and schedules', () => {
    const [plan] = plansOf({ 'main.rlx': BALANCE });
    assert.equal(plan.experiment, 'Balance');
    assert.deepEqual(plan.env, {
      name: 'Pole', kind: 'CartPole',
      params: { max_steps: 500, gravity: 9.8, cart_mass: 1, pole_mass: 0.1, pole_half_length: 0.5, force: 10, tau: 0.02 },
    });
    assert.deepEqual(plan.policy.params, { hidden: [64, 64], activation: 'tanh', shared_trunk: false, core: 'none' });
    const alg = plan.stages[0].algorithm;
    assert.equal(alg.kind, 'PPO');
    assert.deepEqual(alg.params.learning_rate, { schedule: 'linear', from: 2.5e-4, to: 0, over: 1 });
    assert.deepEqual(alg.params.clip, { schedule: 'constant', value: 0.2 }, 'a plain default number of a schedulable parameter becomes a constant schedule');
    assert.equal(alg.params.gamma, 0.99);
    assert.equal(alg.params.target_kl, 'none');
    assert.equal(plan.stages[0].budget, 500_000);
    assert.deepEqual(plan.seeds, [1, 2, 3]);
    assert.deepEqual(plan.eval, { every: 10_000, episodes: 10, deterministic: true });
    assert.deepEqual(plan.stop, { op: '>=', args: [{ ref: 'eval.mean_return' }, { const: 475 }] });
    assert.equal(plan.device, 'auto');
    assert.equal('precision' in plan, false, 'fp32, the default, is not written: plans read as before it existed');
    assert.match(plan.source.hash, /^sha256:[0-9a-f]{64}$/);
  });

  test('precision: fp16 reaches the plan; fp32 stated is left out as the default is', () => {
    const text = `env Arith = TextTask { task: addition(digits: 2) }
policy Tiny = transformer { layers: 2 }
experiment Half { env: Arith, policy: Tiny, algorithm: GRPO, budget: 1k, device: webgpu, precision: fp16 }
experiment Full = Half { precision: fp32 }
`;
    assert.equal(plansOf({ 'main.rlx': text }, 'Half')[0]!.precision, 'fp16');
    assert.equal('precision' in plansOf({ 'main.rlx': text }, 'Full')[0]!, false);
  });

  test('merges inheritance: the nearest statement wins, the rest comes from the base', () => {
    const [plan] = plansOf({
      'main.rlx': `${BALANCE}
algorithm Fast = Tuned { learning_rate: 1e-3 }
reward Upright {
  term alive = 1.0
  term tilt = -0.1 * abs(next_obs.theta)
  replace_env_reward: true
}
experiment Quick = Balance { algorithm: Fast, reward: Upright, seed: 9 }`,
    }, 'Quick');
    const alg = plan.stages[0].algorithm;
    assert.equal(alg.name, 'Fast');
    assert.deepEqual(alg.params.learning_rate, { schedule: 'constant', value: 1e-3 });
    assert.equal(alg.params.epochs, 4, 'inherited from Tuned');
    assert.equal(plan.envs, 4, 'inherited from Balance');
    assert.deepEqual(plan.seeds, [9], 'seed overrides the inherited seeds');
    assert.deepEqual(plan.reward, {
      name: 'Upright', replace_env_reward: true,
      terms: [
        { name: 'alive', expr: { const: 1 } },
        { name: 'tilt', expr: { op: '*', args: [{ const: -0.1 }, { call: 'abs', args: [{ ref: 'next_obs.theta' }] }] } },
      ],
    });
  });

  test('binds named arguments and fills defaults in expressions and options', () => {
    const [plan] = plansOf({
      'main.rlx': `
env Rooms = GridWorld { goal: fixed(3, y: 4) }
policy Q = mlp {}
algorithm Her = DQN { relabel: future, epsilon: linear(1.0, 0.05, over: 0.3) }
experiment Reach { env: Rooms, policy: Q, algorithm: Her, budget: 1k, stop: eval.success >= 0.9 and steps > 2 * 100 }`,
    });
    assert.deepEqual(plan.env.params.goal, { kind: 'fixed', x: 3, y: 4 });
    assert.deepEqual(plan.stages[0].algorithm.params.relabel, { kind: 'future', k: 4 });
    assert.deepEqual(plan.stages[0].algorithm.params.epsilon, { schedule: 'linear', from: 1, to: 0.05, over: 0.3 });
    assert.deepEqual(plan.stop, {
      op: 'and',
      args: [{ op: '>=', args: [{ ref: 'eval.success' }, { const: 0.9 }] }, { op: '>', args: [{ ref: 'steps' }, { const: 200 }] }],
    }, 'constant sub-expressions are folded');
  });

  test("'none' written as an option compiles to the option, not to null", () => {
    const [plan] = plansOf({ 'main.rlx': BALANCE.replace('epochs: 4', 'epochs: 4\n  target_kl: none') });
    assert.equal(plan.stages[0].algorithm.params.target_kl, 'none');
    const [dqn] = plansOf({
      'main.rlx': 'env G = GridWorld {}\npolicy Q = mlp {}\nalgorithm D = DQN { relabel: none }\nexperiment E { env: G, policy: Q, algorithm: D, budget: 1k }',
    });
    assert.equal(dqn.stages[0].algorithm.params.relabel, 'none');
  });

  test('staged experiments compile each stage with its algorithm and budget', () => {
    const [plan] = plansOf({
      'main.rlx': `
env Arith = TextTask { task: addition(digits: 2) }
policy Tiny = transformer {}
algorithm Grpo = GRPO { group_size: 8 }
experiment Sums {
  env: Arith
  policy: Tiny
  stage warmup = SFT { updates: 2k, data: demos }
  stage main = Grpo { budget: 50k, kl_coef: 0.1 }
}`,
    });
    assert.deepEqual(plan.stages.map((s) => [s.name, s.algorithm.kind, s.budget]), [['warmup', 'SFT', null], ['main', 'GRPO', 50_000]]);
    assert.equal(plan.stages[0].algorithm.params.updates, 2000);
    assert.equal(plan.stages[1].algorithm.params.kl_coef, 0.1, 'stage bodies override the algorithm');
    assert.equal(plan.stages[1].algorithm.params.group_size, 8);
  });

  test('a sweep compiles to one plan per combination, in order, with the values it varies', () => {
    const plans = plansOf({
      'main.rlx': `${BALANCE}
sweep Scan over Balance {
  algorithm.learning_rate: [1e-4, 3e-4]
  env.max_steps: [200, 500]
  seeds: [7]
  parallel: 2
}`,
    }, 'Scan');
    assert.equal(plans.length, 4);
    assert.deepEqual(plans.map((p) => [p.sweep!.index, p.sweep!.count]), [[0, 4], [1, 4], [2, 4], [3, 4]]);
    assert.deepEqual(plans.map((p) => [(p.stages[0].algorithm.params.learning_rate as { value: number }).value, p.env.params.max_steps]),
      [[1e-4, 200], [1e-4, 500], [3e-4, 200], [3e-4, 500]]);
    assert.deepEqual(plans[3].sweep!.values, { 'algorithm.learning_rate': { schedule: 'constant', value: 3e-4 }, 'env.max_steps': 500 });
    assert.ok(plans.every((p) => p.seeds.length === 1 && p.seeds[0] === 7 && p.sweep!.parallel === 2));
  });

  test('a sweep over references puts the named declarations into the plans, and its variants name every module any member loads', () => {
    const files = {
      'main.rlx': `${BALANCE}
env Walk = module("./walk.ts") { speed: 2 }
algorithm Fast = PPO { learning_rate: 1e-3 }
sweep Swap over Balance {
  algorithm: [Tuned, Fast]
  algorithm.epochs: ${JSON.stringify(Array.from({ length: 60 }, (_, i) => i + 1))}
  env: [Pole, Walk]
}`,
      'walk.ts': "export const spec = { observations: ['x'], actions: 'discrete' };\nexport default class {}\n",
    };
    const ws = new Workspace({ readFile: (p) => (files as Record<string, string>)[path.relative(ROOT, p)] });
    const entry = path.join(ROOT, 'main.rlx');
    const result = compile(analyze(ws, [entry]), entry, 'Swap');
    assert.ok(result.ok);
    const plans = [...result.plans];
    assert.equal(plans.length, 240);
    const [first, second] = plans;
    assert.deepEqual([first.env.name, first.env.kind, first.env.params.max_steps, first.stages[0].algorithm.name], ['Pole', 'CartPole', 500, 'Tuned']);
    assert.deepEqual(second.env, { name: 'Walk', kind: 'module', module: 'walk.ts', params: { speed: 2 } });
    assert.deepEqual(second.sweep!.values, { algorithm: 'Tuned', 'algorithm.epochs': 1, env: 'Walk' });
    const fast = plans.find((p) => p.sweep!.values.algorithm === 'Fast')!;
    assert.deepEqual(fast.stages[0].algorithm.params.learning_rate, { schedule: 'constant', value: 1e-3 });
    // 2 + 60 + 2 variants, not 240 plans; the module is among them though only odd members load it.
    assert.equal(result.plans.variants().length, 64);
    assert.deepEqual(userModules(result.plans.variants()), ['walk.ts']);
    assert.deepEqual(userModules(result.plans.first(1)), []);
  });

  test("a reward's python(\"./file.py:fn\") terms are user code: a trusted workspace trains them", () => {
    const plan = { env: { kind: 'TextTask', name: 'T', params: {} }, stages: [], reward: { name: 'R', replace_env_reward: true, terms: [
      { name: 'a', expr: { op: '*', args: [{ const: 0.5 }, { call: 'python', args: [{ const: './rewards.py:accuracy' }] }] } },
      { name: 'b', expr: { call: 'exact', args: [{ ref: 'completion' }, { ref: 'target' }] } },
    ] } } as unknown as Plan;
    assert.deepEqual(userModules([plan]), ['./rewards.py:accuracy']);
  });

  test("a sweep over a user module's params puts each value into the member's env params", () => {
    const files = {
      'main.rlx': `env Walk = module("./walk.ts") { speed: 2 }
policy P = mlp { }
algorithm A = PPO { }
experiment Run { env: Walk, policy: P, algorithm: A, budget: 1k }
sweep Speeds over Run { env.speed: [1, 5] }`,
      'walk.ts': "export const spec = { observations: ['x'], actions: 'discrete' };\nexport default class {}\n",
    };
    const ws = new Workspace({ readFile: (p) => (files as Record<string, string>)[path.relative(ROOT, p)] });
    const entry = path.join(ROOT, 'main.rlx');
    const result = compile(analyze(ws, [entry]), entry, 'Speeds');
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual([...result.plans].map((p) => [p.env.params.speed, p.sweep!.values['env.speed']]), [[1, 1], [5, 5]]);
  });

  test('random sweeps draw distinct combinations, the same ones every time', () => {
    const files = { 'main.rlx': `${BALANCE}\nsweep R over Balance { algorithm.epochs: [1, 2, 3, 4, 5], budget: [1k, 2k, 3k], strategy: random(samples: 6) }` };
    const a = plansOf(files, 'R').map((p) => JSON.stringify(p.sweep!.values));
    const b = plansOf(files, 'R').map((p) => JSON.stringify(p.sweep!.values));
    assert.equal(a.length, 6);
    assert.equal(new Set(a).size, 6);
    assert.deepEqual(a, b);
  });

  test('a sweep of a million members is counted, and each member made only when asked for (issue 14 item 5)', () => {
    // 10 x 10 x 10 x 10 x 10 x 10 = 10^6, the most a sweep may have.
    const ten = '[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]';
    const files = { 'main.rlx': `${BALANCE}\nsweep Big over Balance {\n  algorithm.epochs: ${ten}\n  algorithm.minibatches: ${ten}\n  algorithm.rollout_steps: ${ten}\n  env.max_steps: ${ten}\n  envs: ${ten}\n  seed: ${ten}\n}` };
    const ws = new Workspace({ readFile: (p) => files[path.relative(ROOT, p) as 'main.rlx'] });
    const entry = path.join(ROOT, 'main.rlx');
    const analysis = analyze(ws, [entry]);
    assert.deepEqual([...analysis.diagnostics.values()].flat().filter((d) => d.severity === 'error'), []);
    const result = compile(analysis, entry, 'Big');
    assert.ok(result.ok);
    assert.equal(result.plans.count, 1_000_000);
    const last = result.plans.at(999_999);
    assert.deepEqual(last.sweep!.values, { 'algorithm.epochs': 10, 'algorithm.minibatches': 10, 'algorithm.rollout_steps': 10, 'env.max_steps': 10, envs: 10, seed: 10 });
    assert.deepEqual(result.plans.at(123_456).sweep!.values, { 'algorithm.epochs': 2, 'algorithm.minibatches': 3, 'algorithm.rollout_steps': 4, 'env.max_steps': 5, envs: 6, seed: 7 });
    assert.equal(result.plans.first(3).length, 3);
    assert.deepEqual(result.plans.first(3).map((p) => p.sweep!.index), [0, 1, 2]);
  });

  test('the list of a sweep written a plan at a time is byte for byte the list written whole', () => {
    const files = { 'main.rlx': `${BALANCE}\nsweep Scan over Balance { algorithm.epochs: [1, 2], budget: [1k, 2k, 3k] }` };
    const plans = plansOf(files, 'Scan');
    let streamed = '';
    writePlanList(plans, (chunk) => (streamed += chunk));
    assert.equal(streamed, stringifyPlan(plans));
    let empty = '';
    writePlanList([], (chunk) => (empty += chunk));
    assert.equal(empty, stringifyPlan([]));
  });

  test('plans are byte-identical for the same input, and independent of the folder', () => {
    const one = stringifyPlan(plansOf({ 'main.rlx': BALANCE }));
    const two = stringifyPlan(plansOf({ 'main.rlx': BALANCE }));
    assert.equal(one, two);
    const elsewhere = stringifyPlan(plansOf({ 'sub/main.rlx': BALANCE }, undefined, 'sub/main.rlx'));
    assert.equal(elsewhere, one);
    const edited = stringifyPlan(plansOf({ 'main.rlx': BALANCE + '\n// a comment changes the source hash\n' }));
    assert.notEqual(edited, one);
  });

  test('imports contribute to the source list and hash, with paths relative to the entry', () => {
    const [plan] = plansOf({
      'lib/parts.rlx': 'env Pole = CartPole {}\npolicy Actor = mlp {}\nalgorithm A = PPO {}',
      'main.rlx': 'import "./lib/parts.rlx"\nexperiment E { env: Pole, policy: Actor, algorithm: A, budget: 1k }',
    });
    assert.deepEqual(plan.source.files, ['lib/parts.rlx', 'main.rlx']);
    assert.equal(plan.source.entry, 'main.rlx');
  });

  test('a user-code env keeps its parameters as written and its module path relative to the entry', () => {
    const [plan] = plansOf({
      'envs/mine.rlx': 'env Mine = module("./mine.ts") { size: 3, mode: "hard" }',
      'envs/mine.ts': 'export default class Mine {}\n',
      'main.rlx': 'import "./envs/mine.rlx"\npolicy P = mlp {}\nalgorithm A = PPO {}\nexperiment E { env: Mine, policy: P, algorithm: A, budget: 1k }',
    });
    assert.deepEqual(plan.env, { name: 'Mine', kind: 'module', module: 'envs/mine.ts', params: { mode: 'hard', size: 3 } });
  });

  test('refuses a file with errors, and says which experiments exist', () => {
    const ws = (text: string) => new Workspace({ readFile: (p) => (p === path.join(ROOT, 'main.rlx') ? text : undefined) });
    const entry = path.join(ROOT, 'main.rlx');
    const broken = compile(analyze(ws(BALANCE.replace('epochs: 4', 'epochs: 4.5')), [entry]), entry);
    assert.equal(broken.ok, false);
    assert.match((broken as { error: string }).error, /has 1 error; fix it first/);
    const two = BALANCE + '\nexperiment Other = Balance {}';
    const ambiguous = compile(analyze(ws(two), [entry]), entry);
    assert.match((ambiguous as { error: string }).error, /2 experiments and sweeps \(Balance, Other\); choose one with --experiment NAME/);
    const missing = compile(analyze(ws(two), [entry]), entry, 'Nope');
    assert.match((missing as { error: string }).error, /no experiment or sweep 'Nope'; it has: Balance, Other/);
  });

  test('every experiment and sweep in examples/ compiles', () => {
    const files = exampleFiles();
    assert.ok(files.length >= 6, 'examples/ has the example files');
    for (const file of files) {
      const ws = new Workspace({ readFile: (p) => (fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : undefined) });
      const analysis = analyze(ws, [file]);
      for (const name of runnableNames(analysis, file)) {
        const result = compile(analysis, file, name);
        assert.ok(result.ok, `${path.basename(file)} ${name}: ${result.ok ? '' : result.error}`);
        assert.ok(result.plans.count >= 1);
      }
    }
  });
});

test('a Python env\'s kwargs keep every key as written, __proto__ too, in the plan and its JSON (issue 43 item 15)', () => {
  const source = 'env Cart = gymnasium("CartPole-v1") {\n  kwargs { __proto__: 3, constructor: 1, render_mode: "x" }\n}\npolicy P = mlp {}\nexperiment E { env: Cart, policy: P, algorithm: PPO, budget: 1k }\n';
  const [plan] = plansOf({ 'main.rlx': source });
  const kwargs = plan!.env.params.kwargs as Record<string, unknown>;
  assert.deepEqual(Object.keys(kwargs), ['__proto__', 'constructor', 'render_mode']);
  assert.equal(Object.getPrototypeOf(kwargs), Object.prototype, 'no key became the prototype');
  assert.deepEqual((JSON.parse(stringifyPlan(plan!)) as { env: { params: { kwargs: unknown } } }).env.params.kwargs, JSON.parse('{"__proto__": 3, "constructor": 1, "render_mode": "x"}'));
});
