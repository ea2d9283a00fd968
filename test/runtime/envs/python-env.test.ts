// The Gymnasium bridge (runtime/envs/python/): gymnasium("CartPole-v1") in Python worker
// processes replays the recorded Gymnasium trajectories and matches rlx's own CartPole; copies
// spread over several processes step together; and every fault ends in a clear error, never a
// hang, with no worker process left behind.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import { makeEnv } from '../../../runtime/envs/registry.js';
import { PythonEnvError, PythonEnvs, type PythonEnvOptions } from '../../../runtime/envs/python/python-env.js';
import { VecEnv } from '../../../runtime/envs/vector.js';
import { testPython } from '../../helpers/python.js';
import { gymnasiumFixturesDir, repoRoot } from '../../helpers/repo.js';

const python = testPython();
const skip = python === null ? 'python3 with numpy is not available' : false;

function options(over: Partial<PythonEnvOptions> = {}): PythonEnvOptions {
  return {
    name: 'Cart', id: 'CartPole-v1', kwargs: {}, imports: [], maxSteps: 500, timeoutSeconds: 20, copiesPerProcess: 4,
    python: python!.python, processEnv: python!.env, ...over,
  };
}

function fault(fault: string, over: Partial<PythonEnvOptions> = {}): PythonEnvOptions {
  return options({ name: 'Broken', id: 'RlxFault-v0', imports: ['rlx_test_envs'], kwargs: { fault, at: 3 }, maxSteps: 100, ...over });
}

function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

/** Steps copy 0 until it throws; the error. */
function stepUntilError(envs: PythonEnvs): Error {
  const copy = envs.create();
  copy.reset(0);
  for (let t = 0; t < 10; t++) {
    try {
      copy.step(0);
    } catch (err) {
      return err as Error;
    }
  }
  assert.fail('no error in 10 steps');
}

interface Episode { seed: number; reset_obs: number[]; reset_state: number[]; actions: number[]; steps: { obs: number[]; reward: number; terminated: boolean; truncated: boolean }[] }

describe('gymnasium("CartPole-v1") in a Python worker', { skip }, () => {
  const fixture = JSON.parse(fs.readFileSync(path.join(gymnasiumFixturesDir(), 'CartPole-v1.json'), 'utf8')) as { episodes: Episode[] };

  it('replays the recorded Gymnasium trajectories, and rlx\'s own CartPole gives the same ones', () => {
    const envs = new PythonEnvs(options());
    try {
      const copy = envs.create();
      assert.deepEqual(copy.observationSpace.kind, 'box');
      assert.deepEqual(copy.actionSpace, { kind: 'discrete', n: 2 });
      for (const episode of fixture.episodes) {
        const own = makeEnv('CartPole', {});
        own.setState(episode.reset_state);
        const reset = copy.reset(episode.seed);
        assert.deepEqual(Array.from(Float32Array.from(reset.obs)), Array.from(Float32Array.from(episode.reset_obs)), `seed ${episode.seed}: reset`);
        episode.steps.forEach((expected, t) => {
          const got = copy.step(episode.actions[t]!);
          const mine = own.step(episode.actions[t]!);
          const where = `seed ${episode.seed}, t=${t}`;
          assert.deepEqual(got.obs, Array.from(Float32Array.from(expected.obs)), `${where}: obs`);
          assert.deepEqual(Array.from(Float32Array.from(mine.obs)), got.obs, `${where}: rlx's CartPole`);
          assert.equal(got.reward, expected.reward, `${where}: reward`);
          assert.equal(got.terminated, expected.terminated, `${where}: terminated`);
          assert.equal(got.truncated, expected.truncated, `${where}: truncated`);
          assert.equal(mine.terminated, got.terminated, `${where}: rlx's terminated`);
        });
      }
    } finally {
      envs.close();
    }
  });

  it('max_steps ends episodes there (truncated), also for an id registered without a limit', () => {
    // The worker once read `max_steps` from a config that named it `maxSteps`: the setting was
    // silently ignored, and an id with no limit of its own never truncated.
    const envs = new PythonEnvs(options({ name: 'Short', id: 'RlxFault-v0', imports: ['rlx_test_envs'], maxSteps: 5 }));
    try {
      const copy = envs.create();
      copy.reset(0);
      const flags = Array.from({ length: 5 }, () => copy.step(0).truncated);
      assert.deepEqual(flags, [false, false, false, false, true]);
      assert.equal(copy.maxSteps, 5);
    } finally {
      envs.close();
    }
  });

  it("an episode's return is the env's info[\"episode\"][\"r\"] where it reports one, not the sum of rewards a NormalizeReward rescaled (issue 43 item 21)", () => {
    const envs = new PythonEnvs(options({ name: 'Scaled', id: 'RlxNormalized-v0', imports: ['rlx_test_envs'], maxSteps: 0, copiesPerProcess: 2 }));
    try {
      // Three copies over two workers step together (stepAll); a lone copy steps on its own (stepOne).
      const vec = VecEnv.create(() => envs.create(), 3);
      vec.reset(1);
      const actions = vec.createActionBuffer();
      let rewards = 0;
      for (let t = 0; t < 25; t++) {
        vec.step(actions);
        rewards += vec.rewards[0]!;
      }
      assert.ok(Math.abs(rewards / 25 - 1) > 0.01, `the rewards are rescaled (mean ${rewards / 25})`);
      const episodes = vec.takeFinishedEpisodes();
      assert.deepEqual(episodes.map((e) => [e.return, e.length]), Array.from({ length: 6 }, () => [10, 10]));
      const lone = envs.create();
      lone.reset(2);
      for (let t = 0; t < 9; t++) assert.equal(lone.step(0).terminated, false);
      assert.equal(lone.step(0).terminated, true);
      assert.equal(lone.episodeReturn, 10);
    } finally {
      envs.close();
    }
  });

  it('steps copies spread over several processes together, with same-step autoreset, and close() ends every worker', async () => {
    const envs = new PythonEnvs(options({ copiesPerProcess: 3 }));
    const vec = VecEnv.create(() => envs.create(), 7);
    const pids = envs.pids;
    assert.equal(pids.length, 3, '7 copies at 3 a process');
    vec.reset(1);
    const actions = vec.createActionBuffer();
    let finished = 0;
    for (let t = 0; t < 300; t++) {
      for (let i = 0; i < 7; i++) actions[i] = (t + i) % 2;
      vec.step(actions);
      for (let i = 0; i < 7; i++) {
        if (vec.terminated[i] === 1) {
          // The new episode's first observation is within Gymnasium's reset range, the final one beside it.
          assert.ok(Math.abs(vec.obs[i * 4]!) <= 0.05, 'reset observation after autoreset');
          assert.equal(vec.hasFinalObs[i], 1);
        }
      }
      finished += vec.takeFinishedEpisodes().length;
    }
    assert.ok(finished > 7, `episodes ended: ${finished}`);
    envs.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const pid of pids) assert.equal(alive(pid), false, `worker ${pid} still runs`);
  });
});

