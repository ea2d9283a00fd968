// Learner modules at run time (runtime/algorithms/module/): a module's buildLoss builds the loss
// rlx trains, with the inputs it asked for; and a module that throws, returns the wrong thing,
// hangs or produces NaN fails the run naming the module, before any run directory is written
// (or, for a NaN mid-run, with nothing written after the last good checkpoint).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { CheckpointStateError, LearnerModuleError } from '../../../runtime/algorithms/index.js';
import { readEvents } from '../../../runtime/run/events.js';
import { resume, RunFailedError, train } from '../../../runtime/train.js';
import { makePlan, tempDir } from '../helpers.js';

const SPEC = `export const spec = { kind: 'text', settings: { broken: { type: 'bool', default: false } } };\n`;

/** A folder holding mine.ts: SPEC and the given buildLoss (and whatever else `extra` adds at the top). */
function moduleDir(buildLoss: string, extra = ''): string {
  const dir = tempDir('rlx-learner-');
  fs.writeFileSync(path.join(dir, 'mine.ts'), `import { groupMean, sequenceMean, type LossGraph, type TextBatch } from 'rlx/learner';\n${extra}${SPEC}export function buildLoss(g: LossGraph, batch: TextBatch, settings: Record<string, unknown>) {\n${buildLoss}\n}\n`);
  return dir;
}

/** REINFORCE with GRPO's advantages: the smallest learner that learns. */
const PLAIN = 'return { loss: g.neg(g.mean(g.mul(sequenceMean(g, batch.logProb, batch.mask), batch.advantages))) };';

/** One digit addition on a tiny transformer; the stages' algorithm is the module (params each). */
function modulePlan(stages: Record<string, unknown>[], budget = 16): Plan {
  const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 1 }, max_tokens: 3 }, budget });
  plan.policy = { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 16, heads: 2, context: 16 } };
  plan.reward = { name: 'R', replace_env_reward: true, terms: [{ name: 'low', expr: { call: 'regex', args: [{ ref: 'completion' }, { const: '^[0-4]' }] } }] };
  plan.stages = stages.map((params, i) => ({
    name: `s${i}`,
    budget,
    algorithm: { name: 'Mine', kind: 'module', module: 'mine.ts', params: { group_size: 4, prompts_per_update: 2, broken: false, ...params } },
  }));
  return plan;
}

describe('a learner module trains', () => {
  it('its loss from the inputs it reads (pi_old with iterations: 2, pi_ref), its metrics as learner/NAME, its bundle kept for a resume', async () => {
    const dir = moduleDir(`
  const ratio = g.exp(g.sub(batch.logProb, batch.oldLogProb));
  const kl = g.sub(batch.logProb, batch.refLogProb);
  const objective = g.mul(sequenceMean(g, ratio, batch.mask), batch.advantages);
  return { loss: g.add(g.neg(g.mean(objective)), g.mul(0.01, g.mul(g.sum(g.mul(kl, batch.mask)), batch.invTokens))), metrics: { mean_reward: g.mean(batch.rewards), off_group_mean: g.mean(g.abs(g.sub(g.mean(batch.rewards), g.mean(groupMean(g, batch.rewards, batch.groupSize))))), entropy: g.mul(g.sum(g.mul(batch.entropy, batch.mask)), batch.invTokens) } };`);
    const out = tempDir();
    const result = await train(modulePlan([{ iterations: 2 }]), { out, baseDir: dir });
    const metrics = readEvents(`${result.runDir}/events.jsonl`).filter((e) => e.type === 'metrics');
    assert.ok(metrics.length >= 2);
    for (const name of ['learner/mean_reward', 'learner/entropy', 'losses/loss', 'losses/grad_norm']) {
      assert.ok(metrics.every((e) => Number.isFinite(e.values[name])), `${name} is logged`);
    }
    // The mean reward the module computed in its graph is the batch's, as rlx reports it.
    for (const e of metrics) assert.ok(Math.abs(e.values['learner/mean_reward']! - e.values['rewards/low']!) < 1e-5);
    // groupMean over groups of groupSize rows: the mean of the group means is the batch's mean.
    for (const e of metrics) assert.ok(e.values['learner/off_group_mean']! < 1e-6);
    assert.ok(fs.readFileSync(path.join(result.runDir, 'source', 'learner-0.mjs'), 'utf8').includes('rlx.learner.v1'), 'the bundle reads rlx/learner from the running rlx');
    // status.json and the hparams event (the dashboard's header) name the module, not its kind.
    const status = JSON.parse(fs.readFileSync(path.join(result.runDir, 'status.json'), 'utf8')) as { stage: { algorithm: string } };
    assert.equal(status.stage.algorithm, 'Mine (module "mine.ts")');
    assert.equal(readEvents(`${result.runDir}/events.jsonl`).find((e) => e.type === 'hparams')?.algorithm, 'Mine (module "mine.ts")');
  });
});

