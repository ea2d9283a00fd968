// User environments: `env X = module("./file.ts")` loads TypeScript or JavaScript, trains like a
// built-in, and a module that does not fulfil the interface is refused with what is missing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { Plan } from '../../../dsl/compile/plan.js';
import { envMaker } from '../../../runtime/envs/module-env.js';
import { loadRunModule } from '../../../runtime/envs/run-envs.js';
import { loadEnvModule, moduleEnvConfig } from '../../../runtime/envs/user-module.js';
import { VecEnv } from '../../../runtime/envs/vector.js';
import { makeFifo, makeHuge, makeLink } from '../../helpers/hostile-files.js';
import { repoRoot } from '../../helpers/repo.js';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-user-env-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = path.join(work, name);
  fs.writeFileSync(file, text);
  return file;
}

// A corridor: walk right from cell 0 to cell `length`; typed TypeScript that imports a helper.
write('walls.ts', 'export function clamp(x: number, lo: number, hi: number): number { return Math.min(hi, Math.max(lo, x)); }\n');
const corridor = write('corridor.ts', `
import { clamp } from './walls.js';
interface Params { length?: number }
export default class Corridor {
  readonly observationSpace = { kind: 'box' as const, shape: [1], low: [0], high: [1] };
  readonly actionSpace = { kind: 'discrete' as const, n: 2 };
  readonly obsFields = ['position'];
  private position = 0;
  private readonly length: number;
  constructor(params: Params) { this.length = params.length ?? 5; }
  reset(_seed?: number) { this.position = 0; return { obs: [0], info: {} }; }
  step(action: number) {
    this.position = clamp(this.position + (action === 1 ? 1 : -1), 0, this.length);
    const done = this.position === this.length;
    return { obs: [this.position / this.length], reward: done ? 1 : -0.01, terminated: done, truncated: false, info: {} };
  }
}
`);

test('a TypeScript module with imports loads, takes its params from the plan and steps', async () => {
  const loaded = await loadEnvModule(corridor, { length: 3 });
  const env = loaded.create({ length: 3 });
  assert.deepEqual([...env.reset(0).obs], [0]);
  assert.deepEqual(env.obsFields, ['position']);
  env.step(1);
  env.step(1);
  const last = env.step(1);
  assert.equal(last.terminated, true);
  assert.equal(last.reward, 1);
  assert.match(loaded.code, /Corridor = class/, 'the bundle carries the module code');
});

test('episodes are truncated at max_steps when the module does not end them', async () => {
  const loaded = await loadEnvModule(corridor, {});
  const env = loaded.create({ length: 100, max_steps: 3 });
  env.reset(0);
  assert.deepEqual([env.step(0).truncated, env.step(0).truncated, env.step(0).truncated], [false, false, true]);
});

test('a module that does not fulfil the interface is refused with what is missing', async () => {
  const noStep = write('no-step.js', 'export default function create() { return { observationSpace: { kind: "discrete", n: 3 }, actionSpace: { kind: "discrete", n: 2 }, reset() { return { obs: [0] }; } }; }\n');
  await assert.rejects(loadEnvModule(noStep, {}), /lacks step; see docs\/language\.md/);
  const badObs = write('bad-obs.js', 'export default class { observationSpace = { kind: "box", shape: [2] }; actionSpace = { kind: "discrete", n: 2 }; reset() { return { obs: [1, 2, 3] }; } step() { return { obs: [1, 2], reward: 0, terminated: false, truncated: false }; } }\n');
  await assert.rejects(loadEnvModule(badObs, {}), /reset\(\) returned 3 observation numbers, but observationSpace has 2/);
  const noExport = write('no-export.js', 'export const x = 1;\n');
  await assert.rejects(loadEnvModule(noExport, {}), /must export a class or a function as its default export.*it exports: x/);
  const broken = write('broken.ts', 'export default class {\n  step( {\n}\n');
  await assert.rejects(loadEnvModule(broken, {}), /cannot compile the env module .*broken\.ts:\d+:\d+: /);
  await assert.rejects(loadEnvModule(path.join(work, 'missing.ts'), {}), /does not exist; module\("\.\.\."\) paths are relative to the \.rlx file/);
});