/** The major version of NumPy in the test Python (0 when there is none). */
function numpyMajor(): number {
  if (python === null) return 0;
  const said = spawnSync(python.python, ['-c', 'import numpy; print(numpy.__version__)'], { env: python.env, encoding: 'utf8' });
  return Number(said.stdout.split('.')[0]);
}

// The other reference fixtures (test/fixtures/gymnasium/) through the bridge. rlx's own
// Acrobot, MountainCar and Pendulum replay the same fixtures in gymnasium-fixtures.test.ts, so
// bridge = fixture here and fixture = built-in there give bridge = built-in on the same seeds
// and actions. (There is no MountainCarContinuous-v0 fixture and no built-in env for it:
// MountainCar-v0, the discrete one, stands for it.)
//
// Equality: the worker sends the env's numbers as float64; observations are float32 values (the
// spaces are float32) and so arrive exactly, as do rewards and flags. Under NumPy 1.x (the
// recording's, and Debian's python3-numpy) every observation, reward and flag equals the
// fixture exactly. Under NumPy 2 the same holds for Acrobot and MountainCar, but not for
// Pendulum: the bridge hands step() a float32 action (the action space's dtype, as SB3 and
// CleanRL do), and NumPy 2's promotion rules (NEP 50) then compute Pendulum's torque term
// `3 / (m l^2) * u` and its cost `0.001 u^2` in float32 instead of float64. The reward is then
// off from the first step (~1e-11), each step's angular velocity by ~1e-9 relative, and over 200
// steps observations drift apart by up to ~4e-5 (measured). So under NumPy 2 Pendulum's reset
// observations are compared exactly and its steps within 1e-4 (flags exactly).
const REPLAYED = [
  { id: 'Acrobot-v1', imports: ['rlx_numpy2_compat'], continuous: false },
  { id: 'MountainCar-v0', imports: [], continuous: false },
  { id: 'Pendulum-v1', imports: [], continuous: true },
] as const;

