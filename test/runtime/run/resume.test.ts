// What a resume keeps and what it checks: status.json's figures and the checkpoint interval
// carry over; a plan.json edited since the run started is refused; a damaged newest
// checkpoint (cut short, edited, its policy file missing) is passed over for the newest intact
// one, and the trainer says so.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { isInputError } from '../../../shared/input-error.js';
import { readEvents } from '../../../runtime/run/events.js';
import { resume, ResumeError, train } from '../../../runtime/train.js';
import { makeFifo, makeLink } from '../../helpers/hostile-files.js';
import { makePlan, tempDir } from '../helpers.js';

/** A run with eval every 1024 steps and a checkpoint every 512, stopped at step 1536 of 3072. */
async function stoppedRun(): Promise<string> {
  const controller = new AbortController();
  const result = await train(makePlan({ budget: 3072, eval: { every: 1024, episodes: 2, deterministic: true } }), {
    out: tempDir(),
    checkpointEvery: 512,
    signal: controller.signal,
    onProgress: (p) => p.step >= 1536 && controller.abort(),
  });
  assert.equal(result.status, 'stopped');
  assert.equal(result.step, 1536);
  return result.runDir;
}

const checkpointSteps = (dir: string) => readEvents(path.join(dir, 'events.jsonl')).filter((e) => e.type === 'checkpoint').map((e) => e.step);
const stateFile = (dir: string, step: number) => path.join(dir, 'checkpoints', `state-${step}.json`);

