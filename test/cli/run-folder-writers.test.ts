// A stranger's run folder (a cloned repository's runs/) cannot make `rlx train --resume` or
// `rlx eval --record` write outside it or hang: a link anywhere inside it, or a FIFO or device
// where the writers open a file, is refused with one line naming it (exit 2), before a byte is
// written. A plain copy of the same run still resumes and records.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import { makeFifo, makeLink } from '../helpers/hostile-files.js';
import { repoRoot } from '../helpers/repo.js';
import { scratch } from './scratch.js';

const { work, rlx, write } = scratch('rlx-run-writers-');

const SPEC = `env Pole = CartPole { max_steps: 50 }
policy Actor = mlp { hidden: [8] }
algorithm Short = PPO { rollout_steps: 64 }
experiment Balance { env: Pole, policy: Actor, algorithm: Short, budget: 256, device: cpu }
`;

let trained: string;
before(() => {
  const r = rlx('train', write('spec.rlx', SPEC), '--out', 'runs', '--checkpoint-every', '128');
  assert.equal(r.code, 0, r.stderr);
  trained = path.join(work, r.stdout.trim());
});

let copies = 0;
/** A copy of the trained run, marked stopped (so that it resumes), changed by `hostile`; its path relative to the scratch folder. */
function hostileCopy(hostile: (dir: string) => void): string {
  const name = `copy-${++copies}`;
  const dir = path.join(work, name);
  fs.cpSync(trained, dir, { recursive: true });
  const status = path.join(dir, 'status.json');
  fs.writeFileSync(status, fs.readFileSync(status, 'utf8').replace('"finished"', '"stopped"'));
  hostile(dir);
  return name;
}

