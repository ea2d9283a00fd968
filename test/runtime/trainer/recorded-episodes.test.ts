// The rollout inspector's episodes of the trained policy: one at each evaluation the run goes
// on from, and one of the policy the run leaves, recorded by the trainer for every algorithm
// through the same path (training-run.ts -> the workload's recordPolicy), labelled by what
// they are in the file's header and the rollout event.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { readEvents, type RunEvent } from '../../../runtime/run/events.js';
import { listRollouts, readRollout, type RolloutHeader } from '../../../runtime/run/reader.js';
import { train } from '../../../runtime/train.js';
import { makePlan, tempDir, type PlanOptions } from '../helpers.js';

type RolloutEvent = Extract<RunEvent, { type: 'rollout' }>;

async function runOf(options: PlanOptions) {
  const result = await train(makePlan(options), { out: tempDir(), rolloutEvery: 1024 });
  const events = readEvents(path.join(result.runDir, 'events.jsonl'));
  return { result, events, rollouts: events.filter((e): e is RolloutEvent => e.type === 'rollout') };
}

function header(runDir: string, file: string): RolloutHeader {
  const contents = readRollout(path.join(runDir, file));
  assert.equal(contents.kind, 'episode');
  return contents.header!;
}

describe('recorded episodes of the trained policy', () => {
  for (const algorithm of ['PPO', 'DQN'] as const) {
    it(`${algorithm}: an episode at each evaluation but the last, and the final policy's at the end, deterministic as evaluated`, async () => {
      const params = algorithm === 'DQN' ? { learning_starts: 256, train_every: 64, buffer: 4096 } : { rollout_steps: 128 };
      const { result, events, rollouts } = await runOf({ algorithm, algorithmParams: params, policyParams: { hidden: [16] }, envs: 2, budget: 3072, eval: { every: 1024, episodes: 2, deterministic: true } });
      const evals = events.filter((e) => e.type === 'eval').map((e) => e.step);
      assert.ok(evals.length >= 3, `evaluations at ${evals.join(', ')}`);
      const shown = rollouts.filter((r) => r.recorded !== 'train');
      // The last evaluation is the policy the run leaves: its episode is the final one.
      assert.deepEqual(
        shown.map((r) => [r.recorded, r.step]),
        [...evals.slice(0, -1).map((step) => ['eval', step]), ['final', result.step]],
      );
      for (const r of shown) {
        const h = header(result.runDir, r.file);
        assert.equal(h.recorded, r.recorded);
        assert.equal(h.deterministic, true);
        assert.equal(h.step, r.step);
        assert.equal(path.basename(r.file), `episode-${r.step}-${r.recorded}.jsonl`);
        const contents = readRollout(path.join(result.runDir, r.file));
        assert.equal(contents.kind === 'episode' && contents.steps.length, r.length, 'the event tells the episode length');
        const steps = contents.kind === 'episode' ? contents.steps : [];
        assert.ok(steps.at(-1)!.terminated || steps.at(-1)!.truncated, 'a whole episode');
        assert.equal(steps.reduce((sum, s) => sum + s.env_reward, 0), r.return);
      }
      // Training episodes keep their names and say what they are.
      const trained = rollouts.filter((r) => r.recorded === 'train');
      assert.ok(trained.length > 0);
      for (const r of trained) assert.equal(header(result.runDir, r.file).recorded, 'train');
      // The reader lists them all, in step order, the final one last.
      const listed = listRollouts(result.runDir);
      assert.equal(listed.length, rollouts.length);
      assert.deepEqual(listed.at(-1), { file: path.join(result.runDir, 'rollouts', `episode-${result.step}-final.jsonl`), step: result.step, recorded: 'final' });
    });
  }

  it('a run without evaluations still records its final policy (deterministic), and one its stop condition ends too', async () => {
    const { result, rollouts } = await runOf({ budget: 1024, envs: 2, algorithmParams: { rollout_steps: 128 } });
    assert.deepEqual(
      rollouts.filter((r) => r.recorded !== 'train').map((r) => [r.recorded, r.step]),
      [['final', result.step]],
    );
    const stopped = await runOf({ budget: 8192, envs: 2, algorithmParams: { rollout_steps: 128 }, eval: { every: 512, episodes: 2, deterministic: true }, stop: { op: '>=', args: [{ ref: 'eval.mean_return' }, { const: 0 }] } });
    assert.match(stopped.result.reason, /^stop condition/);
    const shown = stopped.rollouts.filter((r) => r.recorded !== 'train');
    assert.deepEqual(shown.map((r) => [r.recorded, r.step]), [['final', stopped.result.step]], 'the evaluation that met the stop shows as the final policy');
  });

  it('episode files of earlier versions (no `recorded`) still list and read, as training episodes', () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'rollouts'));
    const file = path.join(dir, 'rollouts', 'episode-0.jsonl');
    fs.writeFileSync(file, '{"type":"header","env":"CartPole","obs_fields":["x"],"action":{"kind":"discrete","n":2},"terms":[],"step":0}\n{"type":"step","t":0,"obs":[0],"action":1,"reward":1,"env_reward":1,"terminated":true,"truncated":false}\n');
    assert.deepEqual(listRollouts(dir), [{ file, step: 0, recorded: 'train' }]);
    const contents = readRollout(file);
    assert.equal(contents.kind, 'episode');
    assert.equal(contents.header?.recorded, undefined);
  });
});