// A module whose step() misbehaves from its `after`-th call on, as params.misbehave says.
const misbehaving = write('misbehaving.js', `
let calls = 0;
export default class Misbehaving {
  observationSpace = { kind: 'box', shape: [1], low: [0], high: [1] };
  actionSpace = { kind: 'discrete', n: 2 };
  constructor(params) { this.params = params; }
  reset() { return { obs: [0], info: {} }; }
  step() {
    if (++calls > (this.params.after ?? 1)) {
      switch (this.params.misbehave) {
        case 'hang': for (;;) {}
        case 'exit': process.exit(0);
        case 'string': throw 'the pole broke';
        case 'undefined': throw undefined;
        case 'toString': { const o = { toString() { throw new Error('no text'); } }; o.self = o; throw o; }
        case 'message': { const e = new Error(); Object.defineProperty(e, 'message', { get() { throw new Error('no message'); } }); throw e; }
      }
    }
    return { obs: [0], reward: 0, terminated: false, truncated: false, info: {} };
  }
}
`);

test('user code runs in a worker: a step that never returns fails after env_timeout, and the module is ended', async () => {
  const params = { misbehave: 'hang', after: 1, env_timeout: 0.5 }; // the probe's step is the first call
  const loaded = await loadEnvModule(misbehaving, params, { name: 'Slow' });
  const env = loaded.create(params);
  env.reset(0);
  assert.throws(() => env.step(0), /^EnvModuleError: env Slow's step\(\) did not return within 0\.5 s \(copy 0; raise env_timeout/);
  assert.throws(() => env.reset(0), /did not return within 0\.5 s/, 'the module stays ended: its thread was stopped');
  loaded.close();
});

test('process.exit(), throw "text", throw undefined and a throw whose toString throws each fail with what happened, where', async () => {
  const expected: Record<string, RegExp> = {
    exit: /^EnvModuleError: env E, copy 0: .*misbehaving\.js: step\(\) called process\.exit\(0\)$/,
    string: /^EnvModuleError: env E, copy 0: .*misbehaving\.js: step\(\) threw: the pole broke$/,
    undefined: /^EnvModuleError: env E, copy 0: .*misbehaving\.js: step\(\) threw: undefined \(not an Error\)$/,
    // Describing the thrown value throws too: the module is still named.
    toString: /^EnvModuleError: env E, copy 0: .*misbehaving\.js: step\(\) threw: a value that cannot be shown \(turning it into text threw\)$/,
    message: /^EnvModuleError: env E, copy 0: .*misbehaving\.js: step\(\) threw: a value that cannot be shown/,
  };
  for (const [misbehave, message] of Object.entries(expected)) {
    const params = { misbehave, after: 2 }; // the probe's step is the first call
    const loaded = await loadEnvModule(misbehaving, params, { name: 'E' });
    const env = loaded.create(params);
    env.reset(0);
    env.step(0);
    assert.throws(() => env.step(0), message, misbehave);
    loaded.close();
  }
});

test('a module that hangs or exits while loading is refused within env_timeout', async () => {
  const stuck = write('stuck.js', 'for (;;) {}\nexport default class {}\n');
  await assert.rejects(loadEnvModule(stuck, { env_timeout: 0.5 }, { name: 'Stuck' }), /stuck\.js \(env Stuck\) did not finish loading within 0\.5 s/);
  const leaving = write('leaving.js', 'process.exit(3);\nexport default class {}\n');
  await assert.rejects(loadEnvModule(leaving, {}), /leaving\.js ended while loading \(process\.exit\(3\)/);
});

test('VecEnv steps the copies together in the worker, with the results they give on the trainer\'s thread; a failure names its copy', async () => {
  const file = write('walker.js', `
let created = 0;
export default class Walker {
  observationSpace = { kind: 'box', shape: [2], low: [0, 0], high: [1, 1] };
  actionSpace = { kind: 'discrete', n: 3 };
  constructor(params) { this.id = created++; this.params = params; this.pos = 0; this.steps = 0; }
  reset(seed) { this.pos = (seed ?? 0) % 5; this.steps = 0; return { obs: [this.pos / 10, 0], info: {} }; }
  step(a) {
    this.steps++;
    if (this.params.break && this.id === 3 && this.steps > 5) throw new Error('copy three broke');
    this.pos = Math.max(0, Math.min(10, this.pos + a - 1));
    return { obs: [this.pos / 10, this.id / 10], reward: this.pos === 10 ? 1 : -0.1, terminated: this.pos === 10, truncated: false, info: {} };
  }
}
`);
  const inThread = envMaker((await import(pathToFileURL(file).href)) as Record<string, unknown>, file);
  inThread({}); // the worker made a first copy for its probe: keep the ids in step
  const loaded = await loadEnvModule(file, {}, { name: 'Batch' });
  const here = VecEnv.create(() => inThread({ max_steps: 7 }), 3);
  const there = VecEnv.create(() => loaded.create({ max_steps: 7 }), 3);
  here.reset(5);
  there.reset(5);
  const actions = new Int32Array(3);
  for (let t = 0; t < 40; t++) {
    for (let i = 0; i < 3; i++) actions[i] = (t * 7 + i * 3) % 3;
    here.step(actions);
    there.step(actions);
    assert.deepEqual([there.obs, there.rewards, there.terminated, there.truncated], [here.obs, here.rewards, here.terminated, here.truncated], `step ${t}`);
  }
  loaded.close();

  const broken = await loadEnvModule(file, { break: true }, { name: 'Batch' });
  const vec = VecEnv.create(() => broken.create({ break: true }), 3);
  vec.reset(1);
  assert.throws(() => {
    for (let t = 0; t < 10; t++) vec.step(new Int32Array(3));
  }, /^EnvModuleError: env Batch, copy 2: .*walker\.js: step\(\) threw: copy three broke$/);
  broken.close();
});

test('env_timeout comes from the schema registry: 30 s by default, a positive number', () => {
  assert.deepEqual(moduleEnvConfig('E', { size: 3 }), { timeoutSeconds: 30 });
  assert.deepEqual(moduleEnvConfig('E', { env_timeout: 2 }), { timeoutSeconds: 2 });
  assert.throws(() => moduleEnvConfig('E', { env_timeout: 0 }), /env E: param "env_timeout" must be a number > 0/);
});

test('rlx train trains on a module env, with reward terms over its fields, and keeps the bundle in the run', () => {
  write('corridor.rlx', `env Walk = module("./corridor.ts") { length: 4, max_steps: 50 }

policy P = mlp { hidden: [16] }

algorithm A = PPO { rollout_steps: 64 }

reward Progress {
  term forward = 0.1 * next_obs.position
}

experiment Go {
  env: Walk
  policy: P
  algorithm: A
  reward: Progress
  budget: 2k
  envs: 2
  seeds: [3]
}
`);
  const r = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), 'train', 'corridor.rlx', '--out', 'runs'], { cwd: work, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const runDir = path.join(work, 'runs', 'Go', fs.readdirSync(path.join(work, 'runs', 'Go'))[0]);
  const status = JSON.parse(fs.readFileSync(path.join(runDir, 'status.json'), 'utf8'));
  assert.equal(status.status, 'finished');
  assert.equal(status.step, 1920, 'whole updates of 2 envs x 64 steps within the 2k budget, as CleanRL');
  assert.ok(fs.existsSync(path.join(runDir, 'source', 'env-module.mjs')));
  const events = fs.readFileSync(path.join(runDir, 'events.jsonl'), 'utf8');
  assert.match(events, /"rewards\/forward"/, 'the reward term over the module env field is logged');
});

// A corridor that declares its names (docs/language.md#user-environments): the checker reads
// the spec from the text; the trainer checks it against what the module does.
const specWalk = write('spec-walk.ts', `
export const spec = {
  observations: ['position'],
  actions: 'discrete',
  info: ['success', 'left'],
};
export default class SpecWalk {
  readonly observationSpace = { kind: 'box' as const, shape: [1], low: [0], high: [1] };
  readonly actionSpace = { kind: 'discrete' as const, n: 2 };
  private position = 0;
  private readonly length: number;
  constructor(params: { length?: number }) { this.length = params.length ?? 2; }
  reset() { this.position = 0; return { obs: [0], info: {} }; }
  step(action: number) {
    this.position = Math.max(0, this.position + (action === 1 ? 1 : -1));
    const done = this.position >= this.length;
    return { obs: [this.position / this.length], reward: done ? 1 : 0, terminated: done, truncated: false, info: { success: done, left: this.length - this.position } };
  }
}
`);

test("a module's spec names its observations and info values; info and success reach the trainer through the worker", async () => {
  const loaded = await loadEnvModule(specWalk, { length: 2 }, { name: 'Walk' });
  const vec = VecEnv.create(() => loaded.create({ length: 2 }), 2);
  assert.deepEqual([vec.obsFields, vec.infoFields], [['position'], ['success', 'left']]);
  vec.reset(0);
  vec.step(Int32Array.from([1, 0]));
  assert.deepEqual([...vec.info], [0, 1, 0, 2], 'per copy: success, left');
  vec.step(Int32Array.from([1, 1]));
  assert.deepEqual([...vec.info], [1, 0, 0, 1], "the info of the step that ended copy 0's episode, not of the reset after it");
  assert.deepEqual(vec.takeFinishedEpisodes(), [{ env: 0, return: 1, length: 2, success: true }], 'episodes of a module that reports success say whether they succeeded');
  loaded.close();
});

// Bits: the action is 3 bits; the reward reads them as a binary number, the first worth most.
const bits = write('bits.ts', `
export const spec = { observations: ['x'], actions: 'multibinary', info: [] };
export default class Bits {
  readonly observationSpace = { kind: 'box' as const, shape: [1], low: [0], high: [1] };
  readonly actionSpace = { kind: 'multibinary' as const, n: 3 };
  reset(_seed?: number) { return { obs: [0], info: {} }; }
  step(action: number[]) {
    return { obs: [0], reward: action[0] * 4 + action[1] * 2 + action[2], terminated: false, truncated: false, info: {} };
  }
}
`);

test('a module with MultiBinary actions ({ kind: \'multibinary\', n }) gets its bits in order; its spec says multibinary', async () => {
  const loaded = await loadEnvModule(bits, {});
  const vec = VecEnv.create(() => loaded.create({}), 2);
  assert.deepEqual([vec.actionSpace, vec.actionDim], [{ kind: 'multibinary', n: 3 }, 3]);
  vec.reset(0);
  const actions = vec.createActionBuffer();
  actions.set([1, 0, 1, 0, 1, 1]);
  vec.step(actions);
  assert.deepEqual([...vec.rewards], [5, 3]);
  loaded.close();
  await assert.rejects(loadEnvModule(write('bits-spec.ts', fs.readFileSync(bits, 'utf8').replace("actions: 'multibinary'", "actions: 'discrete'")), {}),
    /bits-spec\.ts: spec\.actions says 'discrete', but actionSpace is multibinary/);
});

test('a spec that disagrees with the module, or step() infos that lack what it declares, are refused with what to fix', async () => {
  const variant = (name: string, from: string, to: string) => write(name, fs.readFileSync(specWalk, 'utf8').replace(from, to));
  await assert.rejects(loadEnvModule(variant('spec-actions.ts', "actions: 'discrete'", "actions: 'continuous'"), {}),
    /spec-actions\.ts: spec\.actions says 'continuous', but actionSpace is discrete/);
  await assert.rejects(loadEnvModule(variant('spec-count.ts', "observations: ['position']", "observations: ['position', 'speed']"), {}),
    /spec-count\.ts: spec\.observations names 2 numbers, but observationSpace has 1/);
  await assert.rejects(loadEnvModule(variant('spec-key.ts', "info: ['success', 'left']", "infos: ['left']"), {}),
    /spec-key\.ts: spec has no key 'infos'; its keys are observations, actions, info/);
  await assert.rejects(loadEnvModule(variant('spec-info.ts', "info: ['success', 'left']", "info: ['success', 'lfet']"), {}),
    /spec-info\.ts: step\(\) returned an info without 'lfet', which spec\.info declares; report it on every step/);
  await assert.rejects(loadEnvModule(variant('spec-value.ts', 'left: this.length - this.position', "left: 'far'"), {}),
    /spec-value\.ts: step\(\)'s info\.left must be a number or true\/false; got "far"/);
});

test('rlx train and rlx eval on a module that declares its names: info terms train, success feeds train.success and eval.success', () => {
  const rlx = (args: string[]) => spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), ...args], { cwd: work, encoding: 'utf8' });
  const spec = (reward: string) => `env Walk = module("./spec-walk.ts") { length: 2, max_steps: 20 }
policy P = mlp { hidden: [8] }
algorithm A = PPO { rollout_steps: 64 }
reward Near { term near = ${reward} }
experiment Go {
  env: Walk
  policy: P
  algorithm: A
  reward: Near
  budget: 1k
  seeds: [1]
  eval { every: 512, episodes: 4 }
  device: cpu
}
`;
  write('walk.rlx', spec('-0.1 * info.left + if(success, 1, 0)'));
  const trained = rlx(['train', 'walk.rlx', '--out', 'walk-runs']);
  assert.equal(trained.status, 0, trained.stderr);
  const runDir = path.join(work, 'walk-runs', 'Go', fs.readdirSync(path.join(work, 'walk-runs', 'Go'))[0]);
  const { metrics } = JSON.parse(fs.readFileSync(path.join(runDir, 'status.json'), 'utf8'));
  assert.equal(typeof metrics['train/success'], 'number', 'train.success from info.success');
  assert.equal(typeof metrics['eval/success'], 'number', 'eval.success from info.success');
  assert.equal(typeof metrics['rewards/near'], 'number');

  // rlx eval runs the module the run keeps (its source file may have changed since).
  const evaluated = rlx(['eval', runDir, '--episodes', '3', '--json']);
  assert.equal(evaluated.status, 0, evaluated.stderr);
  const result = JSON.parse(evaluated.stdout);
  assert.equal(result.returns.length, 3);
  assert.equal(typeof result['eval/success'], 'number');

  // Misspelt names: the checker says so at the name; a plan that skips the checker gets a clean refusal, not an internal error.
  write('walk-typo.rlx', spec('-0.1 * info.lfet'));
  const checked = rlx(['check', 'walk-typo.rlx']);
  assert.equal(checked.status, 1);
  assert.match(checked.stderr + checked.stdout, /walk-typo\.rlx:4:39: error unknown-field: Walk \(module\("\.\/spec-walk\.ts"\)\) reports no info value 'lfet'; it reports: success, left; did you mean 'left'\?/);
  const plan = JSON.parse(rlx(['plan', 'walk.rlx']).stdout);
  for (const [name, expr, message] of [
    ['lfet', { ref: 'info.lfet' }, /^rlx train: reward Near: env spec-walk reports no info value "lfet" \(info\.lfet\); it reports success, left\n$/],
    ['positon', { ref: 'obs.positon' }, /^rlx train: reward Near, term near: spec-walk has no observation field "positon" \(in obs\.positon\); its fields are position\n$/],
  ] as const) {
    plan.reward.terms[0].expr = expr;
    fs.writeFileSync(path.join(work, `plan-${name}.json`), JSON.stringify(plan));
    const refused = rlx(['train', '--plan', `plan-${name}.json`, '--out', 'walk-runs']);
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(refused.stderr.split('\n').slice(-2).join('\n'), message);
  }
});

