// Text environments of the user's own (runtime/text/module-dialogue.ts, envs/module-text-env.ts):
// a module whose spec says actions: 'text' runs in its worker as dialogues, each result checked
// against its spec, copies reused across batches; and examples/calculator-tool.ts (a calculator
// the agent may call) trains through train(): an SFT warm-up on its expert, then RLOO, resumed
// from the module bundled in the run directory.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { readEvents } from '../../../runtime/run/events.js';
import { RunDirectory } from '../../../runtime/run/run-dir.js';
import { Rng } from '../../../shared/random.js';
import { loadEnvModule, type LoadedEnvModule } from '../../../runtime/envs/user-module.js';
import { DialogueEnvironment } from '../../../runtime/text/dialogue-env.js';
import { runDialogues } from '../../../runtime/text/dialogue.js';
import { ModuleDialogueEnv } from '../../../runtime/text/module-dialogue.js';
import { resume, train } from '../../../runtime/train.js';
import { TextWorkload } from '../../../runtime/trainer/text-workload.js';
import { makePlan, tempDir } from '../helpers.js';
import { repoRoot } from '../../helpers/repo.js';

const work = tempDir('rlx-text-module-');
const loaded: LoadedEnvModule[] = [];
after(() => loaded.forEach((m) => m.close()));

function write(name: string, text: string): string {
  const file = path.join(work, name);
  fs.writeFileSync(file, text);
  return file;
}

async function load(file: string, params: Record<string, unknown> = {}): Promise<LoadedEnvModule> {
  const module = await loadEnvModule(file, params, { name: 'Echo' });
  loaded.push(module);
  return module;
}

/** A text env whose `body` fills in step(); its openings say how many copies were made so far. */
function echoModule(name: string, body: string, spec = "{ actions: 'text', max_turns: 2, max_observation: 6, max_action: 4, alphabet: 'abcdefghij0123456789' }"): string {
  return write(name, `
export const spec = ${spec};
let made = 0;
export default class Echo {
  constructor() { made++; }
  reset(seed) { this.seed = seed; return { observation: String(made), info: {} }; }
  step(text) { ${body} }
  expert() { return 'ab'; }
}
`);
}

