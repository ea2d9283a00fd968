// Step counts and durations read the same on the command line, in the Runs view and in the
// dashboard: one implementation (shared/format.ts), each surface choosing its dash for none.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatCount as cliCount, formatDuration as cliDuration } from '../../cli/progress.js';
import { formatCount as runsViewCount, formatDuration as runsViewDuration } from '../../extension/runs/describe.js';
import { formatDuration, formatSteps } from '../../shared/format.js';
import { formatDuration as dashboardDuration, formatSteps as dashboardSteps } from '../../webview/shared/format.js';

test('a step count is exact below 10,000, then three significant digits with k, M or B', () => {
  const counts = [0, 999, 1000, 9999, 20480, 500000, 1.5e6, 1234567, 2.25e9, -20480];
  assert.deepEqual(counts.map((n) => formatSteps(n)), ['0', '999', '1,000', '9,999', '20.5k', '500k', '1.5M', '1.23M', '2.25B', '-20.5k']);
  assert.deepEqual([formatSteps(NaN), formatSteps(Infinity), formatSteps(NaN, '-')], ['–', '–', '-']);
});

test('a duration is seconds, minutes and seconds, hours and minutes, or days and hours', () => {
  const durations = [0, 0.4, 4.6, 59.6, 125, 3 * 3600 + 5 * 60, 26 * 3600 + 59, 3 * 86400 + 4 * 3600];
  assert.deepEqual(durations.map((s) => formatDuration(s)), ['0s', '<1s', '5s', '1m 00s', '2m 05s', '3h 05m', '1d 2h', '3d 4h']);
  assert.deepEqual([formatDuration(undefined), formatDuration(-1), formatDuration(NaN, '-')], ['–', '–', '-']);
});

test('rlx train, the Runs view and the dashboard say the same, each with its own dash for none', () => {
  for (const n of [999, 20480, 1.5e6]) assert.ok(cliCount(n) === formatSteps(n) && runsViewCount(n) === formatSteps(n) && dashboardSteps(n) === formatSteps(n), String(n));
  for (const s of [0.4, 125, 3 * 3600]) assert.ok(cliDuration(s) === formatDuration(s) && runsViewDuration(s) === formatDuration(s) && dashboardDuration(s) === formatDuration(s), String(s));
  assert.deepEqual([cliCount(NaN), runsViewCount(NaN), dashboardSteps(NaN), cliDuration(-1), runsViewDuration(-1), dashboardDuration(-1)], ['-', '-', '–', '-', '-', '–']);
});
