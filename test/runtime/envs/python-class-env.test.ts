// python("./envs/drift.py:Drift") at run time: the worker loads the class from its file (its own
// imports found beside it), makes it with the declaration's kwargs, wraps it as gymnasium.make
// wraps a registered env (TimeLimit for max_steps), and the copies carry the declared observation
// names; a file that fails to import names its file and line. A .rlx project compiles and trains,
// and its run finds the file again for rlx eval and a resume from any working folder.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { analyze, compile, Workspace } from '../../../dsl/index.js';
import { diskHost } from '../../../cli/files.js';
import type { PlanEnv } from '../../../dsl/compile/plan.js';
import { loadGymnasiumEnv } from '../../../runtime/envs/python/python-env-plan.js';
import { PythonEnvError } from '../../../runtime/envs/python/python-env.js';
import { VecEnv } from '../../../runtime/envs/vector.js';
import { resume, train } from '../../../runtime/train.js';
import { openRunEnvs } from '../../../runtime/envs/run-envs.js';
import { readEvents, type CurriculumEvent, type EpisodeEvent } from '../../../runtime/run/events.js';
import { curriculumProblems } from '../../../runtime/curriculum.js';
import type { Plan, PlanExpr } from '../../../dsl/compile/plan.js';
import { pythonWorkers, testPython, withTestPython } from '../../helpers/python.js';
import { repoRoot } from '../../helpers/repo.js';
import { makePlan, tempDir, ZOO_PPO } from '../helpers.js';

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

/**
 * A project folder with envs/drift.py (and the module it imports) and a main.rlx of `lines`, and the
 * plan of its experiment E, with the zoo's PPO settings and `algorithmParams` over its stages'.
 */
