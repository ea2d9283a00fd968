// The progress notice's figures while a long history is read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReadProgress, type ProgressReport } from '../../../extension/panels/read-progress.js';

test('the notice moves by whole percents of the bytes, to 100, saying how much of how much', () => {
  const reports: ProgressReport[] = [];
  const progress = new ReadProgress((r) => reports.push(r));
  const total = 900 * 2 ** 20;
  for (let read = 2 ** 20; read <= total; read += 2 ** 20) progress.update(read, total);
  assert.equal(reports.length, 100, 'once per percent, not once per piece read');
  assert.equal(reports.reduce((sum, r) => sum + r.increment, 0), 100);
  assert.equal(reports.at(-1)?.message, '900.0 MiB of 900.0 MiB');
  assert.equal(reports[0].message, '9.0 MiB of 900.0 MiB');
});
