// python("./envs/drift.py:Drift") at run time: the worker loads the class from its file (its own
// imports found beside it), makes it with the declaration's kwargs, wraps it as gymnasium.make
// wraps a registered env (TimeLimit for max_steps), and the copies carry the declared observation
// names; a file that fails to import names its file and line. A .rlx project compiles and trains.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { analyze, compile, Workspace } from '../../../dsl/index.js';
import { diskHost } from '../../../cli/files.js';
import type { PlanEnv } from '../../../dsl/compile/plan.js';
import { loadGymnasiumEnv } from '../../../runtime/envs/python/python-env-plan.js';
import { PythonEnvError } from '../../../runtime/envs/python/python-env.js';
import { VecEnv } from '../../../runtime/envs/vector.js';
import { train } from '../../../runtime/train.js';
import { testPython } from '../../helpers/python.js';
import { repoRoot } from '../../helpers/repo.js';
import { tempDir, ZOO_PPO } from '../helpers.js';

const python = testPython();
const skip = python === null ? 'python3 with numpy is not available' : false;
const fixtures = (): string => path.join(repoRoot(), 'test/fixtures/python');
const SETTINGS = { imports: [], python: '', env_timeout: 20, copies_per_process: 2, observations: [] };

function drift(params: Record<string, unknown> = {}, name = 'Mine'): PlanEnv {
  return { name, kind: 'gymnasium', params: { file: 'user_envs/drift.py', class: 'Drift', ...SETTINGS, ...params } as PlanEnv['params'] };
}

function load(env: PlanEnv) {
  return loadGymnasiumEnv(env, { ...python!.env, RLX_PYTHON: python!.python }, { baseDir: fixtures() });
}

describe('python("./file.py:Class") envs', { skip }, () => {
  it('makes the class with the kwargs, steps it through the vector env, and names its observations as declared', () => {
    const module = load(drift({ kwargs: { target: 2, start: 2 }, observations: ['position', 'velocity'] }));
    try {
      const vec = VecEnv.create(() => module.create({}), 3);
      assert.deepEqual(vec.obsFields, ['position', 'velocity']);
      vec.reset(5);
      for (let i = 0; i < 3; i++) assert.ok(Math.abs(vec.obs[i * 2]! - 2) <= 0.05, `copy ${i} starts at start: 2 (${vec.obs[i * 2]})`);
      const actions = vec.createActionBuffer();
      actions.fill(1); // no push: the point stays near the target
      vec.step(actions);
      for (let i = 0; i < 3; i++) assert.ok(vec.rewards[i]! > -0.1, `copy ${i}: reward ${vec.rewards[i]} near target 2`);
    } finally {
      module.close();
    }
  });

  it('without kwargs the class\'s defaults hold, and without declared names the observations are x0, x1', () => {
    const module = load(drift());
    try {
      const copy = module.create({});
      assert.deepEqual(copy.obsFields, ['x0', 'x1']);
      copy.reset(1);
      assert.ok(copy.step(1).reward < -0.9, 'start 1, target 0: about -1');
    } finally {
      module.close();
    }
  });

  it('max_steps truncates episodes (TimeLimit, as gymnasium.make adds it), for a class and for a registered id', () => {
    for (const env of [drift({ max_steps: 7 }), { name: 'Cart', kind: 'gymnasium', params: { id: 'CartPole-v1', max_steps: 10, ...SETTINGS } } as PlanEnv]) {
      const module = load(env);
      try {
        const copy = module.create({});
        copy.reset(3);
        const limit = env.params.max_steps as number;
        for (let t = 1; t <= limit; t++) {
          const step = copy.step(t % 2);
          assert.equal(step.terminated, false, `${env.name} t=${t}`);
          assert.equal(step.truncated, t === limit, `${env.name} t=${t}: truncated only at ${limit}`);
        }
        assert.equal(copy.maxSteps, limit);
      } finally {
        module.close();
      }
    }
  });

  it('declared observation names of another number than the env has: an error naming both counts', () => {
    assert.throws(() => load(drift({ observations: ['a', 'b', 'c'] })), (err: Error) =>
      err instanceof PythonEnvError && /names 3 observations \(observations: \[a, b, c\]\), but the env's observation space has 2 numbers/.test(err.message));
  });

  it('a file that fails to import: the error names the file, the line and the missing module', () => {
    assert.throws(() => load(drift({ file: 'user_envs/broken_import.py', class: 'Broken' })), (err: Error) =>
      err instanceof PythonEnvError && /broken_import\.py", line 4/.test(err.message) && /No module named 'rlx_no_such_module'/.test(err.message));
  });

  it('a class the file does not define, and a file that is not there: named, with what the file has', () => {
    assert.throws(() => load(drift({ class: 'Drfit' })), (err: Error) =>
      err instanceof PythonEnvError && /drift\.py defines no class Drfit \(its classes: Drift\)/.test(err.message) && /python class Drfit in .*drift\.py/.test(err.message));
    assert.throws(() => load(drift({ file: 'user_envs/gone.py' })), (err: Error) =>
      err instanceof PythonEnvError && /gone\.py is not a file/.test(err.message));
  });

  it('a .rlx project with python("./envs/drift.py:Drift") compiles and PPO trains on it', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'envs'));
    for (const name of ['drift.py', 'drift_physics.py']) fs.copyFileSync(path.join(fixtures(), 'user_envs', name), path.join(dir, 'envs', name));
    const entry = path.join(dir, 'main.rlx');
    fs.writeFileSync(entry, [
      'env Mine = python("./envs/drift.py:Drift") {',
      '  kwargs { target: 0.5, friction: 0.2 }',
      '  observations: ["position", "velocity"]',
      '  max_steps: 50',
      '  copies_per_process: 2',
      '}',
      'reward Shaped { term still = -0.1 * abs(obs.velocity) }',
      'policy P = mlp { }',
      'algorithm A = PPO { }',
      'experiment E { env: Mine, policy: P, algorithm: A, budget: 4096, reward: Shaped, envs: 4 }',
      '',
    ].join('\n'));
    const compiled = compile(analyze(new Workspace(diskHost), [entry]), entry, 'E');
    assert.ok(compiled.ok, compiled.ok ? '' : compiled.error);
    const plan = { ...[...compiled.plans][0]!, stages: [...compiled.plans][0]!.stages.map((s) => ({ ...s, algorithm: { ...s.algorithm, params: { ...s.algorithm.params, ...ZOO_PPO } } })) };
    assert.deepEqual(plan.env.params.file, 'envs/drift.py');
    const previous = { PYTHONPATH: process.env.PYTHONPATH, RLX_PYTHON: process.env.RLX_PYTHON };
    process.env.PYTHONPATH = python!.env.PYTHONPATH;
    process.env.RLX_PYTHON = python!.python;
    try {
      const result = await train(plan, { out: tempDir(), compute: { threads: false }, baseDir: dir });
      assert.equal(result.status, 'finished');
      assert.equal(result.step, 4096);
      assert.ok(Number.isFinite(result.metrics['train/mean_return']), 'episodes of 50 steps ended and were counted');
    } finally {
      for (const [key, value] of Object.entries(previous)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});
