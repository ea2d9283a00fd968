// A sweep's sweep.json is read as a run folder's files are: a regular file inside the sweep's
// folder, of bounded size. A cloned runs/ may hold a FIFO there, which would block rlx sweep.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { UserError } from '../../../cli/files.js';
import { readSweepState } from '../../../cli/sweep/state.js';
import { inChild, makeFifo, makeLink } from '../../helpers/hostile-files.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-sweep-state-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('a sweep.json that is a FIFO or a link out of the sweep folder is refused at once, saying what to do', () => {
  makeFifo(path.join(root, 'Fifo', 'sweep.json'));
  makeLink(path.join(root, 'Zero', 'sweep.json'), '/dev/zero');
  const { value, ms, stderr } = inChild(`
    const { readSweepState } = await import(out + '/cli/sweep/state.js');
    return arg.map((dir) => { try { readSweepState(dir); return 'read'; } catch (e) { return e.message; } });`,
  [path.join(root, 'Fifo'), path.join(root, 'Zero')], 15_000);
  assert.ok(value !== undefined, `no answer within 15 s (${ms} ms): ${stderr}`);
  const [fifo, zero] = value as string[];
  assert.match(fifo, /^the sweep's state \(sweep\.json\) .*sweep\.json is not a regular file .*; remove it to start the sweep again$/);
  assert.match(zero, /sweep\.json is a symbolic link out of the run folder.*; remove it to start the sweep again$/);
  assert.equal(readSweepState(path.join(root, 'None')), undefined, 'no sweep started there');
  assert.throws(() => readSweepState(path.join(root, 'Fifo')), UserError);
});
