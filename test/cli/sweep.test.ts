// `rlx sweep` as a user runs it: members as parallel `rlx train --member K` processes, each in its
// own run directory recorded in <runs>/<sweep>/sweep.json; a failing member reported while the
// others finish; Ctrl-C stopping every member cleanly and --resume finishing them.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { readEvents } from '../../runtime/run/events.js';
import { repoRoot } from '../helpers/repo.js';
import { tempDir } from '../runtime/helpers.js';
import { TINY_EXPERIMENT } from './sweep-fixtures.js';

const RLX = path.join(repoRoot(), 'bin', 'rlx.js');

function rlx(args: string[], cwd: string) {
  return spawnSync(process.execPath, [RLX, ...args], { cwd, encoding: 'utf8', timeout: 300_000 });
}

function project(text: string, files: Record<string, string> = {}): string {
  const cwd = tempDir();
  fs.writeFileSync(path.join(cwd, 'sweep.rlx'), text);
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(cwd, name), content);
  return cwd;
}

interface SweepJson {
  sweep: string;
  count: number;
  members: Record<string, string>;
}

const sweepJson = (cwd: string, name = 'S'): SweepJson => JSON.parse(fs.readFileSync(path.join(cwd, 'runs', name, 'sweep.json'), 'utf8'));
const status = (cwd: string, rel: string) => JSON.parse(fs.readFileSync(path.join(cwd, 'runs', rel, 'status.json'), 'utf8'));

