// How the trainer waits for its Python workers (runtime/envs/python/python-worker.ts,
// watchdog.ts): asleep in a blocking read, with env_timeout kept by a watchdog thread, so that
// a slow env has the cores to itself, and the thread never keeps the trainer alive.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';

import { PythonEnvs, type PythonEnvOptions } from '../../../runtime/envs/python/python-env.js';
import { testPython } from '../../helpers/python.js';
import { repoRoot } from '../../helpers/repo.js';

const python = testPython();
const skip = python === null ? 'python3 with numpy is not available' : false;

function options(over: Partial<PythonEnvOptions> = {}): PythonEnvOptions {
  return {
    name: 'Broken', id: 'RlxFault-v0', imports: ['rlx_test_envs'], kwargs: { fault: 'hang', at: 2 }, maxSteps: 100, timeoutSeconds: 1, copiesPerProcess: 1,
    python: python!.python, processEnv: python!.env, ...over,
  };
}

describe('waiting for a Python worker', { skip }, () => {
  it('costs the trainer almost no CPU: a step that hangs until env_timeout (1 s) uses under 0.08 s of it', () => {
    const envs = new PythonEnvs(options());
    try {
      const copy = envs.create();
      copy.reset(0);
      copy.step(0);
      const before = process.cpuUsage();
      const started = Date.now();
      assert.throws(() => copy.step(0), /did not return within 1 s \(env_timeout\)/);
      const used = process.cpuUsage(before);
      assert.ok(Date.now() - started >= 1000, 'the timeout is not cut short');
      // Here: about 0.02 s; polling the pipe (before the watchdog) spent 0.19 s.
      assert.ok((used.user + used.system) / 1e6 < 0.08, `the trainer used ${((used.user + used.system) / 1e6).toFixed(3)} s of CPU while it waited`);
    } finally {
      envs.close();
    }
  });

  it('the watchdog thread does not keep a trainer alive once it is done with its envs', async () => {
    const module = path.join(repoRoot(), 'out/runtime/envs/python/python-env.js');
    const script = `import { PythonEnvs } from ${JSON.stringify(module)};
      const envs = new PythonEnvs(${JSON.stringify(options({ kwargs: { fault: 'none' } }))});
      const copy = envs.create();
      copy.reset(0);
      copy.step(1);
      envs.close();
      console.log('done');`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let printed = '';
    child.stdout.on('data', (data: Buffer) => (printed += data.toString()));
    const code = await new Promise<number | string>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('still running after 20 s');
      }, 20_000);
      child.once('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode ?? -1);
      });
    });
    assert.equal(code, 0);
    assert.equal(printed.trim(), 'done');
  });
});