describe('a learner module run resumes', () => {
  it('from the bundle its run directory keeps, even with the module gone, ending where an uninterrupted run ends', async () => {
    const build = () => moduleDir(`const kl = g.sub(batch.logProb, batch.refLogProb);
  return { loss: g.add(g.neg(g.mean(g.mul(sequenceMean(g, batch.logProb, batch.mask), batch.advantages))), g.mul(0.01, g.mul(g.sum(g.mul(kl, batch.mask)), batch.invTokens))) };`);
    const whole = await train(modulePlan([{}], 32), { out: tempDir(), baseDir: build(), checkpointEvery: 8 });
    const dir = build();
    const controller = new AbortController();
    const stopped = await train(modulePlan([{}], 32), { out: tempDir(), baseDir: dir, checkpointEvery: 8, signal: controller.signal, onProgress: (p) => p.step >= 16 && controller.abort() });
    assert.equal(stopped.status, 'stopped');
    fs.rmSync(path.join(dir, 'mine.ts'));
    const resumed = await resume(stopped.runDir);
    assert.equal(resumed.status, 'finished');
    assert.equal(resumed.step, whole.step);
    assert.equal(resumed.metrics['losses/loss'], whole.metrics['losses/loss'], 'the same weights, reference, optimiser and random streams');
  });
});

describe('a learner module run resumes only from a state that fits it', () => {
  it('refuses a checkpoint whose state lacks a part, naming the module and the part', async () => {
    const dir = moduleDir(PLAIN);
    const controller = new AbortController();
    const stopped = await train(modulePlan([{}], 32), { out: tempDir(), baseDir: dir, checkpointEvery: 8, signal: controller.signal, onProgress: (p) => p.step >= 16 && controller.abort() });
    const checkpoints = path.join(stopped.runDir, 'checkpoints');
    const newest = fs.readdirSync(checkpoints).filter((n) => /^state-\d+\.json$/.test(n)).sort((x, y) => parseInt(y.slice(6)) - parseInt(x.slice(6)))[0]!;
    const state = JSON.parse(fs.readFileSync(path.join(checkpoints, newest), 'utf8'));
    delete state.algorithmSha256;
    delete state.algorithmState.optimizer;
    fs.writeFileSync(path.join(checkpoints, newest), JSON.stringify(state));
    await assert.rejects(resume(stopped.runDir), (err: Error) => {
      assert.ok(err.cause instanceof CheckpointStateError, String(err.cause));
      assert.match(err.message, /algorithm Mine \(module "mine\.ts"\) state has no 'optimizer' \(an Adam state\)/);
      return true;
    });
  });
});