describe('resume()', () => {
  it("keeps status.json's step, eval figures and the run's checkpoint interval", async () => {
    const dir = await stoppedRun();
    let atStart: Record<string, number> = {};
    let stepAtStart = -1;
    const result = await resume(dir, {
      onStart: () => {
        const status = JSON.parse(fs.readFileSync(path.join(dir, 'status.json'), 'utf8'));
        atStart = status.metrics;
        stepAtStart = status.step;
      },
    });
    // Not the stage's start (0) until the first update writes status.json again.
    assert.equal(stepAtStart, 1536);
    assert.equal(typeof atStart['eval/mean_return'], 'number', `status.json at the resume: ${JSON.stringify(atStart)}`);
    assert.equal(typeof atStart['train/mean_return'], 'number');
    assert.equal(result.status, 'finished');
    assert.deepEqual(checkpointSteps(dir), [512, 1024, 1536, 1536, 2048, 2560, 3072], 'every 512 steps before the stop and after the resume');
  });

  it('refuses a plan.json edited since the run started', async () => {
    const dir = await stoppedRun();
    const planFile = path.join(dir, 'plan.json');
    const plan = JSON.parse(fs.readFileSync(planFile, 'utf8'));
    plan.stages[0].algorithm.params.learning_rate = 0.1;
    fs.writeFileSync(planFile, JSON.stringify(plan, null, 2));
    await assert.rejects(resume(dir), (err: unknown) => err instanceof ResumeError && err.message.startsWith(`${planFile} was changed after the run started (its checkpoints were written for another plan); a resume continues the run as planned`));
    assert.ok(!fs.existsSync(path.join(dir, 'run.lock')), 'the refusal releases the lock');
  });

  it('passes over damaged newest checkpoints for the newest intact one, and says which and why', async () => {
    const dir = await stoppedRun();
    // 1536: cut in half.
    const newest = fs.readFileSync(stateFile(dir, 1536), 'utf8');
    fs.writeFileSync(stateFile(dir, 1536), newest.slice(0, newest.length / 2));
    // 1024: a weight array cut to half its length, the JSON still valid.
    const edited = JSON.parse(fs.readFileSync(stateFile(dir, 1024), 'utf8'));
    const weights = edited.algorithmState.weights as Record<string, { data: { f32: string } }>;
    const first = Object.values(weights)[0].data;
    first.f32 = Buffer.from(first.f32, 'base64').subarray(0, Buffer.from(first.f32, 'base64').length / 2).toString('base64');
    fs.writeFileSync(stateFile(dir, 1024), JSON.stringify(edited));

    const logged: string[] = [];
    const result = await resume(dir, { log: (m) => logged.push(m) });
    assert.equal(result.status, 'finished');
    assert.match(logged[0], /^resumed from checkpoint at step 512$/);
    assert.match(logged[1], /state-1536\.json is not valid JSON: .*; resuming from the checkpoint at step 512 instead$/);
    assert.match(logged[2], /state-1024\.json is damaged: its algorithm state does not match the checksum written with it; resuming from the checkpoint at step 512 instead$/);
    const warnings = readEvents(path.join(dir, 'events.jsonl')).filter((e) => e.type === 'log' && e.level === 'warn');
    assert.equal(warnings.length, 2);
  });

  it('tells a weight array cut short in a state without a checksum, and a missing policy file', async () => {
    const dir = await stoppedRun();
    const edited = JSON.parse(fs.readFileSync(stateFile(dir, 1536), 'utf8'));
    delete edited.algorithmSha256;
    const [name, param] = Object.entries(edited.algorithmState.weights as Record<string, { shape: number[]; data: { f32: string } }>)[0];
    const bytes = Buffer.from(param.data.f32, 'base64');
    param.data.f32 = bytes.subarray(0, bytes.length / 2).toString('base64');
    fs.writeFileSync(stateFile(dir, 1536), JSON.stringify(edited));
    fs.rmSync(path.join(dir, 'checkpoints', 'policy-1024.onnx'));

    const logged: string[] = [];
    await resume(dir, { log: (m) => logged.push(m) });
    const size = param.shape.reduce((a, b) => a * b, 1);
    assert.ok(logged[1].endsWith(`state-1536.json is damaged: weights.${name} holds ${size / 2} numbers, but its shape [${param.shape.join(', ')}] needs ${size}; resuming from the checkpoint at step 512 instead`), logged[1]);
    assert.match(logged[2], /state-1024\.json is damaged: its policy file policy-1024\.onnx is missing; resuming from the checkpoint at step 512 instead$/);
  });

  it('refuses a run whose checkpoints are all damaged, listing them', async () => {
    const dir = await stoppedRun();
    for (const step of [512, 1024, 1536]) fs.writeFileSync(stateFile(dir, step), '{');
    await assert.rejects(resume(dir), (err: unknown) => err instanceof ResumeError && /has no intact checkpoint to resume from:\n {2}.*state-1536\.json is not valid JSON.*\n {2}.*state-1024.*\n {2}.*state-512/.test(err.message));
  });

  it('refuses a run whose checkpoint files are FIFOs or links, at once, naming the first: a resume writes into the folder (issue 43)', { timeout: 120_000 }, async () => {
    const dir = await stoppedRun();
    const policy = path.join(dir, 'checkpoints', 'policy-1024.onnx');
    fs.rmSync(policy);
    makeLink(policy, '/dev/zero');
    await assert.rejects(resume(dir), (err: unknown) => err instanceof ResumeError && /policy-1024\.onnx is a symbolic link \(to \/dev\/zero\)/.test((err as Error).message));
    fs.rmSync(policy);
    fs.rmSync(stateFile(dir, 1536));
    makeFifo(stateFile(dir, 1536));
    await assert.rejects(resume(dir), (err: unknown) => err instanceof ResumeError && /state-1536\.json is not a regular file \(a FIFO, device or socket\)/.test((err as Error).message));
    assert.ok(!fs.existsSync(path.join(dir, 'run.lock')), 'nothing held');
    // Without them, the policy-1024 the link stood for is missing: its checkpoint is passed over as damaged.
    fs.rmSync(stateFile(dir, 1536));
    const logged: string[] = [];
    const result = await resume(dir, { log: (m) => logged.push(m) });
    assert.equal(result.status, 'finished');
    assert.match(logged[0], /^resumed from checkpoint at step 512$/);
  });

  it("refuses a run whose plan.json or bundled files are a FIFO or a link to /dev/zero, at once, naming the file", { timeout: 120_000 }, async () => {
    const dir = await stoppedRun();
    const plan = path.join(dir, 'plan.json');
    fs.renameSync(plan, `${plan}.saved`);
    for (const make of [makeFifo, (f: string) => makeLink(f, '/dev/zero')]) {
      make(plan);
      // A ResumeError: rlx train prints it and exits 2.
      await assert.rejects(resume(dir), (err: unknown) => err instanceof ResumeError && isInputError((err as Error).cause) && /^the run's plan \(plan\.json\) .*plan\.json (is not a regular file|is a symbolic link out of the run folder)/.test((err as Error).message));
      fs.rmSync(plan);
    }
    fs.renameSync(`${plan}.saved`, plan);
    assert.ok(!fs.existsSync(path.join(dir, 'run.lock')), 'nothing held');
  });
});
