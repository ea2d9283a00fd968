// `rlx eval` on runs of a pretrained model (full fine-tuning and LoRA): the run's last policy on
// the task's held-out prompts gives the figures of the run's own last evaluation; a base folder
// changed since the run is refused, naming the file; a checkpoint that does not fit the model
// is a message, not a crash.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../dsl/compile/plan.js';
import { repoRoot } from '../helpers/repo.js';
import { scratch } from './scratch.js';

const SFT_MODEL = path.join(repoRoot(), 'examples/models/addition-sft');
const s = scratch('rlx-eval-pretrained-');

/** A short SFT run (20 updates) on a copy of examples/models/addition-sft, which already adds (held-out accuracy well above 0). */
async function trainRun(lora: boolean): Promise<{ runDir: string; base: string }> {
  const [{ train }, { makePlan }] = await Promise.all([import('../../runtime/train.js'), import('../runtime/helpers.js')]);
  const base = path.join(s.work, `base-${lora ? 'lora' : 'full'}`);
  fs.cpSync(SFT_MODEL, base, { recursive: true });
  const plan: Plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 8 }, algorithm: 'SFT', algorithmParams: { updates: 20, batch_size: 8, learning_rate: 1e-3 } });
  plan.stages[0]!.budget = null;
  plan.policy = { name: 'Sft', kind: 'pretrained', params: { model: base, ...(lora ? { lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] } } : {}) } as never };
  const { runDir } = await train(plan, { out: path.join(s.work, 'runs') });
  return { runDir, base };
}

function lastEval(runDir: string): { step: number; values: Record<string, number> } {
  const events = fs.readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { type: string; step: number; values: Record<string, number> });
  return events.filter((e) => e.type === 'eval').at(-1)!;
}

function evalJson(...args: string[]): Record<string, number> {
  const out = s.rlx('eval', ...args, '--json');
  assert.equal(out.code, 0, out.stderr);
  return JSON.parse(out.stdout) as Record<string, number>;
}

for (const lora of [false, true]) {
  test(`rlx eval on a ${lora ? 'LoRA' : 'full fine-tuning'} run of a pretrained model gives the run's last evaluation`, async () => {
    const { runDir, base } = await trainRun(lora);
    const last = lastEval(runDir);
    assert.ok(last.values['eval/accuracy']! > 0.3, `the run's model adds: ${JSON.stringify(last.values)}`);
    const result = evalJson(runDir);
    assert.equal(result.step, last.step);
    assert.equal(result.prompts, 256);
    for (const key of ['eval/accuracy', 'eval/mean_reward', 'eval/mean_return', 'eval/std_return', 'eval/mean_length']) assert.equal(result[key], last.values[key], key);
    const text = s.rlx('eval', runDir);
    assert.match(text.stdout, new RegExp(`^accuracy ${(100 * last.values['eval/accuracy']!).toFixed(1)}% \\(exact match\\) on 256 held-out prompts of addition\\(digits: 2, pad: true\\), mean reward`));
    // An earlier checkpoint by name; --episodes takes the first N prompts.
    const early = evalJson(runDir, '--checkpoint', path.join(runDir, 'checkpoints', 'policy-80.json'), '--episodes', '16');
    assert.equal(early.step, 80);
    assert.equal(early.prompts, 16);

    // The base's weights damaged in place (one byte of the data): a LoRA run's adapters no longer
    // have their model and the run is refused, naming the file; a full fine-tuning run holds every
    // weight in its checkpoint, never reads the base's, and evaluates as before.
    const weights = path.join(base, 'model.safetensors');
    const bytes = fs.readFileSync(weights);
    bytes[bytes.length - 3]! ^= 0x40;
    fs.writeFileSync(weights, bytes);
    if (lora) {
      for (const command of ['eval', 'generate', 'export']) {
        const extra = command === 'generate' ? ['--prompt-ids', '1,2'] : command === 'export' ? ['--to', path.join(s.work, 'exported')] : [];
        const out = s.rlx(command, runDir, ...extra);
        assert.equal(out.code, 2, out.stderr);
        assert.match(out.stderr, /the base model .*base-lora is not the one this run trained on: model\.safetensors has changed since \(sha256 recorded in .*policy-160\.json\)/);
        assert.doesNotMatch(out.stderr, /\n\s+at /);
      }
    } else {
      assert.deepEqual(evalJson(runDir), result);
      // The tokenizer and config the full run's weights belong to are checked all the same.
      fs.appendFileSync(path.join(base, 'tokenizer_config.json'), '\n');
      const out = s.rlx('eval', runDir);
      assert.equal(out.code, 2, out.stderr);
      assert.match(out.stderr, /tokenizer_config\.json has changed since/);
    }
  });
}