function driftProject(lines: readonly string[], algorithmParams: Record<string, unknown> = {}): { dir: string; plan: Plan } {
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, 'envs'));
  for (const name of ['drift.py', 'drift_physics.py']) fs.copyFileSync(path.join(fixtures(), 'user_envs', name), path.join(dir, 'envs', name));
  const entry = path.join(dir, 'main.rlx');
  fs.writeFileSync(entry, [...lines, ''].join('\n'));
  const compiled = compile(analyze(new Workspace(diskHost), [entry]), entry, 'E');
  assert.ok(compiled.ok, compiled.ok ? '' : compiled.error);
  const plan = [...compiled.plans][0]!;
  return { dir, plan: { ...plan, stages: plan.stages.map((s) => ({ ...s, algorithm: { ...s.algorithm, params: { ...s.algorithm.params, ...ZOO_PPO, ...algorithmParams } } })) } };
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

  it('copies asked for with other kwargs run in workers of their own; kwargs that change the spaces are refused, naming them', () => {
    const module = load(drift({ copies_per_process: 4 }));
    try {
      const first = module.create({}) as unknown as { worker: number; slot: number };
      const moved = module.create({ 'kwargs.target': 3 }) as unknown as { worker: number; slot: number };
      assert.deepEqual([first.worker, first.slot, moved.worker, moved.slot], [0, 0, 1, 0], 'a new worker for the new value, though the first has room');
      assert.throws(() => module.create({ 'kwargs.extra': 1 }), (err: Error) =>
        err instanceof PythonEnvError && /with kwargs \{"extra":1\} the env has 3 observation numbers .* not the 2 and 1 .* a curriculum may not change the observation or action size/.test(err.message));
    } finally {
      module.close();
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
    const { dir, plan } = driftProject([
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
    ]);
    assert.deepEqual(plan.env.params.file, 'envs/drift.py');
    await withTestPython(async () => {
      const result = await train(plan, { out: tempDir(), compute: { threads: false }, baseDir: dir });
      assert.equal(result.status, 'finished');
      assert.equal(result.step, 4096);
      assert.ok(Number.isFinite(result.metrics['train/mean_return']), 'episodes of 50 steps ended and were counted');
    });
  });

  it('a run of a python(...) env records where its file is: rlx eval from another folder and a resume find it; a moved file is named, with what to do', async () => {
    const { dir, plan } = driftProject([
      'env Mine = python("./envs/drift.py:Drift") { max_steps: 20, copies_per_process: 2 }',
      'policy P = mlp { }',
      'algorithm A = PPO { }',
      'experiment E { env: Mine, policy: P, algorithm: A, budget: 1024, envs: 2 }',
    ], { rollout_steps: 64 });
    await withTestPython(async () => {
      const controller = new AbortController();
      const stopped = await train(plan, { out: tempDir(), compute: { threads: false }, baseDir: dir, checkpointEvery: 256, signal: controller.signal, onProgress: (p) => p.step >= 512 && controller.abort() });
      assert.equal(stopped.status, 'stopped');
      const recorded = path.join(stopped.runDir, 'source', 'python-env.json');
      assert.deepEqual(JSON.parse(fs.readFileSync(recorded, 'utf8')), { file: path.join(dir, 'envs', 'drift.py') });
      // rlx eval from a folder that has no envs/drift.py (the plan names the file relative to main.rlx).
      const elsewhere = tempDir();
      const cli = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), 'eval', stopped.runDir, '--episodes', '2'], { cwd: elsewhere, encoding: 'utf8', env: process.env, timeout: 120_000 });
      assert.equal(cli.status, 0, cli.stderr);
      assert.match(cli.stdout, /^mean return .* over 2 episodes/);
      // A resume from this process's working folder (the repository's), which has no envs/drift.py either.
      assert.equal(fs.existsSync(path.resolve('envs', 'drift.py')), false);
      const resumed = await resume(stopped.runDir, { compute: { threads: false } });
      assert.equal(resumed.status, 'finished');
      assert.equal(resumed.step, 1024);
      // A new run of the run's plan (rlx train --plan RUN/plan.json: the run folder is where its paths start) finds it too, and records it again.
      const again = await train(plan, { out: tempDir(), compute: { threads: false }, baseDir: stopped.runDir });
      assert.equal(again.status, 'finished');
      assert.deepEqual(JSON.parse(fs.readFileSync(path.join(again.runDir, 'source', 'python-env.json'), 'utf8')), { file: path.join(dir, 'envs', 'drift.py') });
      // The file moved since: named, with where the run looked and how to point it elsewhere.
      fs.renameSync(path.join(dir, 'envs'), path.join(dir, 'moved'));
      await assert.rejects(openRunEnvs(stopped.runDir, plan, 1), (err: Error) =>
        err instanceof PythonEnvError && err.message.includes(`its Python file ${path.join(dir, 'envs', 'drift.py')} (where it was when the run trained) is not there any more`) &&
        err.message.includes(`write where it is now into ${recorded}`));
    });
  });

  it('relabel: on a Python env that is not a goal env is refused with what makes one, in Python\'s terms', async () => {
    const plan = makePlan({ env: 'gymnasium', envParams: drift().params, algorithm: 'DQN', algorithmParams: { relabel: 'final', learning_starts: 64 }, budget: 256, envs: 2 });
    await withTestPython(async () => {
      await assert.rejects(train(plan, { out: tempDir(), compute: { threads: false }, baseDir: fixtures() }), (err: Error) =>
        /^DQN relabels goals \(relabel: final\), but the env E is not goal-conditioned \(a Python env is a goal env when its observation is a Dict with achieved_goal and desired_goal and env\.unwrapped has compute_reward\(achieved_goal, desired_goal, info\) \(docs\/python-envs\.md#goal-envs-and-hindsight-relabeling\)\); set relabel: none$/.test(err.message));
    });
  });

  it('a curriculum over a keyword argument: each advance makes copies with the new value (episodes change), and the workers end with the run', async () => {
    const ALWAYS: PlanExpr = { op: '>=', args: [{ ref: 'steps' }, { const: 0 }] };
    // limit 0.5: the point starts at 1, beyond it, so every episode ends at its first step; at 5.5 they last.
    const plan: Plan = {
      ...makePlan({ env: 'gymnasium', envParams: drift({ max_steps: 20, kwargs: { limit: 0.5 } }).params, budget: 1024, envs: 2, algorithmParams: { rollout_steps: 64 } }),
      curriculum: { param: 'env.kwargs.limit', from: 0.5, to: 5.5, step: 5, advance: ALWAYS },
    };
    assert.deepEqual(curriculumProblems(plan, false), []);
    assert.deepEqual(curriculumProblems({ ...plan, curriculum: { ...plan.curriculum!, param: 'env.max_steps' } }, false),
      ['a curriculum over env E, a Python env, moves one of its keyword arguments: param: env.kwargs.NAME, got env.max_steps']);
    await withTestPython(async () => {
      const result = await train(plan, { out: tempDir(), compute: { threads: false }, baseDir: fixtures() });
      assert.equal(result.status, 'finished');
      const events = readEvents(path.join(result.runDir, 'events.jsonl'));
      const advances = events.filter((e): e is CurriculumEvent & { time: number } => e.type === 'curriculum');
      assert.deepEqual(advances.map((e) => [e.param, e.previous, e.value]), [['env.kwargs.limit', 0.5, 5.5]]);
      const episodes = events.filter((e): e is EpisodeEvent & { time: number } => e.type === 'episode');
      const before = episodes.filter((e) => e.step <= advances[0]!.step);
      // Each copy hands over at the end of its episode in flight; by the run's end every episode is at the new value.
      const after = episodes.slice(-20);
      assert.ok(before.length > 0 && before.every((e) => e.length === 1), `at limit 0.5 episodes end at once: ${before.map((e) => e.length).join(',')}`);
      assert.ok(after.length > 0 && after.every((e) => e.length > 1), `at limit 5.5 they last: ${after.map((e) => e.length).join(',')}`);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(pythonWorkers(), [], 'workers still running after the run');
  });
});
