// Offline RL from the command line: rlx check reports a `data:` file the trainer would refuse at
// its path (not an .npz, D4RL's keys missing, observations of another env), and a missing one at
// the experiment; rlx record writes a run's policy's episodes as a dataset (atomically, NumPy's
// layout), which BC then trains on with rlx train, the run keeping its copy.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { bytesSource, npzChunks } from '../../shared/transitions/npz.js';
import { loadTransitions } from '../../shared/transitions/transitions.js';
import { scratch } from './scratch.js';

const { work, rlx, write } = scratch('rlx-offline-');

const spec = (algorithm: string, env = 'Pendulum') => `algorithm Offline = ${algorithm}
experiment Learn {
  env: ${env}
  policy: mlp
  algorithm: Offline
  budget: 1k
}
`;

/** The one run folder under `dir` (the folder holding plan.json). */
function runIn(dir: string): string {
  const found = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => path.basename(f) === 'plan.json');
  assert.equal(found.length, 1, `one run under ${dir}: ${found.join(', ')}`);
  return path.join(dir, path.dirname(found[0]!));
}

const column = (rows: number, width: number) => new Float32Array(rows * width);
const npz = (arrays: Record<string, [number[], Float32Array]>) => Buffer.concat(npzChunks(Object.entries(arrays).map(([key, [shape, data]]) => ({ key, shape, data }))));

describe('rlx check reports a dataset of transitions rlx train would refuse', () => {
  test('at the path: missing, not an .npz, without D4RL\'s keys, of another env\'s observations; a missing data at the experiment', () => {
    write('c/not-zip.npz', 'observations,actions\n1,2\n');
    write('c/keys.npz', npz({ observations: [[4, 3], column(4, 3)] }));
    write('c/wide.npz', npz({ observations: [[4, 5], column(4, 5)], actions: [[4, 1], column(4, 1)], rewards: [[4], column(4, 1)], terminals: [[4], column(4, 1)] }));
    const cases: [string, string, RegExp][] = [
      ['BC { data: "./missing.npz" }', 'missing', /:1:32: error dataset-not-found: cannot read '\.\/missing\.npz': no such file/],
      ['BC { data: "./not-zip.npz" }', 'not-zip', /:1:32: error invalid-dataset: \.\/not-zip\.npz is not an \.npz file \(a zip of NumPy arrays, as np\.savez writes\)/],
      ['TD3BC { data: "./keys.npz" }', 'keys', /:1:35: error invalid-dataset: \.\/keys\.npz has no actions, rewards, terminals arrays; a dataset of transitions holds/],
      ['IQL { data: "./wide.npz" }', 'wide', /:1:33: error incompatible-env: '\.\/wide\.npz' holds observations of 5 numbers, and env Pendulum of experiment Learn has 3 \(cos_theta, sin_theta, theta_dot\)/],
      ['BC { learning_rate: 1e-3 }', 'no-data', /:5:14: error missing-property: experiment Learn trains with BC, which needs 'data' \(it has no default\)/],
    ];
    for (const [algorithm, name, message] of cases) {
      const file = write(`c/${name}.rlx`, spec(algorithm));
      const checked = rlx('check', file);
      assert.equal(checked.code, 1, `${name}: ${checked.stdout}${checked.stderr}`);
      assert.match(checked.stdout, message, name);
      const trained = rlx('train', file, '--out', path.join(work, `runs-${name}`));
      assert.equal(trained.code, 2, `${name}: rlx train refuses it too: ${trained.stderr}`);
      assert.doesNotMatch(trained.stderr, /internal error|\n\s+at /);
    }
  });

  test('BC on discrete actions is refused at check time, as every algorithm of other action kinds is', () => {
    write('d/ok.npz', npz({ observations: [[2, 4], column(2, 4)], actions: [[2], column(2, 1)], rewards: [[2], column(2, 1)], terminals: [[2], new Float32Array([0, 1])] }));
    const checked = rlx('check', write('d/cartpole.rlx', spec('BC { data: "./ok.npz" }', 'CartPole')));
    assert.equal(checked.code, 1);
    assert.match(checked.stdout, /BC cannot train on CartPole: it needs continuous actions/);
  });
});

test('rlx record writes a run\'s policy\'s episodes as a dataset that BC trains on', { timeout: 300_000 }, () => {
  const source = write('r/teacher.rlx', 'policy Small = mlp { hidden: [16] }\nalgorithm Quick = PPO { rollout_steps: 64 }\nexperiment Teacher {\n  env: Pendulum\n  policy: Small\n  algorithm: Quick\n  envs: 2\n  budget: 256\n}\n');
  const trained = rlx('train', source, '--out', path.join(work, 'r/runs'));
  assert.equal(trained.code, 0, trained.stderr);
  const runDir = runIn(path.join(work, 'r/runs'));
  const recorded = rlx('record', runDir, '--episodes', '3', '--epsilon', '0.5', '--to', 'r/teacher.npz', '--json');
  assert.equal(recorded.code, 0, recorded.stderr);
  const summary = JSON.parse(recorded.stdout) as { episodes: number; transitions: number; epsilon: number };
  assert.deepEqual([summary.episodes, summary.transitions, summary.epsilon], [3, 600, 0.5]);
  const data = loadTransitions(bytesSource('teacher.npz', fs.readFileSync(path.join(work, 'r/teacher.npz'))));
  assert.deepEqual([data.size, data.obsDim, data.actionDim], [600, 3, 1]);
  assert.deepEqual(fs.readdirSync(path.join(work, 'r')).filter((n) => n.endsWith('.tmp')), [], 'no temporary file left');
  // Refusals: both noise kinds, an --epsilon out of range, a --to that is not .npz.
  assert.match(rlx('record', runDir, '--episodes', '1', '--epsilon', '0.1', '--noise', '0.1', '--to', 'r/x.npz').stderr, /give --epsilon or --noise, not both/);
  assert.match(rlx('record', runDir, '--episodes', '1', '--epsilon', '2', '--to', 'r/x.npz').stderr, /--epsilon needs a number in \[0, 1\], got '2'/);
  assert.match(rlx('record', runDir, '--episodes', '1', '--to', 'r/x.csv').stderr, /--to names an \.npz file/);
  // BC trains on it from a spec beside it; the run keeps a copy of the file.
  const student = write('r/student.rlx', 'policy Small = mlp { hidden: [16] }\nalgorithm Clone = BC { data: "./teacher.npz", batch_size: 32 }\nexperiment Student {\n  env: Pendulum\n  policy: Small\n  algorithm: Clone\n  budget: 200\n}\n');
  assert.equal(rlx('check', student).code, 0);
  const learned = rlx('train', student, '--out', path.join(work, 'r/student-runs'));
  assert.equal(learned.code, 0, learned.stderr);
  const studentRun = runIn(path.join(work, 'r/student-runs'));
  assert.ok(fs.existsSync(path.join(studentRun, 'data', 'main.data.npz')));
  const evaluated = rlx('eval', studentRun, '--episodes', '2', '--json');
  assert.equal(evaluated.code, 0, evaluated.stderr);
});