test('a checkpoint whose weights do not fit the base model is a message naming the state file, not a crash', async () => {
  const [{ readRunPolicy, openRunBase, loadRunModel }, { LmWeightsError }] = await Promise.all([import('../../runtime/run-policy.js'), import('../../runtime/lm/load.js')]);
  const { runDir } = await trainRun(true);
  const run = readRunPolicy(runDir);
  const folder = openRunBase(run);
  // The adapters load as the run saved them (no random initialisation drawn and overwritten).
  const lm = loadRunModel(run, folder);
  for (const [name, w] of Object.entries(run.weights)) assert.deepEqual(lm.trainable.get(name).data, w.data, name);
  assert.deepEqual(lm.trainable.names.sort(), Object.keys(run.weights).sort());
  await lm.release();
  const name = 'model.layers.0.self_attn.q_proj.lora_A.weight';
  const wrongShape = { ...run, weights: { ...run.weights, [name]: { shape: [2, 2], data: new Float32Array(4) } } };
  assert.throws(() => loadRunModel(wrongShape, folder), (err: unknown) => err instanceof LmWeightsError && /state-160\.json: weight "model\.layers\.0\.self_attn\.q_proj\.lora_A\.weight" is \[2, 2\], but the model implies \[\d+, 4\]/.test((err as Error).message));
  const { [name]: _gone, ...rest } = run.weights;
  assert.throws(() => loadRunModel({ ...run, weights: rest }, folder), (err: unknown) => err instanceof LmWeightsError && /holds no weight "model\.layers\.0\.self_attn\.q_proj\.lora_A\.weight"/.test((err as Error).message));
});

test('export checks a run\'s record and weights as generate and eval load them: a LoRA rank the checkpoint does not hold, a weight it lacks (issue 43 items 8, 11)', async () => {
  const [{ readRunPolicy, openRunBase, loadRunModel }, { exportPretrained }, { LmWeightsError }] = await Promise.all([
    import('../../runtime/run-policy.js'), import('../../runtime/lm/export.js'), import('../../runtime/lm/load.js'),
  ]);
  const { runDir } = await trainRun(true);
  const run = readRunPolicy(runDir);
  const folder = openRunBase(run);
  const claimsRank = { ...run, manifest: { ...run.manifest, lora: { ...run.manifest.lora!, rank: 1e9 } } };
  const { ['model.layers.1.self_attn.v_proj.lora_B.weight']: _gone, ...rest } = run.weights;
  const lacksWeight = { ...run, weights: rest };
  for (const [bad, message] of [
    [claimsRank, /state-160\.json: weight "model\.layers\.0\.self_attn\.q_proj\.lora_A\.weight" is \[\d+, 4\], but the model implies \[\d+, 1000000000\]/],
    [lacksWeight, /state-160\.json holds no weight "model\.layers\.1\.self_attn\.v_proj\.lora_B\.weight", which the model implies/],
  ] as const) {
    // generate and eval (loadRunModel) and export refuse it alike, at once, and export writes nothing.
    assert.throws(() => loadRunModel(bad, folder), (err: unknown) => err instanceof LmWeightsError && message.test((err as Error).message));
    const to = path.join(s.work, `export-${bad === claimsRank ? 'rank' : 'missing'}`);
    for (const merge of [false, true]) {
      assert.throws(() => exportPretrained(bad.manifest, bad.weights, to, { merge, recordedIn: bad.manifestFile, weightsFile: bad.stateFile }),
        (err: unknown) => err instanceof LmWeightsError && message.test((err as Error).message));
    }
    assert.equal(fs.existsSync(to), false, 'nothing written');
  }
  // The whole run still exports.
  const written = exportPretrained(run.manifest, run.weights, path.join(s.work, 'export-ok'), { merge: false, weightsFile: run.stateFile });
  assert.equal(written.kind, 'adapter');
});

test('rlx eval samples with the sampling controls of the stage its checkpoint was trained in, as the run\'s own evaluations did', async () => {
  const [{ train }, { makePlan }] = await Promise.all([import('../../runtime/train.js'), import('../runtime/helpers.js')]);
  const base = path.join(s.work, 'base-controls');
  fs.cpSync(SFT_MODEL, base, { recursive: true });
  // A stop string that cuts most sums short and a repetition penalty that changes greedy digits:
  // evaluated without them, the figures differ (accuracy well above what a cut sum can reach).
  const plan: Plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 8 }, algorithm: 'GRPO', algorithmParams: { prompts_per_update: 2, group_size: 2, max_new_tokens: 8, learning_rate: 1e-6, stop: ['1'], repetition_penalty: 1.5 }, budget: 8 });
  plan.policy = { name: 'Sft', kind: 'pretrained', params: { model: base } as never };
  plan.eval = { every: 1_000_000, episodes: 4, deterministic: true };
  const { runDir } = await train(plan, { out: path.join(s.work, 'runs-controls') });
  const last = lastEval(runDir);
  const result = evalJson(runDir);
  assert.equal(result.step, last.step);
  for (const key of ['eval/accuracy', 'eval/mean_reward', 'eval/mean_length']) assert.equal(result[key], last.values[key], key);
  assert.ok(last.values['eval/mean_length']! < 2.5, `completions cut at "1": mean length ${last.values['eval/mean_length']}`);
});
