// The Runs view shows a running run's latest update (events.jsonl), not status.json's older step.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { withLatestUpdate } from '../../../extension/runs/latest-update.js';
import type { RunInfo } from '../../../runtime/run/reader.js';
import { inChild, makeFifo, makeLink } from '../../helpers/hostile-files.js';

function runDir(lines: string[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-latest-'));
  fs.writeFileSync(path.join(dir, 'events.jsonl'), lines.join('\n'));
  return dir;
}

const status = { status: 'running' as const, pid: 1, experiment: 'X', seed: 1, started: '', updated: '', step: 512, budget: 4096, metrics: { 'train/mean_return': 10 } };

test('a running run takes the step and metrics of its last update; a half-written last line is skipped', () => {
  const dir = runDir([
    JSON.stringify({ type: 'metrics', step: 512, values: { 'train/mean_return': 10 } }),
    JSON.stringify({ type: 'metrics', step: 1024, values: { 'train/mean_return': 14 } }),
    JSON.stringify({ type: 'log', step: 1024, message: 'x' }),
    '{"type":"metrics","step":15',
  ]);
  const run: RunInfo = { dir, experiment: 'X', runId: 'r', status, state: 'running' };
  const fresh = withLatestUpdate(run);
  assert.equal(fresh.status?.step, 1024);
  assert.equal(fresh.status?.metrics['train/mean_return'], 14);
  // An ended run is status.json's word.
  assert.equal(withLatestUpdate({ ...run, state: 'stopped' }).status?.step, 512);
});

test("a stranger's events.jsonl (a FIFO, a link to /dev/zero or out of the run) leaves status.json as it is, at once", () => {
  const fifo = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-latest-fifo-'));
  makeFifo(path.join(fifo, 'events.jsonl'));
  const zero = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-latest-zero-'));
  makeLink(path.join(zero, 'events.jsonl'), '/dev/zero');
  const outside = runDir([JSON.stringify({ type: 'metrics', step: 4096, values: {} })]);
  const linked = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-latest-linked-'));
  makeLink(path.join(linked, 'events.jsonl'), path.join(outside, 'events.jsonl'));
  const { value, ms, stderr } = inChild(`
    const { withLatestUpdate } = await import(out + '/extension/runs/latest-update.js');
    return arg.dirs.map((dir) => withLatestUpdate({ dir, experiment: 'X', runId: 'r', status: arg.status, state: 'running' }).status.step);`,
  { dirs: [fifo, zero, linked], status }, 15_000);
  assert.ok(value !== undefined, `no answer within 15 s (${ms} ms): ${stderr}`);
  assert.deepEqual(value, [512, 512, 512]);
});