async function until(condition: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('rlx sweep', () => {
  it('trains every member, 2 at a time, each into its own run directory, recorded in sweep.json', () => {
    const cwd = project(TINY_EXPERIMENT.replace('budget: 256', 'budget: 128') + 'sweep S over E {\n  algorithm.learning_rate: [1e-3, 3e-3]\n  parallel: 2\n}\n');
    const result = rlx(['sweep', 'sweep.rlx', '--device', 'cpu'], cwd);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /4 members, 2 at a time \(parallel: in the sweep\)/);
    assert.match(result.stderr, /4\/4 finished in/);
    const state = sweepJson(cwd);
    assert.equal(state.count, 4);
    assert.deepEqual(Object.keys(state.members).sort(), ['0', '1', '2', '3']);
    // stdout: each member's run directory as it starts, as `rlx train` prints them.
    assert.deepEqual(result.stdout.trim().split('\n').map((d) => path.relative(path.join(cwd, 'runs'), path.resolve(cwd, d))).sort(), Object.values(state.members).sort());
    for (const [k, rel] of Object.entries(state.members)) {
      assert.equal(status(cwd, rel).status, 'finished', `member ${k}`);
      // Member k = combination floor(k / 2), seed [1, 2][k % 2]; names as the Runs view groups them.
      assert.match(path.basename(rel), new RegExp(`^\\d{8}-\\d{6}-S${Math.floor(Number(k) / 2)}-seed${(Number(k) % 2) + 1}$`));
      assert.ok(fs.existsSync(path.join(cwd, 'runs', 'S', 'logs', `member-${k}.log`)));
    }
    // Started again without --resume: refused, saying how to continue.
    const again = rlx(['sweep', 'sweep.rlx', '--device', 'cpu'], cwd);
    assert.equal(again.status, 2);
    assert.match(again.stderr, /sweep S was started in runs\/S already .*continue it with --resume/);
    // --resume on a finished sweep has nothing to do.
    const resumed = rlx(['sweep', 'sweep.rlx', '--resume', '--device', 'cpu'], cwd);
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.equal(resumed.stdout, '');
    assert.match(resumed.stderr, /4\/4 finished in/);
    // An edit elsewhere keeps the numbering (resume goes on); reordering the sweep's values changes it (refused).
    const text = fs.readFileSync(path.join(cwd, 'sweep.rlx'), 'utf8');
    fs.writeFileSync(path.join(cwd, 'sweep.rlx'), text.replace('max_steps: 50', 'max_steps: 60'));
    assert.equal(rlx(['sweep', 'sweep.rlx', '--resume', '--device', 'cpu'], cwd).status, 0);
    fs.writeFileSync(path.join(cwd, 'sweep.rlx'), text.replace('[1e-3, 3e-3]', '[3e-3, 1e-3]'));
    const reordered = rlx(['sweep', 'sweep.rlx', '--resume', '--device', 'cpu'], cwd);
    assert.equal(reordered.status, 2);
    assert.match(reordered.stderr, /sweep S's lists changed since it started in runs\/S \(4 members then, 4 now\): member numbers would mean other runs; start it anew with --out DIR/);
  });

  it('reports a failing member with its error while the others finish', () => {
    // A module env that throws on reset: the members that train on it fail; the ones on CartPole do not.
    const broken = `export default class Broken {
  observationSpace = { kind: 'box', shape: [4], low: [-1, -1, -1, -1], high: [1, 1, 1, 1] };
  actionSpace = { kind: 'discrete', n: 2 };
  reset() { throw new Error('the broken env cannot reset'); }
  step() { throw new Error('unreachable'); }
}
`;
    const text = TINY_EXPERIMENT.replace('budget: 256', 'budget: 128').replace('seeds: [1, 2]', 'seeds: [1]')
      + 'env Broken = module("./broken.js") { max_steps: 50 }\nsweep S over E {\n  env: [Pole, Broken, Pole]\n}\n';
    const cwd = project(text, { 'broken.js': broken });
    const result = rlx(['sweep', 'sweep.rlx', '--parallel', '2', '--device', 'cpu'], cwd);
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /2\/3 finished, 1 failed in/);
    assert.match(result.stderr, /1 member failed .*:\n  member 1 \(env=Broken seed=1\): [^\n]*the broken env cannot reset/);
    assert.match(result.stderr, /--resume runs the failed members again/);
    const state = sweepJson(cwd);
    assert.equal(status(cwd, state.members['0']).status, 'finished');
    assert.equal(status(cwd, state.members['2']).status, 'finished');
    // The env fails while the trainer sets up, before a run directory; one made already would say failed.
    if (state.members['1'] !== undefined) assert.equal(status(cwd, state.members['1']).status, 'failed');
    assert.doesNotMatch(result.stderr, /internal error/);
  });

  it('Ctrl-C stops every running member (stopped, resumable), exits 130 and says how to continue; --resume finishes the sweep', async () => {
    // A budget no member can finish between the first update of the second and the signal (3k steps could).
    const cwd = project(TINY_EXPERIMENT.replace('budget: 256', 'budget: 64000').replace('seeds: [1, 2]', 'seeds: [1, 2, 3]') + 'sweep S over E {\n  algorithm.learning_rate: [1e-3]\n}\n');
    const child = spawn(process.execPath, [RLX, 'sweep', 'sweep.rlx', '--parallel', '2', '--device', 'cpu'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const trained = (rel: string) => {
      const events = path.join(cwd, 'runs', rel, 'events.jsonl');
      return fs.existsSync(events) && readEvents(events).some((e) => e.type === 'metrics');
    };
    const members = () => (fs.existsSync(path.join(cwd, 'runs', 'S', 'sweep.json')) ? Object.values(sweepJson(cwd).members) : []);
    await until(() => members().length === 2 && members().every(trained), 'two members training');
    child.kill('SIGINT');
    assert.equal(await exited, 130, stderr);
    assert.match(stderr, /SIGINT; stopping the 2 running members/);
    assert.match(stderr, /continue with: rlx sweep sweep.rlx --sweep S --resume/);
    const stopped = sweepJson(cwd);
    assert.deepEqual(Object.keys(stopped.members).sort(), ['0', '1'], 'the third member never started');
    for (const rel of Object.values(stopped.members)) assert.equal(status(cwd, rel).status, 'stopped', stderr);

    const resumed = rlx(['sweep', 'sweep.rlx', '--resume', '--device', 'cpu'], cwd);
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.match(resumed.stderr, /resuming member 0/);
    assert.match(resumed.stderr, /starting member 2/);
    const done = sweepJson(cwd);
    // The stopped members went on in their own run directories; the third got its own.
    assert.equal(done.members['0'], stopped.members['0']);
    assert.equal(done.members['1'], stopped.members['1']);
    for (const rel of Object.values(done.members)) {
      const s = status(cwd, rel);
      assert.equal(s.status, 'finished');
      assert.equal(s.step, 64000);
    }
  });

  it('refuses, saying what to do: a file without sweeps, --resume of a sweep never started, a bad --parallel', () => {
    const noSweep = rlx(['sweep', 'sweep.rlx'], project(TINY_EXPERIMENT));
    assert.equal(noSweep.status, 2);
    assert.match(noSweep.stderr, /rlx sweep trains the members of a sweep, and sweep.rlx declares none/);
    const cwd = project(TINY_EXPERIMENT + 'sweep S over E {\n  algorithm.learning_rate: [1e-3]\n}\n');
    const notStarted = rlx(['sweep', 'sweep.rlx', '--resume'], cwd);
    assert.equal(notStarted.status, 2);
    assert.match(notStarted.stderr, /there is no sweep S to resume in runs\/S \(no sweep.json\); start it with rlx sweep sweep.rlx/);
    const parallel = rlx(['sweep', 'sweep.rlx', '--parallel', '0'], cwd);
    assert.equal(parallel.status, 2);
    assert.match(parallel.stderr, /--parallel needs a whole number >= 1/);
  });
});
