// Multi-stage text experiments (runtime/train-text.ts): SFT then GRPO in one run on one model.
// The second stage starts from the weights the first left, steps continue across stages,
// every event names its stage, each stage ends with a held-out evaluation, and a run stopped
// inside a stage resumes inside it and ends exactly where an uninterrupted run ends.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { readEvents } from '../../../runtime/run/events.js';
import { RunDirectory } from '../../../runtime/run/run-dir.js';
import { resume, train } from '../../../runtime/train.js';
import { makePlan, tempDir } from '../helpers.js';

function stagedPlan(sftUpdates: number): Plan {
  const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'reverse', len: 3 }, max_tokens: 3 } });
  return {
    ...plan,
    policy: { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 32, heads: 2, context: 16 } },
    stages: [
      { name: 'warmup', algorithm: { name: 'SFT', kind: 'SFT', params: { updates: sftUpdates, batch_size: 32, learning_rate: 3e-3 } }, budget: null },
      { name: 'main', algorithm: { name: 'Grpo', kind: 'GRPO', params: { group_size: 8, prompts_per_update: 8, learning_rate: 1e-4 } }, budget: 640 },
    ],
  };
}

describe('stages', () => {
  it('SFT then GRPO: the weights pass on, steps continue, events and status.json name the stage, each stage is evaluated', async () => {
    const result = await train(stagedPlan(150), { out: tempDir() });
    assert.equal(result.step, 150 * 32 + 640);
    const events = readEvents(path.join(result.runDir, 'events.jsonl'));
    const metrics = events.filter((e) => e.type === 'metrics');
    assert.deepEqual([...new Set(metrics.map((e) => e.stage))], ['warmup', 'main']);
    const grpo = metrics.filter((e) => e.stage === 'main');
    assert.deepEqual(grpo.map((e) => e.step), Array.from({ length: 10 }, (_, i) => 4800 + 64 * (i + 1)));
    // An untrained model writes almost no right answer; after the warm-up most sampled ones are.
    assert.ok(grpo[0]!.values['train/accuracy']! > 0.5, `GRPO starts from the warmed-up weights: ${grpo[0]!.values['train/accuracy']}`);
    const evals = events.filter((e) => e.type === 'eval');
    assert.deepEqual(evals.map((e) => [e.stage, e.step]), [['warmup', 4800], ['main', 5440]]);
    assert.deepEqual(events.filter((e) => e.type === 'hparams').map((e) => [e.stage, e.algorithm]), [['warmup', 'SFT'], ['main', 'GRPO']]);
    assert.deepEqual(RunDirectory.readStatus(result.runDir)!.stage, { name: 'main', index: 1, count: 2, algorithm: 'GRPO' });
    // status.json keeps the last stage's metrics (and the evaluations), not SFT's stale ones.
    const latest = RunDirectory.readStatus(result.runDir)!.metrics;
    for (const key of ['losses/sft_loss', 'train/token_accuracy', 'charts/tokens']) assert.equal(latest[key], undefined, key);
    assert.equal(typeof latest['losses/kl'], 'number');
    assert.equal(latest['eval/accuracy'], evals.at(-1)!.values['eval/accuracy']);
    // Steps per second are the stage's own: GRPO's first update is not averaged over SFT's time (the ETA follows it).
    const started = events[0]!.time;
    const firstGrpo = grpo[0]!;
    const overTheRun = (firstGrpo.step - 4800) / (firstGrpo.time - started);
    assert.ok(firstGrpo.values['charts/sps']! > 3 * overTheRun, `GRPO's first sps ${firstGrpo.values['charts/sps']} against ${overTheRun} over the whole run`);

    // The rollout inspector's files: GRPO batches, group by group, with each sample's verdict and advantage.
    const rollouts = events.filter((e) => e.type === 'rollout');
    assert.ok(rollouts.length > 0 && rollouts.every((e) => e.stage === 'main' && (e.step as number) >= 4800));
    const lines = fs.readFileSync(path.join(result.runDir, rollouts[0]!.file as string), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual([lines[0].type, lines[0].kind, lines[0].algorithm, lines[0].group_size, lines[0].step], ['header', 'text', 'GRPO', 8, rollouts[0]!.step]);
    const groups = lines.slice(1);
    assert.equal(groups.length, 8);
    for (const group of groups) {
      assert.equal(group.samples.length, 8);
      for (const sample of group.samples) {
        assert.equal(sample.correct, sample.text === group.target, `${sample.text} for ${group.start} (target ${group.target})`);
        assert.equal(sample.reward, sample.terms.exact);
      }
      // group_std advantages: relative to the group's mean, so they sum to zero.
      const sum = group.samples.reduce((s: number, x: { advantage: number }) => s + x.advantage, 0);
      assert.ok(Math.abs(sum) < 1e-3, `advantages of ${group.start} sum to ${sum}`);
    }

    // The final policy's greedy answers on the held-out prompts, as its last evaluation scored them.
    const final = rollouts.filter((e) => e.recorded === 'final');
    assert.deepEqual(final.map((e) => [e.step, e.file]), [[5440, 'rollouts/episode-5440-final.jsonl']]);
    const [head, ...answers] = fs.readFileSync(path.join(result.runDir, final[0]!.file as string), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual([head.kind, head.recorded, head.deterministic, head.group_size, head.algorithm, head.stage, head.step], ['text', 'final', true, 1, 'GRPO', 'main', 5440]);
    const lastEval = evals.at(-1)!;
    assert.equal(answers.length, (lastEval.returns as number[]).length, 'one group per held-out prompt');
    assert.deepEqual(answers.map((g) => g.samples[0].reward), lastEval.returns, 'the answers the evaluation scored');
    assert.equal(answers.filter((g) => g.samples[0].correct).length / answers.length, lastEval.values['eval/accuracy']);
    for (const group of answers) {
      assert.equal(group.samples.length, 1);
      assert.equal(group.samples[0].correct, group.samples[0].text.trim() === group.target, `${group.samples[0].text} for ${group.start}`);
      assert.equal(group.samples[0].advantage, undefined, 'nothing was trained on it');
    }
    assert.equal(final[0]!.length, answers.length);
  });

  it('a run stopped inside the second stage resumes there and ends where an uninterrupted run ends', async () => {
    const whole = await train(stagedPlan(20), { out: tempDir() });
    const controller = new AbortController();
    const stopped = await train(stagedPlan(20), {
      out: tempDir(),
      signal: controller.signal,
      onProgress: (p) => p.step >= 640 + 192 && controller.abort(),
    });
    assert.equal(stopped.status, 'stopped');
    assert.equal(stopped.step, 640 + 192);
    assert.equal(RunDirectory.readStatus(stopped.runDir)!.stage!.name, 'main');
    const resumed = await resume(stopped.runDir);
    assert.equal(resumed.status, 'finished');
    assert.equal(resumed.step, whole.step);
    const steps = (dir: string) => readEvents(path.join(dir, 'events.jsonl')).filter((e) => e.type === 'metrics').map((e) => [e.stage, e.step]);
    assert.deepEqual(steps(stopped.runDir), steps(whole.runDir));
    for (const name of ['eval/accuracy', 'train/mean_reward', 'losses/kl']) {
      assert.equal(resumed.metrics[name], whole.metrics[name], `${name} after resuming equals the uninterrupted run's`);
    }
  });
});
