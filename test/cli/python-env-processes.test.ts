// What a Python env does to the processes and descriptors around it (issue 43, items 16-17), as
// a user of `rlx check` and `rlx train` meets it: processes the env starts end with its worker
// (the probe's and the training run's), and an env that writes into the descriptors it finds
// open, or onto stdout, cannot corrupt the worker's answers.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { testPython, useTestPythonInSuite } from '../helpers/python.js';
import { scratch } from './scratch.js';

const python = testPython();
const skip = python === null ? 'python3 with numpy is not available' : false;

const { work, rlx, write } = scratch('rlx-python-processes-');

/** A small env over gymnasium's Env; `extra` goes into __init__ and `stepExtra` into step(). */
const envFile = (init: string, stepExtra = '') => `import os, subprocess, sys
import numpy as np
import gymnasium
from gymnasium import spaces

class Env(gymnasium.Env):
    def __init__(self):
        self.observation_space = spaces.Box(-1.0, 1.0, (2,), np.float64)
        self.action_space = spaces.Discrete(2)
        self.t = 0
${init.split('\n').map((l) => `        ${l}`).join('\n')}

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.array([0.25, -0.5]), {}

    def step(self, action):
        self.t += 1
${stepExtra.split('\n').map((l) => `        ${l}`).join('\n')}
        return np.array([0.25, -0.5]), 1.0, self.t >= 20, False, {}
`;

const spec = (file: string) => `env Py = python("./${file}:Env") { max_steps: 20 }
policy Actor = mlp { hidden: [8] }
algorithm Short = PPO { rollout_steps: 64 }
experiment Run { env: Py, policy: Actor, algorithm: Short, budget: 256, device: cpu, seed: 1 }
`;

/** Whether a process runs (a zombie, ended but not reaped, does not). */
function running(pid: number): boolean {
  try {
    return !/\) [ZX] /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The pids the env's children wrote into `file`, one a line. */
const pidsIn = (file: string) => fs.readFileSync(path.join(work, file), 'utf8').trim().split('\n').map(Number);

describe('Python env processes and descriptors', { skip }, () => {
  useTestPythonInSuite();
  const started: number[] = [];
  after(() => {
    for (const pid of started) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // ended, as it should have
      }
    }
  });

  test("processes an env starts end with rlx check's probe and with the training run (item 16)", () => {
    // Each copy of the env starts a long `sleep` and records its pid.
    const pids = path.join(work, 'spawned.txt');
    write('spawner.py', envFile(`child = subprocess.Popen(['sleep', '300'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\nwith open(${JSON.stringify(pids)}, 'a') as f:\n    f.write(f'{child.pid}\\n')`));
    write('spawner.rlx', spec('spawner.py'));

    const checked = rlx('check', 'spawner.rlx');
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    const probed = pidsIn('spawned.txt');
    started.push(...probed);
    assert.ok(probed.length >= 1, 'the probe made the env');
    assert.deepEqual(probed.filter(running), [], 'no process the probe\'s env started is left');

    fs.rmSync(pids);
    const trained = rlx('train', 'spawner.rlx', '--out', 'runs');
    assert.equal(trained.code, 0, trained.stderr);
    const training = pidsIn('spawned.txt');
    started.push(...training);
    assert.ok(training.length >= 1, 'training made the env');
    assert.deepEqual(training.filter(running), [], 'no process the training run\'s env started is left');
  });

  test('an env writing into the descriptors it finds open and onto stdout corrupts no answer (item 17)', () => {
    // Into every low descriptor it can write to, as an env that takes them for its own log files would, at every step.
    const scribble = `for fd in range(1, 32):\n    try:\n        os.write(fd, b'\\xff' * 24)\n    except OSError:\n        pass\nprint('hello from the env')`;
    write('scribbler.py', envFile(scribble, scribble));
    write('scribbler.rlx', spec('scribbler.py'));
    const checked = rlx('check', 'scribbler.rlx');
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    assert.match(checked.stderr, /0 errors, 0 warnings/);
    const trained = rlx('train', 'scribbler.rlx', '--out', 'runs');
    assert.equal(trained.code, 0, trained.stderr);
    // Every episode as the env defines it: 20 steps, return 20.
    const runDir = path.join(work, trained.stdout.trim().split('\n').pop()!);
    const episodes = fs.readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; return?: number; length?: number }).filter((e) => e.type === 'episode');
    assert.ok(episodes.length >= 10, `${episodes.length} episodes`);
    for (const e of episodes) assert.deepEqual([e.return, e.length], [20, 20]);
  });
});
