// The Runs view's sweeps: runs of one sweep gather under it, in member order, each labelled by the
// values it varies; runs of the plain experiment stay beside them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupBySweep, membershipOf } from '../../../extension/runs/sweeps.js';
import type { RunInfo } from '../../../runtime/run/reader.js';

const run = (runId: string, seed: number): RunInfo => ({
  dir: `/w/runs/Balance/${runId}`,
  experiment: 'Balance',
  runId,
  state: 'finished',
  status: { seed } as RunInfo['status'],
});

type Sweep = { name: string; index: number; count: number; values: Record<string, unknown> };
const plans: Record<string, { sweep: Sweep | null } | undefined> = {};
const read = (dir: string) => plans[dir] as never;

test("a sweep's runs gather under it in member order, labelled by what they vary; the others stay apart", () => {
  const runs = [run('20261126-0100-LrScan1-seed2', 2), run('20261126-0000-seed1', 1), run('20261126-0100-LrScan0-seed1', 1), run('20261126-0100-LrScan1-seed1', 1), run('20261126-0200-Arch0-seed1', 1)];
  const sweep = (name: string, index: number, values: Record<string, unknown>) => ({ sweep: { name, index, count: 2, values } });
  plans[runs[0].dir] = sweep('LrScan', 1, { 'algorithm.learning_rate': { schedule: 'constant', value: 3e-3 } });
  plans[runs[1].dir] = { sweep: null };
  plans[runs[2].dir] = sweep('LrScan', 0, { 'algorithm.learning_rate': { schedule: 'constant', value: 3e-4 } });
  plans[runs[3].dir] = sweep('LrScan', 1, { 'algorithm.learning_rate': { schedule: 'constant', value: 3e-3 } });
  plans[runs[4].dir] = sweep('Arch', 0, { 'policy.hidden': [64, 64], 'algorithm.epochs': 4 });

  const grouped = groupBySweep(runs, (r) => membershipOf(r, read));
  assert.deepEqual(grouped.sweeps.map((s) => [s.name, s.runs.map((r) => r.runId)]), [
    ['Arch', ['20261126-0200-Arch0-seed1']],
    ['LrScan', ['20261126-0100-LrScan0-seed1', '20261126-0100-LrScan1-seed1', '20261126-0100-LrScan1-seed2']],
  ]);
  assert.deepEqual(grouped.single.map((r) => r.runId), ['20261126-0000-seed1']);
  assert.equal(membershipOf(runs[2], read)?.label, 'lr=3e-4');
  assert.equal(membershipOf(runs[4], read)?.label, 'policy.hidden=[64, 64], epochs=4');
});

test('a run whose plan.json is not there yet is asked about again, not remembered as no member', () => {
  const late = run('20261126-0300-Late0-seed1', 1);
  assert.equal(membershipOf(late, read), undefined);
  plans[late.dir] = { sweep: { name: 'Late', index: 0, count: 1, values: { envs: 8 } } };
  assert.deepEqual(membershipOf(late, read), { sweep: 'Late', index: 0, label: 'envs=8' });
});
