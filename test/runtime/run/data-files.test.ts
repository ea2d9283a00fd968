// The data files a plan's `file` settings name, kept in the run folder (runtime/run/data-files.ts,
// docs/run-directory.md#data): every stage's file is copied into data/ under a stable name and
// listed with its sha256, whichever algorithm names it; each algorithm is handed its own; and a
// resume reads the copies, refusing one that is not what the run trained on.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { readEvents } from '../../../runtime/run/events.js';
import { DATA_MANIFEST } from '../../../runtime/run/data-files.js';
import { resume, train } from '../../../runtime/train.js';
import { isInputError } from '../../../shared/input-error.js';
import { makePlan, tempDir } from '../helpers.js';

const DEMOS = Array.from({ length: 10 }, (_, a) => JSON.stringify({ prompt: `${a}+${9 - a}=`, target: '9' })).join('\n') + '\n';
const OTHER = Array.from({ length: 10 }, (_, a) => JSON.stringify({ prompt: `${a}+0=`, target: `${a}` })).join('\n') + '\n';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** SFT from one file, then GRPO with another as its sft_data, on one-digit sums with a tiny token model. */
function twoStages(sft = 'demos.jsonl', grpo = 'more/other.jsonl'): Plan {
  const p = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 1 }, max_tokens: 3 } });
  p.policy = { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 16, heads: 2, context: 16 } };
  p.stages = [
    { name: 'warm', algorithm: { name: 'SFT', kind: 'SFT', params: { data: sft, updates: 3, batch_size: 4 } }, budget: null },
    { name: 'rl', algorithm: { name: 'GRPO', kind: 'GRPO', params: { group_size: 2, prompts_per_update: 2, sft_data: grpo, sft_batch_size: 4 } }, budget: 8 },
  ];
  return p;
}

function project(): string {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'demos.jsonl'), DEMOS);
  fs.mkdirSync(path.join(dir, 'more'));
  fs.writeFileSync(path.join(dir, 'more', 'other.jsonl'), OTHER);
  return dir;
}

const rejectsAsInput = async (promise: Promise<unknown>, pattern: RegExp) =>
  assert.rejects(promise, (err: Error) => {
    assert.ok(isInputError(err), `${err.name}: ${err.message}`);
    assert.match(err.message, pattern);
    return true;
  });

test('each stage\'s file is copied into data/ under its stage and setting, listed with its sha256, and named in the stage\'s hparams', async () => {
  const { runDir } = await train(twoStages(), { out: tempDir(), baseDir: project() });
  const manifest = JSON.parse(fs.readFileSync(path.join(runDir, DATA_MANIFEST), 'utf8'));
  assert.deepEqual(manifest, { files: [
    { stage: 'warm', param: 'data', path: 'demos.jsonl', file: 'data/warm.data.jsonl', sha256: sha256(DEMOS), bytes: DEMOS.length },
    { stage: 'rl', param: 'sft_data', path: 'more/other.jsonl', file: 'data/rl.sft_data.jsonl', sha256: sha256(OTHER), bytes: OTHER.length },
  ] });
  assert.equal(fs.readFileSync(path.join(runDir, 'data', 'warm.data.jsonl'), 'utf8'), DEMOS);
  assert.equal(fs.readFileSync(path.join(runDir, 'data', 'rl.sft_data.jsonl'), 'utf8'), OTHER);
  const hparams = readEvents(path.join(runDir, 'events.jsonl')).filter((e) => e.type === 'hparams').map((e) => [e.stage, (e.values as Record<string, unknown>).data_files]);
  assert.deepEqual(hparams, [
    ['warm', { data: { path: 'demos.jsonl', file: 'data/warm.data.jsonl', sha256: sha256(DEMOS) } }],
    ['rl', { sft_data: { path: 'more/other.jsonl', file: 'data/rl.sft_data.jsonl', sha256: sha256(OTHER) } }],
  ]);
});

test('a resume reads the run\'s copies, and refuses a copy changed since, before anything is written', async () => {
  const baseDir = project();
  const controller = new AbortController();
  const stopped = await train(twoStages(), { out: tempDir(), baseDir, signal: controller.signal, onProgress: () => controller.abort() });
  assert.equal(stopped.status, 'stopped');
  fs.rmSync(path.join(baseDir, 'demos.jsonl'));
  fs.rmSync(path.join(baseDir, 'more'), { recursive: true });

  const copy = path.join(stopped.runDir, 'data', 'warm.data.jsonl');
  fs.writeFileSync(copy, DEMOS.replace('"9"', '"8"'));
  const events = fs.readFileSync(path.join(stopped.runDir, 'events.jsonl'), 'utf8');
  await rejectsAsInput(resume(stopped.runDir), /warm\.data\.jsonl is not the file the run trained on \(its sha256 is not the one data\/files\.json records for stage warm's data\); restore it/);
  assert.equal(fs.readFileSync(path.join(stopped.runDir, 'events.jsonl'), 'utf8'), events, 'nothing written');

  fs.writeFileSync(copy, DEMOS);
  const resumed = await resume(stopped.runDir);
  assert.equal(resumed.status, 'finished');
});

test('a record naming a copy outside data/, or none for a stage\'s file, is refused', async () => {
  const { runDir } = await train(twoStages(), { out: tempDir(), baseDir: project() });
  const manifest = path.join(runDir, DATA_MANIFEST);
  const record = JSON.parse(fs.readFileSync(manifest, 'utf8'));
  fs.writeFileSync(path.join(runDir, 'status.json'), fs.readFileSync(path.join(runDir, 'status.json'), 'utf8').replace('"finished"', '"stopped"'));
  fs.writeFileSync(manifest, JSON.stringify({ files: [{ ...record.files[0], file: 'data/../plan.json' }, record.files[1]] }));
  await rejectsAsInput(resume(runDir), /data\/files\.json is not a record of the run's data files/);
  fs.writeFileSync(manifest, JSON.stringify({ files: [record.files[1]] }));
  await rejectsAsInput(resume(runDir), /data\/files\.json lists no copy of stage warm's data "demos\.jsonl"/);
});

test('a file the plan names is refused before a run folder is made: not there, outside the folder, or no folder given', async () => {
  const out = tempDir();
  await rejectsAsInput(train(twoStages('gone.jsonl'), { out, baseDir: project() }), /^stage warm: data "gone\.jsonl": cannot read the data file .*gone\.jsonl: no such file/);
  await rejectsAsInput(train(twoStages('demos.jsonl', '../other.jsonl'), { out, baseDir: project() }), /^stage rl: sft_data "\.\.\/other\.jsonl": the file is outside the folder of the \.rlx file/);
  await rejectsAsInput(train(twoStages(), { out }), /^stage warm: data "demos\.jsonl": the path is relative to the folder of the \.rlx file, which this run was not given/);
  assert.deepEqual(fs.readdirSync(out), []);
});