describe('a text env module', () => {
  it('runs as dialogues: the opening from reset(seed), replies from step(text), the expert from expert(); copies are made as needed and reused', async () => {
    const module = await load(echoModule('echo.ts', "return { observation: text.slice(0, 6), reward: text === 'ab' ? 1 : 0, done: text === 'ab', info: { success: text === 'ab' } };"));
    assert.deepEqual(module.text!.info.bounds, { maxTurns: 2, maxObservation: 6, maxAction: 4, alphabet: 'abcdefghij0123456789' });
    const env = new ModuleDialogueEnv(module.text!, {}, 'Echo = module("./echo.ts")');
    const rows = new DialogueEnvironment(env, 'module');
    // Four at once need four copies (the probe made one more, in the worker: the counter says 1 + copies).
    const first = Array.from({ length: 4 }, (_, i) => env.start(new Rng(i)));
    assert.deepEqual(first.map((d) => d.opening), ['2', '3', '4', '5']);
    const batch = await runDialogues(first, rows.tokenizer, rows.layout, { expert: true });
    assert.deepEqual([...batch.returns], [1, 1, 1, 1]);
    assert.deepEqual([...batch.success], [1, 1, 1, 1]);
    assert.deepEqual(batch.transcripts[0], [['user', '2'], ['assistant', 'ab']]);
    // Those dialogues are over: the next four reuse their copies (no new ones are made).
    const again = Array.from({ length: 4 }, (_, i) => env.start(new Rng(i)));
    assert.deepEqual(again.map((d) => d.opening), ['5', '5', '5', '5']);
    const d = again[0]!;
    assert.deepEqual(d.turn('cd'), { observation: 'cd', reward: 0, done: false, success: false, info: {} });
    assert.deepEqual(d.turn('ef'), { observation: 'ef', reward: 0, done: false, success: false, info: {} });
    assert.throws(() => d.turn('gh'), /took a turn after it ended/, 'max_turns ends a dialogue');
  });

  it('a result outside its spec, a throw, a missing method or a wrong spec fails with what to fix', async () => {
    const long = await load(echoModule('long.ts', "return { observation: text === 'ab' ? 'a' : 'abcdefghij', reward: 0, done: false, info: {} };"));
    const env = new ModuleDialogueEnv(long.text!, {}, 'Long');
    assert.throws(() => env.start(new Rng(1)).turn('a'), /env Echo, copy \d+: .*long\.ts: step\(\) returned "abcdefghij", 10 characters, but spec\.max_observation is 6; raise max_observation or write less/);
    const stray = await load(echoModule('stray.ts', "return { observation: text === 'ab' ? 'a' : 'A!', reward: 0, done: false, info: {} };"));
    assert.throws(() => new ModuleDialogueEnv(stray.text!, {}, 'Stray').start(new Rng(1)).turn('a'), /step\(\) returned "A!", with "A", which is not in spec\.alphabet; add it there/);
    const throws = await load(echoModule('throws.ts', "if (text !== 'ab') throw new Error('no tool ' + text); return { observation: '', reward: 0, done: true, info: {} };"));
    assert.throws(() => new ModuleDialogueEnv(throws.text!, {}, 'Throws').start(new Rng(1)).turn('zz'), /throws\.ts: step\(\) threw: no tool zz/);
    // Checked when the module loads, before any training: its probe calls reset, expert and step.
    await assert.rejects(load(echoModule('shape.ts', "return { observation: 'a', reward: 'one', done: false };")), /shape\.ts: step\(\) must return \{ observation: string, reward: number, done: boolean, info \}; got \{"observation":"a","reward":"one","done":false\}/);
    await assert.rejects(load(write('nostep.ts', "export const spec = { actions: 'text', max_turns: 2, max_observation: 6, max_action: 4 };\nexport default class { reset() { return { observation: 'a' }; } }\n")), /nostep\.ts lacks the method step/);
    await assert.rejects(load(echoModule('nobound.ts', 'return {};', "{ actions: 'text', max_turns: 2, max_action: 4 }")), /a text env's spec needs max_observation: a whole number from 1 to 1000/);
  });
});

/** The calculator example, copied to a folder of its own (so that a resume can be shown to need only the run's bundle). */
function calculatorPlan(stages: Plan['stages']): { plan: Plan; file: string } {
  const dir = fs.mkdtempSync(path.join(work, 'calc-'));
  const file = path.join(dir, 'calculator-tool.ts');
  fs.copyFileSync(path.join(repoRoot(), 'examples', 'calculator-tool.ts'), file);
  const base = makePlan({ env: 'module', envParams: { low: 10, high: 99 } });
  const plan: Plan = {
    ...base,
    env: { ...base.env, name: 'Tool', module: './calculator-tool.ts' },
    policy: { name: 'Tiny', kind: 'transformer', params: { layers: 2, width: 64, heads: 4, context: 72 } },
    stages,
  };
  return { plan, file };
}

const sftThenRloo = (sftUpdates: number, rlooBudget: number): Plan['stages'] => [
  { name: 'warmup', algorithm: { name: 'SFT', kind: 'SFT', params: { updates: sftUpdates, batch_size: 32, learning_rate: 1e-3 } }, budget: null },
  { name: 'main', algorithm: { name: 'Rloo', kind: 'REINFORCE', params: { baseline: 'leave_one_out', episodes_per_update: 8, learning_rate: 1e-5 } }, budget: rlooBudget },
];

describe('examples/calculator-tool.ts through train()', () => {
  it('the calculator\'s expert calls it, then answers right; an mlp policy is refused for a text module', async () => {
    const { plan, file } = calculatorPlan(sftThenRloo(1, 10));
    const module = await load(file, plan.env.params);
    const rows = new DialogueEnvironment(new ModuleDialogueEnv(module.text!, plan.env.params, 'Tool'), 'module');
    const batch = await runDialogues(rows.env.evaluationDialogues(), rows.tokenizer, rows.layout, { expert: true });
    assert.ok(batch.success.every((s) => s === 1) && batch.turns.every((t) => t === 2));
    const [opening, , [, reply]] = batch.transcripts[0]!;
    const [a, b] = opening![1].split('*').map(Number);
    assert.equal(reply, String(a! * b!));
    await assert.rejects(train({ ...plan, policy: { name: 'P', kind: 'mlp', params: {} } }, { out: tempDir(), envModule: file }), /policy P \(mlp\) cannot write text: env Tool \(module "\.\/calculator-tool\.ts"\) needs a transformer or pretrained policy/);
  });

  it('a pretrained policy (the hf-tiny Qwen2) trains on the module\'s dialogues through its chat template: SFT on the expert, then RLOO; the records hold the roles', async () => {
    const { plan, file } = calculatorPlan(sftThenRloo(2, 16));
    plan.policy = { name: 'Base', kind: 'pretrained', params: { model: path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2'), chat: { system: 'Use the calculator.' } } as Plan['policy']['params'] };
    const result = await train(plan, { out: tempDir(), envModule: file });
    assert.ok(result.step >= 16 && Number.isFinite(result.metrics['losses/policy_loss']!), JSON.stringify(result.metrics));
    const events = readEvents(path.join(result.runDir, 'events.jsonl'));
    const rollout = events.find((e) => e.type === 'rollout') as { file?: string };
    const [, group] = fs.readFileSync(path.join(result.runDir, rollout.file!), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    for (const sample of group.samples) {
      assert.deepEqual(sample.turns.slice(0, 2), [['system', 'Use the calculator.'], ['user', group.start]]);
      assert.ok((sample.turns as [string, string][]).slice(2).every(([role], i) => role === (i % 2 === 0 ? 'assistant' : 'user')));
    }
  });

  it('SFT on the expert\'s dialogues, then RLOO: held-out success rises far above an untrained model\'s, and a resume runs the bundled module', async () => {
    const { plan, file } = calculatorPlan(sftThenRloo(150, 300));
    const module = await load(file, plan.env.params);
    const untrained = TextWorkload.create(plan, 1, {}, module);
    const before = (await untrained.evaluate()).values['eval/success']!;
    await untrained.release();

    const controller = new AbortController();
    const stopped = await train(plan, {
      out: tempDir(),
      envModule: file,
      checkpointEvery: 1,
      onProgress: (p) => p.step > 150 * 32 + 100 && controller.abort(),
      signal: controller.signal,
    });
    assert.equal(stopped.status, 'stopped');
    assert.equal(RunDirectory.readStatus(stopped.runDir)!.stage!.name, 'main');
    // The resume needs no module file: it runs the bundle kept in the run directory.
    fs.rmSync(file);
    const result = await resume(stopped.runDir);
    assert.equal(result.status, 'finished');
    const events = readEvents(path.join(result.runDir, 'events.jsonl'));
    const evals = events.filter((e) => e.type === 'eval');
    const warm = (evals[0]!.values as Record<string, number>)['eval/success']!;
    const last = result.metrics['eval/success']!;
    assert.ok(warm >= before + 0.3 && last >= before + 0.3, `held-out success: untrained ${before}, after SFT ${warm}, at the end ${last}`);
    assert.equal((evals[0]!.returns as number[]).length, 100, 'evaluation runs seeds 0..99');
    // rlx eval plays the same dialogues with the run's bundled module and its exported model.
    const evaluated = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), 'eval', result.runDir, '--json'], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(evaluated.status, 0, evaluated.stderr);
    assert.equal(JSON.parse(evaluated.stdout)['eval/success'], last);
    const episodes = events.filter((e) => e.type === 'episode');
    assert.ok(episodes.length > 0 && episodes.every((e) => typeof e.success === 'boolean' && (e.length as number) >= 1 && (e.length as number) <= 3));
    const rollout = events.find((e) => e.type === 'rollout')!;
    const [header, group] = fs.readFileSync(path.join(result.runDir, rollout.file as string), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual([header.env, header.algorithm], ['module', 'REINFORCE']);
    assert.match(group.start, /^\d\d\*\d\d$/);
  });
});
