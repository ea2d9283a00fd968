// Text experiments through train() (runtime/train-text.ts) and `rlx eval`: the run directory of
// an SFT run (events and status.json naming the stage, the exported token model), the saved
// model evaluated by plain onnxruntime giving the trainer's accuracy, and plans that cannot run
// refused before any directory exists.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { readEvents } from '../../../runtime/run/events.js';
import { RunDirectory } from '../../../runtime/run/run-dir.js';
import { PlanError, train } from '../../../runtime/train.js';
import { repoRoot } from '../../helpers/repo.js';
import { makePlan, tempDir } from '../helpers.js';

const TINY = { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 32, heads: 2, context: 16 } };

function reversePlan(stages: Plan['stages']): Plan {
  const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'reverse', len: 3 }, max_tokens: 3 } });
  return { ...plan, policy: TINY, stages };
}

const sft = (name: string, updates: number, budget: number | null = null): Plan['stages'][number] => ({
  name,
  algorithm: { name: 'SFT', kind: 'SFT', params: { updates, batch_size: 32, learning_rate: 3e-3 } },
  budget,
});

describe('text runs', () => {
  it('an SFT run writes its stage into events and status.json, and rlx eval gets the same held-out accuracy from the saved model', async () => {
    const out = tempDir();
    const result = await train(reversePlan([sft('warmup', 40)]), { out, checkpointEvery: 640 });
    assert.equal(result.status, 'finished');
    const events = readEvents(path.join(result.runDir, 'events.jsonl'));
    for (const type of ['metrics', 'eval', 'checkpoint', 'hparams']) {
      const some = events.filter((e) => e.type === type);
      assert.ok(some.length > 0 && some.every((e) => e.stage === 'warmup'), `${type} events name the stage`);
    }
    const status = RunDirectory.readStatus(result.runDir)!;
    assert.deepEqual(status.stage, { name: 'warmup', index: 0, count: 1, algorithm: 'SFT' });
    assert.equal(status.budget, 40 * 32);
    assert.ok(fs.existsSync(path.join(result.runDir, 'checkpoints', 'policy-final.onnx')));
    const accuracy = result.metrics['eval/accuracy']!;
    assert.ok(accuracy > 0.2, `40 updates learn some of it: ${accuracy}`);

    const evaluated = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), 'eval', result.runDir, '--json'], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(evaluated.status, 0, evaluated.stderr);
    const json = JSON.parse(evaluated.stdout);
    assert.equal(json.prompts, 256);
    assert.equal(json['eval/accuracy'], accuracy, 'onnxruntime stepping the exported model writes the completions the trainer wrote');
    const text = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), 'eval', result.runDir, '--episodes', '10'], { encoding: 'utf8', timeout: 120_000 });
    assert.match(text.stdout, /^accuracy \d+\.\d% \(exact match\) on 10 held-out prompts of reverse\(len: 3\), mean reward \d\.\d{3} \(.*policy-final\.onnx, greedy\)\n$/);
    // More than the held-out set: all of it, and a line that says why not more.
    const more = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), 'eval', result.runDir, '--episodes', '400'], { encoding: 'utf8', timeout: 120_000 });
    assert.match(more.stdout, /^accuracy \d+\.\d% \(exact match\) on 256 held-out prompts/);
    assert.equal(more.stderr, 'rlx eval: --episodes 400, but reverse(len: 3) has 256 held-out prompts; a text policy is evaluated greedily, once on each (a repeated one gets the same answer)\n');
  });

  it('refuses, before any run directory exists: a numeric algorithm on text, a context too short, an mlp policy, a stage that needs a budget', async () => {
    const out = tempDir();
    const refused = async (plan: Plan, pattern: RegExp) => {
      await assert.rejects(train(plan, { out }), (err: Error) => pattern.test(err.message), `${pattern}`);
      assert.deepEqual(fs.readdirSync(out), []);
    };
    await refused({ ...reversePlan([sft('main', 5)]), stages: [{ name: 'main', algorithm: { name: 'A', kind: 'PPO', params: {} }, budget: 1000 }] }, /PPO does not train on text actions \(TextTask\)/);
    await refused({ ...reversePlan([sft('main', 5)]), policy: { ...TINY, params: { ...TINY.params, context: 6 } } }, /context of 7 tokens.*raise `context` to at least 7/);
    await refused({ ...reversePlan([sft('main', 5)]), policy: { name: 'Net', kind: 'mlp', params: {} } }, /policy Net \(mlp\) cannot write text: TextTask needs a transformer or pretrained policy/);
    const ppoStage = { name: 'main', algorithm: { name: 'P', kind: 'PPO', params: {} }, budget: null };
    await assert.rejects(train({ ...makePlan(), stages: [ppoStage] }, { out }), (err: Error) => err instanceof PlanError && /stage main has no budget: PPO needs one/.test(err.message));
  });
});