/** Every file under `dir` with its bytes, to see that nothing there was written. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]) {
    const file = path.join(dir, name);
    if (fs.statSync(file).isFile()) files[name] = fs.readFileSync(file, 'base64');
  }
  return files;
}

function refused(r: { code: number; stderr: string }, says: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, says);
  assert.doesNotMatch(r.stderr, /internal error|    at /, 'one line, no stack');
}

describe('writers refuse links out of a run folder (issue 43, item 1)', () => {
  test('--resume with events.jsonl linked to a file outside: refused, naming the link; the file is not appended to', () => {
    const outside = write('outside/bashrc', 'export PATH=/usr/bin\n');
    const run = hostileCopy((dir) => {
      fs.rmSync(path.join(dir, 'events.jsonl'));
      makeLink(path.join(dir, 'events.jsonl'), path.join(work, outside));
    });
    refused(rlx('train', '--resume', run), new RegExp(`cannot resume the run ${run}: ${run}/events\\.jsonl is a symbolic link \\(to .*outside/bashrc\\); rlx writes only a run folder's own files`));
    assert.equal(fs.readFileSync(path.join(work, outside), 'utf8'), 'export PATH=/usr/bin\n');
  });

  test('--resume with checkpoints/ linked to a folder outside: refused; nothing is written there', () => {
    const outside = path.join(work, 'outside-checkpoints');
    fs.cpSync(path.join(trained, 'checkpoints'), outside, { recursive: true });
    const before = snapshot(outside);
    const run = hostileCopy((dir) => {
      fs.rmSync(path.join(dir, 'checkpoints'), { recursive: true });
      makeLink(path.join(dir, 'checkpoints'), outside);
    });
    refused(rlx('train', '--resume', run), new RegExp(`${run}/checkpoints is a symbolic link \\(to .*outside-checkpoints\\)`));
    assert.deepEqual(snapshot(outside), before);
  });

  test('--resume with a checkpoint file linked out (a link deeper in the folder): refused, naming it', () => {
    const run = hostileCopy((dir) => {
      const state = path.join(dir, 'checkpoints', 'state-256.json');
      fs.copyFileSync(state, path.join(work, `${path.basename(dir)}-state.json`));
      fs.rmSync(state);
      makeLink(state, path.join(work, `${path.basename(dir)}-state.json`));
    });
    refused(rlx('train', '--resume', run), new RegExp(`${run}/checkpoints/state-256\\.json is a symbolic link`));
  });

  test('eval --record with rollouts/ linked to a folder outside: refused; the folder stays empty', () => {
    const outside = path.join(work, 'outside-rollouts');
    fs.mkdirSync(outside);
    const run = hostileCopy((dir) => {
      fs.rmSync(path.join(dir, 'rollouts'), { recursive: true });
      makeLink(path.join(dir, 'rollouts'), outside);
    });
    refused(rlx('eval', run, '--record', '--episodes', '1'), new RegExp(`cannot record an episode into the run ${run}: ${run}/rollouts is a symbolic link \\(to .*outside-rollouts\\)`));
    assert.deepEqual(fs.readdirSync(outside), []);
  });

  test('a plain copy of the run still resumes and records', () => {
    const run = hostileCopy(() => {});
    const resumed = rlx('train', '--resume', run);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /resumed from checkpoint at step 256/);
    const recorded = rlx('eval', run, '--record', '--episodes', '1');
    assert.equal(recorded.code, 0, recorded.stderr);
    assert.ok(fs.readdirSync(path.join(work, run, 'rollouts')).some((f) => f.endsWith('-rlx-eval.jsonl')));
  });
});

describe('resume on special files does not hang (issue 43, item 2)', () => {
  // Each would block `rlx train --resume` forever (or read without end), deaf to SIGTERM: the
  // child is killed with SIGKILL after 60 s, which then fails the exit-status check.
  const resume = (run: string) => {
    const r = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), 'train', '--resume', run], { cwd: work, encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' });
    return { code: r.status ?? -1, stderr: r.stderr };
  };
  const cases: [string, (dir: string) => void, RegExp][] = [
    ['run.lock a FIFO', (dir) => makeFifo(path.join(dir, 'run.lock')), /run\.lock is not a regular file \(a FIFO, device or socket\)/],
    ['events.jsonl a FIFO', (dir) => { fs.rmSync(path.join(dir, 'events.jsonl')); makeFifo(path.join(dir, 'events.jsonl')); }, /events\.jsonl is not a regular file \(a FIFO, device or socket\)/],
    ['run.lock -> /dev/zero', (dir) => makeLink(path.join(dir, 'run.lock'), '/dev/zero'), /run\.lock is a symbolic link \(to \/dev\/zero\)/],
    ['run.lock far larger than a lock', (dir) => { fs.writeFileSync(path.join(dir, 'run.lock'), ''); fs.truncateSync(path.join(dir, 'run.lock'), 2 ** 30); }, /run\.lock is 1\.0 GiB, more than the 64\.0 KiB rlx reads for the run's lock/],
  ];
  for (const [name, hostile, says] of cases) {
    test(`${name}: refused at once, naming it`, () => {
      const run = hostileCopy(hostile);
      refused(resume(run), says);
    });
  }
});

describe("a copied status.json's pid is not taken for a trainer (issue 43, item 3)", () => {
  test('--resume of a run whose status.json says running, naming a live process that is not its trainer, resumes', async () => {
    const { spawn } = await import('node:child_process');
    const bystander = spawn('sleep', ['120'], { stdio: 'ignore' });
    await new Promise((r) => bystander.once('spawn', r));
    try {
      const run = hostileCopy((dir) => {
        const status = path.join(dir, 'status.json');
        fs.writeFileSync(status, fs.readFileSync(status, 'utf8').replace('"stopped"', '"running"').replace(/"pid": \d+/, `"pid": ${bystander.pid}`));
      });
      const r = rlx('train', '--resume', run);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /is being trained by process/);
      assert.equal(bystander.exitCode, null, 'the bystander runs on, unsignalled');
    } finally {
      bystander.kill('SIGKILL');
    }
  });
});
