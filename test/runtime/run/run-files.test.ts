// The one way files of a run folder are read: regular files inside the folder, of bounded size.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { isInputError } from '../../../shared/input-error.js';
import { readRunJson, readRunText, RUN_FILE_LIMITS, runFileExists, runFilePath } from '../../../runtime/run/run-files.js';
import { makeFifo, makeHuge, makeLink } from '../../helpers/hostile-files.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-run-files-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const run = path.join(root, 'disk', 'runs', 'E', 'r1');
fs.mkdirSync(path.join(run, 'checkpoints'), { recursive: true });
fs.writeFileSync(path.join(run, 'status.json'), '{"status":"finished"}');
fs.writeFileSync(path.join(root, 'secret.json'), '{"token":"do not read"}');

test('a file of the run is read, also through a runs folder that is itself a link (another disk)', () => {
  makeLink(path.join(root, 'runs'), path.join(root, 'disk', 'runs'));
  const linked = path.join(root, 'runs', 'E', 'r1');
  assert.deepEqual(readRunJson(linked, path.join(linked, 'status.json'), RUN_FILE_LIMITS.status), { status: 'finished' });
  // A link that stays inside the run folder is harmless.
  makeLink(path.join(run, 'checkpoints', 'latest.json'), '../status.json');
  assert.equal(readRunText(run, path.join(run, 'checkpoints', 'latest.json'), RUN_FILE_LIMITS.status), '{"status":"finished"}');
});

test('a link out of the run folder is refused, whatever it points at; its target is never read', () => {
  makeLink(path.join(run, 'plan.json'), path.join(root, 'secret.json'));
  makeLink(path.join(run, 'checkpoints', 'policy-final.onnx'), '/dev/zero');
  makeLink(path.join(run, 'events.jsonl'), '../../../../secret.json');
  for (const [file, limit] of [['plan.json', RUN_FILE_LIMITS.plan], [path.join('checkpoints', 'policy-final.onnx'), RUN_FILE_LIMITS.policy], ['events.jsonl', RUN_FILE_LIMITS.events]] as const) {
    assert.throws(() => readRunText(run, path.join(run, file), limit), (e: Error) => isInputError(e) && e.message === `the ${limit.what} ${path.join(run, file)} is a symbolic link out of the run folder; rlx reads only the run's own files (delete the link)` && !e.message.includes('do not read'), file);
  }
});

test('a FIFO, a file over its limit, a missing file: refused with the reason', () => {
  makeFifo(path.join(run, 'run.lock'));
  makeHuge(path.join(run, 'rollouts', 'episode-0.jsonl'), RUN_FILE_LIMITS.rollout.maxBytes + 2 ** 20);
  assert.throws(() => readRunText(run, path.join(run, 'run.lock'), RUN_FILE_LIMITS.lock), /run's lock \(run\.lock\) .* is not a regular file/);
  assert.throws(() => readRunText(run, path.join(run, 'rollouts', 'episode-0.jsonl'), RUN_FILE_LIMITS.rollout), /recorded episode .* is 65\.0 MiB, more than the 64\.0 MiB rlx reads for it/);
  assert.throws(() => runFilePath(run, path.join(run, 'missing.json'), 'thing'), /cannot read the thing .*missing\.json: no such file/);
  assert.equal(runFileExists(path.join(run, 'missing.json')), false);
  makeLink(path.join(run, 'dangling.json'), path.join(root, 'nothing-here'));
  assert.equal(runFileExists(path.join(run, 'dangling.json')), true, 'a broken link is there: the run says why it cannot be read');
});