describe('a learner module that does wrong fails the run, naming the module and what was wrong', () => {
  const refused = async (dir: string, expected: RegExp, params: Record<string, unknown> = {}) => {
    const out = tempDir();
    await assert.rejects(train(modulePlan([params]), { out, baseDir: dir }), (err: Error) => {
      assert.ok(err instanceof LearnerModuleError, `${err.name}: ${err.message}`);
      assert.match(err.message, expected);
      return true;
    });
    assert.deepEqual(fs.readdirSync(out), [], 'no run directory is written');
  };

  it('buildLoss throws', () => refused(moduleDir("throw new Error('no such input: batch.values');"),
    /^algorithm Mine \(module "mine\.ts"\): buildLoss threw while building the loss: no such input: batch\.values$/));

  it('an op is misused (an axis that is not 1 squeezed)', () => refused(moduleDir('return { loss: g.mean(g.squeeze(batch.logProb, [1])) };'),
    /^algorithm Mine \(module "mine\.ts"\): buildLoss threw while building the loss: Squeeze: axis 1 of .* is not 1$/));

  it('the loss does not depend on the policy', () => refused(moduleDir('const unused = batch.logProb;\n  return { loss: g.mean(g.mul(batch.rewards, g.stopGradient(g.mean(unused)))) };'),
    /^algorithm Mine \(module "mine\.ts"\): buildLoss returned a loss that no gradient flows from to the policy: it must be computed from batch\.logProb or batch\.entropy \(not only through g\.stopGradient\)$/));

  it('the loss is not a scalar', () => refused(moduleDir('return { loss: batch.logProb };'),
    /^algorithm Mine \(module "mine\.ts"\): buildLoss returned the loss of shape \[B, T\]; it must be a scalar \(shape \[\]\): reduce it, e\.g\. g\.mean\(x\) or g\.sum\(x\)$/));

  it('the loss is not a tensor, or a metric is badly named', async () => {
    await refused(moduleDir('return { loss: 0.5 };'), /buildLoss returned the loss as 0\.5, not a tensor of the loss graph/);
    await refused(moduleDir(`${PLAIN.replace('return {', 'return { metrics: { "Mean Reward": g.mean(batch.rewards) },')}`), /metric 'Mean Reward': a metric's name is lower case letters/);
  });

  it('buildLoss never returns', () => refused(moduleDir('for (;;) {}'),
    /^algorithm Mine \(module "mine\.ts"\): loading the module and calling buildLoss\(es\) did not finish within 1\.5 s \(a loop that never ends\?\)/, { build_timeout: 1.5 }));

  it('the module throws while loading, or exports no buildLoss', async () => {
    await refused(moduleDir(PLAIN, "throw new Error('config.json missing');\n"), /^algorithm Mine \(module "mine\.ts"\): the module threw while loading: config\.json missing$/);
    const dir = tempDir('rlx-learner-');
    fs.writeFileSync(path.join(dir, 'mine.ts'), SPEC);
    await refused(dir, /the module exports no buildLoss function/);
  });

  it('a NaN mid-run stops it at that update; the last checkpoint is the previous stage\'s', async () => {
    const dir = moduleDir(`const loss = g.neg(g.mean(g.mul(sequenceMean(g, batch.logProb, batch.mask), batch.advantages)));
  return { loss: settings.broken ? g.add(loss, g.log(g.constant(-1))) : loss };`);
    const out = tempDir();
    let failed: RunFailedError | undefined;
    await train(modulePlan([{}, { broken: true }]), { out, baseDir: dir, checkpointEvery: 8 }).catch((err: unknown) => (failed = err as RunFailedError));
    assert.ok(failed instanceof RunFailedError, `the run failed: ${String(failed)}`);
    assert.match(failed.message, /^algorithm Mine \(module "mine\.ts"\)'s update diverged: the loss is NaN \(update 1\); the loss its buildLoss built is not finite there: .*, after 16 steps of training; the last good checkpoint is checkpoints\/state-8\.json \(step 8\)$/);
    const steps = fs.readdirSync(path.join(failed.runDir, 'checkpoints')).flatMap((f) => /^state-(\d+)\.json$/.exec(f)?.[1] ?? []).map(Number).sort((a, b) => a - b);
    assert.deepEqual(steps, [8], 'nothing written after the last good checkpoint');
    const logs = readEvents(path.join(failed.runDir, 'events.jsonl')).filter((e) => e.type === 'log').map((e) => e.message as string);
    assert.ok(logs.includes('stage s1 (Mine, module "mine.ts") starts at step 16'), logs.join('\n'));
  });
});

describe('a learner module in micro-batches (micro_batch)', () => {
  // A sum over rows: each token's surrogate times the whole update's 1/tokens, a KL to pi_ref the
  // same, and pi_old read (iterations 2): every pass rlx makes runs in micro-batches.
  const SUMMED = `
  const ratio = g.exp(g.sub(batch.logProb, batch.oldLogProb));
  const surrogate = g.mul(g.sum(g.mul(g.mul(ratio, batch.mask), g.reshape(batch.advantages, [-1, 1]))), batch.invTokens);
  const kl = g.mul(g.sum(g.mul(g.sub(batch.logProb, batch.refLogProb), batch.mask)), batch.invTokens);
  return { loss: g.add(g.neg(surrogate), g.mul(0.1, kl)), metrics: { mean_reward: g.mean(batch.rewards), reward_sum: g.sum(batch.rewards), per_row: g.mul(g.sum(batch.rewards), batch.invRows) } };`;

  const run = async (dir: string, params: Record<string, unknown>) => {
    const result = await train(modulePlan([{ iterations: 2, learning_rate: 1e-2, ...params }]), { out: tempDir(), baseDir: dir });
    const events = readEvents(`${result.runDir}/events.jsonl`);
    return { metrics: events.filter((e) => e.type === 'metrics').map((e) => e.values), hparams: events.find((e) => e.type === 'hparams')!.values };
  };

  it('a loss summed over rows: micro-batches of one group log the whole update\'s losses and metrics', async () => {
    const dir = moduleDir(SUMMED);
    const whole = await run(dir, { micro_batch: 8 });
    const micro = await run(dir, { micro_batch: 4 });
    assert.deepEqual([whole.hparams.micro_batch, micro.hparams.micro_batch], [8, 4]);
    assert.equal(micro.metrics.length, whole.metrics.length);
    assert.ok(whole.metrics.length >= 2, 'two updates: the second samples with the first\'s weights');
    whole.metrics.forEach((expected, u) => {
      for (const name of ['losses/loss', 'losses/grad_norm', 'learner/mean_reward', 'learner/reward_sum', 'learner/per_row']) {
        const [a, b] = [micro.metrics[u]![name]!, expected[name]!];
        assert.ok(Math.abs(a - b) <= 1e-4 * Math.max(1e-2, Math.abs(b)), `update ${u + 1}: ${name} ${a} against ${b}`);
      }
      // The means the module took over rows are the batch's, summed ones its sum.
      assert.ok(Math.abs(micro.metrics[u]!['learner/mean_reward']! - expected['rewards/low']!) < 1e-5);
      assert.ok(Math.abs(micro.metrics[u]!['learner/reward_sum']! - 8 * expected['rewards/low']!) < 1e-4);
    });
  });

  it('a loss that is a mean over rows: micro_batch set is refused naming the module, auto trains the update at once', async () => {
    const dir = moduleDir(PLAIN);
    await assert.rejects(run(dir, { micro_batch: 4 }), (err: Error) => {
      assert.ok(err instanceof LearnerModuleError, `${err.name}: ${err.message}`);
      assert.match(err.message, /^algorithm Mine \(module "mine\.ts"\): micro_batch 4 splits the update's 8 rows, but its loss is not a sum over rows \(on stand-in rows: -?[\d.e-]+ for two groups, -?[\d.e-]+ \+ -?[\d.e-]+ for each alone\), so micro-batches would change the update\. Write a mean over the update as g\.mul\(g\.sum\(x\), batch\.invRows\)/);
      return true;
    });
    assert.equal((await run(dir, { micro_batch: 'auto' })).hparams.micro_batch, 8);
  });
});
