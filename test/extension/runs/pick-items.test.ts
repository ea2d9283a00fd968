// The rows of the run picker (issue 43 item 20): two runs of one experiment and seed are told
// apart by their start and their folder, and a failed run is marked and says so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunInfo, StatusFile } from '../../../runtime/run/reader.js';
import { runPickItems } from '../../../extension/runs/pick-items.js';

function run(state: RunInfo['state'], runId: string, status: Partial<StatusFile> | undefined): RunInfo {
  const full: StatusFile | undefined = status && {
    status: 'finished', pid: 1, experiment: 'Balance', seed: 1, started: '2026-11-21T10:10:10.000Z', updated: '2026-11-21T10:11:40.000Z',
    ended: '2026-11-21T10:11:40.000Z', step: 20480, budget: 20480, metrics: {}, ...status,
  };
  return { dir: `/w/runs/Balance/${runId}`, experiment: 'Balance', runId, status: full, state };
}

/** `iso` as the picker shows it: local time, to the minute. */
function local(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

test('rows carry the experiment, the start time, the seed, the state and the folder; a failed run is marked', () => {
  const rows = runPickItems([
    run('failed', '20261121-121500-seed1', { status: 'failed', started: '2026-11-21T12:15:00.000Z', error: 'the env returned NaN', step: 4096 }),
    run('finished', '20261121-101010-seed1', { metrics: { 'eval/mean_return': 500 } }),
    run('unknown', 'odd-name', undefined),
  ], ['/w/runs/Balance/20261121-101010-seed1'], Date.parse('2026-11-21T13:00:00.000Z'));
  assert.deepEqual(rows.map((r) => [r.label, r.detail, r.picked]), [
    [`$(error) Balance · ${local('2026-11-21T12:15:00.000Z')} · seed 1`, '20261121-121500-seed1', false],
    [`Balance · ${local('2026-11-21T10:10:10.000Z')} · seed 1`, '20261121-101010-seed1', true],
    ['Balance', 'odd-name', false],
  ]);
  assert.match(rows[0]!.description, /^Failed · 4,096 steps/);
  assert.match(rows[1]!.description, /^Finished · 20\.5k steps · return 500\.0/);
  assert.equal(rows[2]!.description, 'Unknown state');
  assert.notEqual(rows[0]!.label, rows[1]!.label, 'two runs of one seed read apart');
});
