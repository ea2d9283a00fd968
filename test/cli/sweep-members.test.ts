// `rlx train FILE --sweep NAME --member K` and `--list-members` as a user (or a Slurm array task)
// runs them: the members' numbering, its stability across edits elsewhere in the file, one member
// trained into its own run directory, and the refusals.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { repoRoot } from '../helpers/repo.js';
import { tempDir } from '../runtime/helpers.js';
import { TINY_EXPERIMENT } from './sweep-fixtures.js';

const RLX = path.join(repoRoot(), 'bin', 'rlx.js');

function rlx(args: string[], cwd: string) {
  return spawnSync(process.execPath, [RLX, ...args], { cwd, encoding: 'utf8', timeout: 120_000 });
}

const SWEEP = `
sweep S over E {
  algorithm.learning_rate: [1e-3, 3e-3]
  algorithm.clip: [0.1, 0.2, 0.3]
}
`;

function project(text: string): string {
  const cwd = tempDir();
  fs.writeFileSync(path.join(cwd, 'sweep.rlx'), text);
  return cwd;
}

describe('rlx train --member / --list-members', () => {
  it('lists every member a line each: index, varied values, seed; the seed varies fastest', () => {
    const cwd = project(TINY_EXPERIMENT + SWEEP);
    const result = rlx(['train', 'sweep.rlx', '--sweep', 'S', '--list-members'], cwd);
    assert.equal(result.status, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 2 * 3 * 2);
    assert.equal(lines[0], '0\talgorithm.learning_rate=0.001 algorithm.clip=0.1 seed=1');
    assert.equal(lines[1], '1\talgorithm.learning_rate=0.001 algorithm.clip=0.1 seed=2');
    assert.equal(lines[2], '2\talgorithm.learning_rate=0.001 algorithm.clip=0.2 seed=1');
    assert.equal(lines[11], '11\talgorithm.learning_rate=0.003 algorithm.clip=0.3 seed=2');
    // The file's only sweep needs no --sweep; --member K with --list-members prints that one line.
    const one = rlx(['train', 'sweep.rlx', '--list-members', '--member', '7'], cwd);
    assert.equal(one.stdout, `${lines[7]}\n`);
  });

  it('keeps every index when the file changes elsewhere; editing the sweep\'s lists renumbers', () => {
    const before = rlx(['train', 'sweep.rlx', '--list-members'], project(TINY_EXPERIMENT + SWEEP)).stdout;
    const elsewhere = TINY_EXPERIMENT.replace('hidden: [8]', 'hidden: [16]').replace('budget: 256', 'budget: 512')
      + '\nexperiment Other {\n  env: Pole\n  policy: P\n  algorithm: A\n  budget: 100\n}\n' + SWEEP;
    assert.equal(rlx(['train', 'sweep.rlx', '--list-members'], project(elsewhere)).stdout, before);
    const listsEdited = rlx(['train', 'sweep.rlx', '--list-members'], project(TINY_EXPERIMENT + SWEEP.replace('[1e-3, 3e-3]', '[3e-3, 1e-3]'))).stdout;
    assert.notEqual(listsEdited, before);
  });

  it('answers for member 5 of a sweep of 10^8 members without making the others', () => {
    const values = (scale: number) => `[${Array.from({ length: 100 }, (_, i) => (i + 1) * scale).join(', ')}]`;
    const huge = TINY_EXPERIMENT + `
sweep Huge over E {
  algorithm.learning_rate: ${values(1e-5)}
  algorithm.clip: ${values(1e-3)}
  algorithm.entropy_coef: ${values(1e-4)}
  seeds: ${values(1)}
}
`;
    const cwd = project(huge);
    const five = rlx(['train', 'sweep.rlx', '--list-members', '--member', '5'], cwd);
    assert.equal(five.status, 0, five.stderr);
    assert.equal(five.stdout, '5\talgorithm.learning_rate=0.00001 algorithm.clip=0.001 algorithm.entropy_coef=0.0001 seed=6\n');
    const beyond = rlx(['train', 'sweep.rlx', '--member', '100000000'], cwd);
    assert.equal(beyond.status, 2);
    assert.match(beyond.stderr, /sweep Huge has 100,000,000 members \(0 to 99999999\); there is no member 100000000/);
  });

  it('trains exactly member K, its seed and values, into its own run directory', () => {
    const cwd = project(TINY_EXPERIMENT + SWEEP);
    const result = rlx(['train', 'sweep.rlx', '--sweep', 'S', '--member', '9', '--out', 'runs', '--device', 'cpu'], cwd);
    assert.equal(result.status, 0, result.stderr);
    const dirs = result.stdout.trim().split('\n');
    assert.equal(dirs.length, 1, 'one run');
    // Member 9 = combination 4 (learning rate 3e-3, clip 0.2), seed 2; the directory keeps the name the Runs view groups by.
    assert.match(path.basename(dirs[0]), /^\d{8}-\d{6}-S4-seed2$/);
    const plan = JSON.parse(fs.readFileSync(path.join(cwd, dirs[0], 'plan.json'), 'utf8'));
    assert.deepEqual(plan.stages[0].algorithm.params.clip, { schedule: 'constant', value: 0.2 });
    assert.deepEqual(plan.stages[0].algorithm.params.learning_rate, { schedule: 'constant', value: 3e-3 });
    const status = JSON.parse(fs.readFileSync(path.join(cwd, dirs[0], 'status.json'), 'utf8'));
    assert.equal(status.status, 'finished');
    assert.equal(status.seed, 2);
    assert.deepEqual(fs.readdirSync(path.join(cwd, 'runs', 'E')), [path.basename(dirs[0])]);
  });

  it('refuses, saying what to do: a member out of range, a name that is no sweep, a file without sweeps, --seed with --member', () => {
    const cwd = project(TINY_EXPERIMENT + SWEEP);
    const cases: [string[], RegExp][] = [
      [['--member', '12'], /sweep S has 12 members \(0 to 11\); there is no member 12/],
      [['--sweep', 'Nope', '--member', '0'], /sweep.rlx has no sweep 'Nope'; its sweeps: S/],
      [['--sweep', 'E', '--list-members'], /E is an experiment, not a sweep/],
      [['--member', '0', '--seed', '3'], /a member has its own seed/],
      [['--member', '1.5'], /--member needs a whole number >= 0/],
    ];
    for (const [args, message] of cases) {
      const result = rlx(['train', 'sweep.rlx', ...args], cwd);
      assert.equal(result.status, 2, args.join(' '));
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, /internal error|\n\s+at /);
    }
    const noSweep = project(TINY_EXPERIMENT);
    const result = rlx(['train', 'sweep.rlx', '--member', '0'], noSweep);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /pick a member of a sweep, and sweep.rlx declares none \(its experiments: E; train one's seed with --seed N\)/);
  });
});