describe('gymnasium("Acrobot-v1"), ("MountainCar-v0") and ("Pendulum-v1") in a Python worker', { skip }, () => {
  const numpy2 = numpyMajor() >= 2;
  for (const { id, imports, continuous } of REPLAYED) {
    it(`${id} replays the recorded Gymnasium trajectories (the seeds' reset observations, then the actions)`, () => {
      const fixture = JSON.parse(fs.readFileSync(path.join(gymnasiumFixturesDir(), `${id}.json`), 'utf8')) as { episodes: Episode[] };
      const envs = new PythonEnvs(options({ name: 'Env', id, imports: [...imports], maxSteps: 0 }));
      const drifts = numpy2 && continuous;
      try {
        const copy = envs.create();
        assert.equal(copy.actionSpace.kind, continuous ? 'box' : 'discrete');
        for (const episode of fixture.episodes) {
          const reset = copy.reset(episode.seed);
          assert.deepEqual(reset.obs, Array.from(Float32Array.from(episode.reset_obs)), `seed ${episode.seed}: reset`);
          episode.steps.forEach((expected, t) => {
            const got = copy.step(episode.actions[t]!);
            const where = `seed ${episode.seed}, t=${t}`;
            if (drifts) {
              got.obs.forEach((value, k) => assert.ok(Math.abs(value - expected.obs[k]!) <= 1e-4, `${where}: obs ${k} ${value} against ${expected.obs[k]}`));
              assert.ok(Math.abs(got.reward - expected.reward) <= 1e-4 * Math.max(1, Math.abs(expected.reward)), `${where}: reward ${got.reward} against ${expected.reward}`);
            } else {
              assert.deepEqual(got.obs, Array.from(Float32Array.from(expected.obs)), `${where}: obs`);
              assert.equal(got.reward, expected.reward, `${where}: reward`);
            }
            assert.equal(got.terminated, expected.terminated, `${where}: terminated`);
            assert.equal(got.truncated, expected.truncated, `${where}: truncated`);
          });
        }
      } finally {
        envs.close();
      }
    });
  }
});

