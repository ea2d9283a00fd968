// rlx train --plan FILE and --resume RUN read a plan only when it is a regular file of bounded
// size: a FIFO or a link to /dev/zero is refused at once, not waited on or read forever.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { makeFifo, makeLink } from '../../helpers/hostile-files.js';
import { scratch } from '../scratch.js';

const { work, rlx } = scratch('rlx-train-plan-');

test('a plan that is a FIFO or a link to /dev/zero is refused at once, naming it', () => {
  makeFifo(path.join(work, 'fifo.json'));
  makeLink(path.join(work, 'zero.json'), '/dev/zero');
  for (const name of ['fifo.json', 'zero.json']) {
    const started = Date.now();
    const r = rlx('train', '--plan', name, '--out', 'runs');
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `rlx train: the plan ${name} is not a regular file (a device, pipe or socket); rlx reads only regular files\n`);
    assert.ok(Date.now() - started < 15_000, name);
  }
  assert.equal(rlx('train', '--plan', 'missing.json').stderr, 'rlx train: cannot read the plan missing.json: no such file\n');
});

test("--resume of a run whose plan.json is a FIFO or a link to /dev/zero is refused at once (exit 2)", () => {
  makeFifo(path.join(work, 'runs', 'E', 'fifo', 'plan.json'));
  makeLink(path.join(work, 'runs', 'E', 'zero', 'plan.json'), '/dev/zero');
  for (const [run, reason] of [['fifo', 'is not a regular file'], ['zero', 'is a symbolic link out of the run folder']]) {
    const started = Date.now();
    const r = rlx('train', '--resume', path.join('runs', 'E', run));
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`^rlx train: resuming .*\\nrlx train: the run's plan \\(plan\\.json\\) .*plan\\.json ${reason}`));
    assert.ok(Date.now() - started < 15_000, run);
  }
});
