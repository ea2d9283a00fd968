// User environments: `env X = module("./file.ts")` loads TypeScript or JavaScript, trains like a
// built-in, and a module that does not fulfil the interface is refused with what is missing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { loadEnvModule } from '../../../runtime/envs/user-module.js';
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