describe('faults of Python envs', { skip }, () => {
  it('no Python: names the interpreter and the settings that choose one', () => {
    assert.throws(() => new PythonEnvs(options({ python: '/nonexistent/python3' })), (err: Error) =>
      err instanceof PythonEnvError && /cannot start Python '\/nonexistent\/python3'/.test(err.message) && /RLX_PYTHON/.test(err.message));
  });

  it('gymnasium not importable: the traceback\'s last lines and what to install', () => {
    const env = { ...python!.env, PYTHONPATH: path.join(repoRoot(), 'test/fixtures/python-empty') };
    assert.throws(() => new PythonEnvs(options({ processEnv: env })), (err: Error) =>
      err instanceof PythonEnvError && /No module named 'gymnasium'/.test(err.message) && /pip install gymnasium/.test(err.message));
  });

  it('an unknown env id: Gymnasium\'s own words, and where to register it', () => {
    assert.throws(() => new PythonEnvs(options({ id: 'CartPoel-v1' }))
      , (err: Error) => err instanceof PythonEnvError && /env Cart \(gymnasium "CartPoel-v1"\)/.test(err.message) && /CartPoel/.test(err.message.split('\n').slice(1).join('\n')) && /imports: \["my_package"\]/.test(err.message));
  });

  it('a space rlx does not take is named', () => {
    assert.throws(() => new PythonEnvs(options({ id: 'RlxText-v0', imports: ['rlx_test_envs'] })), (err: Error) =>
      err instanceof PythonEnvError && /observation space is Text/.test(err.message));
  });

  it('a worker that dies: the run fails naming the copy and the process', () => {
    const envs = new PythonEnvs(fault('die'));
    const err = stepUntilError(envs);
    envs.close();
    assert.ok(err instanceof PythonEnvError, String(err));
    assert.match(err.message, /env Broken \(gymnasium "RlxFault-v0"\) worker 0: the Python worker \(pid \d+\) died while stepping copy 0/);
  });

  it('an exception in step(): its traceback', () => {
    const envs = new PythonEnvs(fault('raise'));
    const err = stepUntilError(envs);
    envs.close();
    assert.match(err.message, /died while stepping copy 0.*\n[\s\S]*RuntimeError: the simulator broke at step 3/);
  });

  it('an observation of the wrong shape fails the step, naming the shapes', () => {
    const envs = new PythonEnvs(fault('shape'));
    const err = stepUntilError(envs);
    envs.close();
    assert.match(err.message, /died while stepping copy 0[\s\S]*step\(\) returned an observation of shape \(3,\); the observation space has 2 numbers/);
  });

  it('NaN and infinite observations and rewards fail the step that returned them', () => {
    for (const [kind, what] of [['nan', /observation element 1 is NaN/], ['nan_reward', /the reward is NaN/], ['inf', /observation element 0 is Infinity/], ['inf_reward', /the reward is -Infinity/]] as const) {
      const envs = new PythonEnvs(fault(kind));
      const err = stepUntilError(envs);
      envs.close();
      assert.ok(err instanceof PythonEnvError);
      assert.match(err.message, /copy 0, step 3 of its episode/);
      assert.match(err.message, what);
    }
  });

  it('step() results of the wrong type fail the step, saying which value and what it should be', () => {
    const cases: [string, RegExp][] = [
      ['str_reward', /step\(\) returned the reward 'high' \(str\); a reward is one number/],
      ['array_reward', /step\(\) returned the reward array\(\[1\. *, 0\.5\]\) \(ndarray\); a reward is one number/],
      ['object_obs', /step\(\) returned an observation whose element 0 is 'left' \(str\); the observation space holds numbers/],
      // Without max_steps no TimeLimit wrapper unpacks the 4 values first (with it, Gymnasium says "expected 5, got 4").
      ['four_values', /step\(\) returned 4 values; Gymnasium's step\(\) returns 5: \(observation, reward, terminated, truncated, info\) \(the old Gym API/],
      ['reject', /ValueError: action 0 is not one this env takes/],
    ];
    for (const [kind, what] of cases) {
      const envs = new PythonEnvs(fault(kind, { maxSteps: 0 }));
      const err = stepUntilError(envs);
      envs.close();
      assert.ok(err instanceof PythonEnvError, `${kind}: ${String(err)}`);
      assert.match(err.message, /^env Broken \(gymnasium "RlxFault-v0"\) worker 0: the Python worker \(pid \d+\) died while stepping copy 0\n/, kind);
      assert.match(err.message, what, kind);
    }
  });

  it('a reset() that returns the observation alone (the old Gym API) fails, saying what Gymnasium\'s returns', () => {
    const envs = new PythonEnvs(fault('old_reset'));
    try {
      assert.throws(() => envs.create().reset(0), (err: Error) => err instanceof PythonEnvError
        && /died while resetting copy 0\n/.test(err.message)
        && /reset\(\) returned array\(\[0\., 0\.\], dtype=float32\); Gymnasium's reset\(\) returns 2 values: \(observation, info\)/.test(err.message));
    } finally {
      envs.close();
    }
  });

  it('an import error in a package of `imports`: the file and line, and the error', () => {
    assert.throws(() => new PythonEnvs(options({ imports: ['rlx_broken_import'] })), (err: Error) =>
      err instanceof PythonEnvError && /Python could not make the env/.test(err.message)
      && /rlx_broken_import\.py", line 5, in <module>/.test(err.message) && /NameError: name 'undefined_constant' is not defined/.test(err.message));
  });

  it('a package of `imports` that is not installed: its name, and where to look', () => {
    assert.throws(() => new PythonEnvs(options({ imports: ['rlx_no_such_package'] })), (err: Error) =>
      err instanceof PythonEnvError && /No module named 'rlx_no_such_package'/.test(err.message) && /check the names in `imports: \[\.\.\.\]`/.test(err.message));
  });

  it('a step that hangs past env_timeout fails within it, and the worker is killed', async () => {
    const envs = new PythonEnvs(fault('hang', { timeoutSeconds: 1 }));
    const [pid] = envs.pids;
    const started = Date.now();
    const err = stepUntilError(envs);
    assert.ok(Date.now() - started < 5000);
    assert.match(err.message, /while stepping copy 0 did not return within 1 s \(env_timeout\)/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(alive(pid!), false);
  });

  it('a trainer killed mid-run (Ctrl-C, kill -9) leaves no worker behind', async () => {
    const module = path.join(repoRoot(), 'out/runtime/envs/python/python-env.js');
    const script = `import { PythonEnvs } from ${JSON.stringify(module)};
      const envs = new PythonEnvs(${JSON.stringify(fault('hang'))});
      envs.create(); envs.create();
      console.log(JSON.stringify(envs.pids));
      setInterval(() => {}, 1000);`;
    // The trainer gets a temporary folder of its own: other processes (tests run in parallel)
    // make and remove pipe folders in the shared one meanwhile.
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-killed-trainer-'));
    for (const signal of ['SIGINT', 'SIGKILL'] as const) {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TMPDIR: tmp } });
      const line = await new Promise<string>((resolve) => child.stdout.once('data', (data: Buffer) => resolve(data.toString())));
      const pids = JSON.parse(line) as number[];
      assert.ok(pids.every(alive));
      child.kill(signal);
      await new Promise((resolve) => child.once('exit', resolve));
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const pid of pids) assert.equal(alive(pid), false, `${signal}: worker ${pid} outlived the trainer`);
      assert.deepEqual(fs.readdirSync(tmp), [], `${signal}: the workers' pipes were left in the temporary folder`);
    }
    fs.rmSync(tmp, { recursive: true });
  });
});