test('a module, or a file it imports, that is a FIFO, a device or huge is refused at once, naming it', { timeout: 60_000 }, async () => {
  const dir = path.join(work, 'hostile-modules');
  makeFifo(path.join(dir, 'pipe.ts'));
  makeLink(path.join(dir, 'zero.ts'), '/dev/zero');
  makeHuge(path.join(dir, 'huge.js'), 65 * 2 ** 20);
  const refusals: [string, RegExp][] = [
    [path.join(dir, 'pipe.ts'), /^the env module source .*pipe\.ts is not a regular file \(a device, pipe or socket\)/],
    [path.join(dir, 'zero.ts'), /^the env module source .*zero\.ts is not a regular file/],
    [path.join(dir, 'huge.js'), /^the env module source .*huge\.js is 65\.0 MiB, more than the 64\.0 MiB rlx reads for it/],
  ];
  for (const [file, message] of refusals) {
    await assert.rejects(loadEnvModule(file, {}), (e: Error) => e.name === 'EnvModuleError' && message.test(e.message), file);
  }
  // The module is a plain file, but esbuild would read a FIFO it imports: each file of the bundle is checked, the error at the import.
  for (const imported of ['pipe', 'zero']) {
    const entry = write(`imports-${imported}.ts`, `import { x } from './hostile-modules/${imported}.js';\nexport default class { constructor() { console.log(x); } }\n`);
    await assert.rejects(loadEnvModule(entry, {}), (e: Error) => e.name === 'EnvModuleError' && new RegExp(`^cannot compile the env module .*imports-${imported}\\.ts: .*imports-${imported}\\.ts:1:\\d+: the env module source .*(${imported}\\.ts|/dev/zero) is not a regular file`).test(e.message), imported);
  }
});

test("a run's bundled module (resume, eval) is read only as a regular file inside the run", { timeout: 60_000 }, async () => {
  const run = path.join(work, 'hostile-run');
  const plan = { env: { name: 'Walk', kind: 'module', params: {} } } as unknown as Plan;
  makeFifo(path.join(run, 'source', 'env-module.mjs'));
  await assert.rejects(loadRunModule(run, plan), (e: Error) => e.name === 'EnvModuleError' && /bundled env module .*env-module\.mjs is not a regular file/.test(e.message));
  fs.rmSync(path.join(run, 'source', 'env-module.mjs'));
  makeLink(path.join(run, 'source', 'env-module.mjs'), corridor);
  await assert.rejects(loadRunModule(run, plan), (e: Error) => e.name === 'EnvModuleError' && /bundled env module .*env-module\.mjs is a symbolic link out of the run folder/.test(e.message));
});
