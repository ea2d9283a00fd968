// How runs read in the Runs view.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunInfo, StatusFile } from '../../../runtime/run/reader.js';
import { describeExperiment, describeRun, formatCount, formatDuration, latestReturn, runSeed } from '../../../extension/runs/describe.js';

function run(state: RunInfo['state'], status: Partial<StatusFile> | undefined, runId = '20261121-101010-seed3'): RunInfo {
  const full: StatusFile | undefined = status && {
    status: 'running', pid: 1, experiment: 'Balance', seed: 3, started: '2026-11-21T10:10:10.000Z', updated: '2026-11-21T10:11:40.000Z',
    step: 20480, budget: 500000, metrics: {}, ...status,
  };
  return { dir: `/w/runs/Balance/${runId}`, experiment: 'Balance', runId, status: full, state };
}

test('a finished run: seed, steps, latest return (eval first), duration; icon and menu by state', () => {
  const d = describeRun(run('finished', { status: 'finished', ended: '2026-11-21T10:12:15.000Z', metrics: { 'train/mean_return': 249.7, 'eval/mean_return': 500 } }));
  assert.equal(d.label, 'seed 3');
  assert.equal(d.description, '20.5k steps · return 500.0 · 2m 05s');
  assert.deepEqual(d.icon, { id: 'pass', color: 'testing.iconPassed' });
  assert.equal(d.contextValue, 'run.finished');
  assert.match(d.tooltip, /Latest evaluation return: 500\.00/);
});

test('a running run counts against its budget and up to now', () => {
  const now = Date.parse('2026-11-21T10:10:40.000Z');
  const d = describeRun(run('running', { metrics: { 'train/mean_return': 21.42 } }), now);
  assert.equal(d.description, '20.5k/500k steps · return 21.4 · 30s');
  assert.equal(d.icon.id, 'sync~spin');
});

test('a text run reads by its held-out accuracy (a text task) or success (dialogues), not its "return"', () => {
  const ended = { status: 'finished' as const, ended: '2026-11-21T10:12:15.000Z' };
  // A text task's eval/mean_return is its mean reward (1.1 with a format bonus): it said "return 1.1".
  const task = describeRun(run('finished', { ...ended, metrics: { 'eval/accuracy': 0.99609375, 'eval/mean_return': 1.096, 'train/mean_reward': 1.053 } }));
  assert.equal(task.description, '20.5k steps · accuracy 99.6% · 2m 05s');
  assert.match(task.tooltip, /Latest held-out accuracy: 99\.6% \(greedy completions of the held-out prompts, exact match\)/);
  assert.doesNotMatch(task.tooltip, /return/);
  const dialogue = describeRun(run('finished', { ...ended, metrics: { 'eval/success': 0.95, 'eval/mean_return': 0.95, 'train/mean_return': 0.6, 'train/mean_reward': 0.44 } }));
  assert.equal(dialogue.description, '20.5k steps · success 95.0% · 2m 05s');
  // A goal-conditioned numeric env keeps its return (it has no train/mean_reward).
  const grid = describeRun(run('finished', { ...ended, metrics: { 'eval/success': 1, 'eval/mean_return': 0.9 } }));
  assert.equal(grid.description, '20.5k steps · return 0.9 · 2m 05s');
  // A sweep member's accuracy leads, as its return would.
  const member = describeRun(run('finished', { ...ended, metrics: { 'eval/accuracy': 0.5 } }, '20261121-101010-Lr1-seed1'), Date.now(), 'lr=1e-4');
  assert.match(member.description, /^accuracy 50\.0% · /);
});

test('a failed or crashed run says why in its tooltip', () => {
  const failed = describeRun(run('failed', { status: 'failed', error: 'the env returned NaN' }));
  assert.equal(failed.icon.id, 'error');
  assert.match(failed.tooltip, /Error: the env returned NaN/);
  const crashed = describeRun(run('crashed', {}));
  assert.equal(crashed.contextValue, 'run.crashed');
  assert.match(crashed.tooltip, /resume continues from the last checkpoint/);
});

test('a run without status.json shows its id; sweep members their tag', () => {
  const bare = describeRun(run('unknown', undefined, 'odd-name'));
  assert.equal(bare.label, 'odd-name');
  assert.equal(bare.description, '');
  assert.equal(bare.icon.id, 'question');
  assert.equal(describeRun(run('finished', {}, '20261121-101010-LrScan2-seed1-2')).label, 'LrScan2 · seed 3');
  // A sweep member's return leads its description (the side bar cuts long descriptions off).
  const member = describeRun(run('finished', { status: 'finished', ended: '2026-11-21T10:12:15.000Z', metrics: { 'train/mean_return': 62.5 } }, '20261121-101010-LrScan2-seed1'), Date.now(), 'lr=3e-3');
  assert.match(member.label, /^lr=3e-3 · seed \d+$/);
  assert.match(member.description ?? '', /^return 62\.5 · [\d.]+k? steps · /);
  assert.equal(runSeed(run('unknown', undefined, '20261121-101010-seed7-2')), 7);
});

test('a run whose status.json rlx refused to read says so, and why in its tooltip', () => {
  const refused = describeRun({ ...run('unknown', undefined, 'cloned'), problem: "the run's status (status.json) /w/runs/Balance/cloned/status.json is a symbolic link out of the run folder; rlx reads only the run's own files (delete the link)" });
  assert.equal(refused.description, 'status.json not read');
  assert.equal(refused.icon.id, 'question');
  assert.match(refused.tooltip, /Not read: the run's status \(status\.json\) .* is a symbolic link out of the run folder/);
});

test('a missing count or duration is a dash (the formats themselves: test/shared/format.test.ts)', () => {
  assert.deepEqual([formatCount(NaN), formatDuration(-1)], ['-', '-']);
  assert.equal(latestReturn(run('finished', { metrics: { 'eval/mean_return': Number.NaN, 'train/mean_return': 3 } }))?.kind, 'train');
});

test('an experiment line counts its runs and those running', () => {
  assert.equal(describeExperiment([run('finished', {}), run('running', {})]), '2 runs · 1 running');
  assert.equal(describeExperiment([run('finished', {})]), '1 run');
});

test('a resumed run counts its training time, not the hour it sat stopped', () => {
  // Started 10:10:10, stopped, resumed an hour later, ended 11:12:15; the trainer counted 95 s of training.
  const stopped = run('finished', { status: 'finished', ended: '2026-11-21T11:12:15.000Z', training_seconds: 95 });
  assert.match(describeRun(stopped).description ?? '', / · 1m 35s$/);
  // While running, from the last update on.
  const now = Date.parse('2026-11-21T10:11:50.000Z');
  assert.match(describeRun(run('running', { training_seconds: 40 }), now).description ?? '', / · 50s$/);
});
