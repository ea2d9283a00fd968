// Numeric learner modules at run time (runtime/algorithms/module/numeric-*.ts): rlx's off-policy
// loop steps the losses the module's buildLosses returns, each on the networks its key names and
// as often as its `every` says, and resumes from a checkpoint where an uninterrupted run ends; a
// module that throws, returns the wrong thing, hangs or produces NaN fails the run naming it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { LearnerModuleError } from '../../../runtime/algorithms/index.js';
import { readEvents } from '../../../runtime/run/events.js';
import { RunFailedError, train } from '../../../runtime/train.js';
import { makePlan, tempDir } from '../helpers.js';
import { numericLearnerDefinition } from '../../../runtime/algorithms/module/definition.js';
import { loadLearnerModule } from '../../../runtime/algorithms/module/load.js';
import { ModuleNumericLearner } from '../../../runtime/algorithms/module/numeric-learner.js';
import { Stepper } from '../../../runtime/algorithms/stepper.js';
import type { BoxSpace } from '../../../runtime/envs/types.js';
import { makeVecEnv } from '../../../runtime/envs/registry.js';
import { flatPolicySpaces, PolicyFactory } from '../../../runtime/policies/index.js';
import { OnnxPolicy } from '../../../runtime/policies/onnx-policy.js';
import { DeterministicActor } from '../../../runtime/algorithms/module/numeric-networks.js';
import { Rng } from '../../../shared/random.js';

const SPEC = `export const spec = { kind: 'numeric', settings: { delay: { type: 'int', default: 2, min: 1 }, broken: { type: 'bool', default: false } } };\n`;

/** A folder holding mine.ts: SPEC and the given buildLosses body. */
function moduleDir(body: string): string {
  const dir = tempDir('rlx-learner-');
  fs.writeFileSync(path.join(dir, 'mine.ts'), `import type { LossGraph, NumericBatch, NumericNetworks } from 'rlx/learner';\n${SPEC}export function buildLosses(g: LossGraph, batch: NumericBatch, nets: NumericNetworks, settings: Record<string, unknown>) {\n${body}\n}\n`);
  return dir;
}

/** DDPG with twin critics: the smallest pair of losses. */
const TARGET = `const y = g.add(batch.rewards, g.mul(g.mul(g.sub(1, batch.dones), batch.gamma), nets.targetQ1(batch.nextObservations, nets.targetActor(batch.nextObservations))));
  const critic = g.add(g.mean(g.square(g.sub(nets.q1(batch.observations, batch.actions), y))), g.mean(g.square(g.sub(nets.q2(batch.observations, batch.actions), y))));
  const actor = g.neg(g.mean(nets.q1(batch.observations, nets.actor(batch.observations))));`;
const PLAIN = `${TARGET}\n  return { critics: { loss: critic }, actor: { loss: actor, every: settings.delay } };`;

/** Pendulum, one env copy, a small actor and critics; the stages' algorithm is the module (params each). */
function modulePlan(stages: Record<string, unknown>[], budget = 300): Plan {
  const plan = makePlan({ env: 'Pendulum', envs: 1, budget, policyParams: { hidden: [16], activation: 'relu' } });
  plan.stages = stages.map((params, i) => ({
    name: `s${i}`,
    budget,
    algorithm: { name: 'Mine', kind: 'module', module: 'mine.ts', params: { learning_starts: 100, batch_size: 16, ...params } },
  }));
  return plan;
}

/** A learner's context on one Pendulum copy (as sac.test.ts builds SAC's). */
function context(seed: number, budget: number) {
  const vec = makeVecEnv('Pendulum', {}, 1);
  const stepper = new Stepper(vec, null);
  stepper.reset(seed);
  const rng = new Rng(seed);
  const policy = new PolicyFactory({ kind: 'mlp', name: 'p', params: { hidden: [16], activation: 'relu' } }, flatPolicySpaces(vec.obsDim, vec.actionSpace as BoxSpace), rng.fork('policy'));
  return { policy, stepper, budget, rng: rng.fork('learner'), compute: { providers: ['cpu'] as const, threads: false } };
}

describe('a numeric learner module trains', () => {
  it('each loss on its networks as often as its `every` says, its metrics as learner/NAME', async () => {
    const dir = moduleDir(`${TARGET}\n  return { critics: { loss: critic, metrics: { noise_mean: g.mean(batch.noise) } }, actor: { loss: actor, every: settings.delay, metrics: { action_low: g.mean(nets.actionLow) } } };`);
    const result = await train(modulePlan([{ delay: 3 }], 1000), { out: tempDir(), baseDir: dir });
    assert.equal(result.status, 'finished');
    const [metrics] = readEvents(`${result.runDir}/events.jsonl`).filter((e) => e.type === 'metrics');
    const values = metrics!.values;
    // Updates from step 101 to 1000: 900 critic steps, an actor step every 3rd of them.
    assert.equal(values['losses/gradient_steps'], 900);
    for (const name of ['losses/critics_loss', 'losses/actor_loss', 'learner/noise_mean']) assert.ok(Number.isFinite(values[name]), `${name} is logged`);
    assert.ok(Math.abs(values['learner/noise_mean']!) < 0.05, 'batch.noise is N(0, 1)');
    assert.equal(values['learner/action_low'], -2, "Pendulum's torque bound");
    const hparams = readEvents(`${result.runDir}/events.jsonl`).find((e) => e.type === 'hparams')!;
    assert.equal((hparams.values as Record<string, unknown>).actor_every, 3);
  });

  it('resumes exactly from its state (actor, critics, both targets, optimisers, buffer, update count, random streams)', async () => {
    const written = 'mine.ts';
    const learner = await loadLearnerModule(path.join(moduleDir(PLAIN), written), { name: 'Mine', written, settings: {}, groupSize: 1 });
    const definition = numericLearnerDefinition(learner, written);
    const settings = definition.params({ learning_starts: 100, batch_size: 16, delay: 3 });
    const a = await ModuleNumericLearner.create(context(3, 5000), learner, settings);
    const b = await ModuleNumericLearner.create(context(4, 5000), learner, settings);
    try {
      await a.iterate();
      // What the trainer does on --resume: a fresh learner loads the state, every episode restarts.
      b.loadState(a.state());
      a.loadState(a.state());
      a.stepper.reset(7);
      b.stepper.reset(7);
      const learned = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).filter(([name]) => !name.startsWith('time/')));
      for (let k = 0; k < 2; k++) assert.deepEqual(learned(await b.iterate()), learned(await a.iterate()), `iteration ${k} after resuming`);
      assert.deepEqual(b.state(), a.state());
      assert.equal(a.updates, 2900);
    } finally {
      await a.release();
      await b.release();
    }
  });
});

describe('a numeric learner\'s actor', () => {
  const box: BoxSpace = { kind: 'box', shape: [2], low: [-2, -1], high: [2, 3] };
  const actor = new DeterministicActor({ hidden: [5, 4], activation: 'relu', sharedTrunk: false }, flatPolicySpaces(3, box), new Rng(2));
  const B = 6;
  const obs = Float32Array.from({ length: B * 3 }, (_, i) => Math.sin(i * 1.7) * 2);

  it('acts within the bounds, with exploration noise only when not deterministic', () => {
    const [greedy, again, explored] = [new Float32Array(B * 2), new Float32Array(B * 2), new Float32Array(B * 2)];
    actor.explorationNoise = 0.5;
    actor.act(obs, B, greedy, true, new Rng(1));
    actor.act(obs, B, again, true, new Rng(9));
    actor.act(obs, B, explored, false, new Rng(1));
    assert.deepEqual(again, greedy);
    assert.ok(explored.some((a, j) => a !== greedy[j]));
    for (const actions of [greedy, explored]) actions.forEach((a, j) => assert.ok(a >= box.low[j % 2]! && a <= box.high[j % 2]!, `action ${j}: ${a}`));
  });

  it('exports a model rlx eval acts with as the trainer does', async () => {
    const acted = new Float32Array(B * 2);
    actor.act(obs, B, acted, true, new Rng(1));
    const file = path.join(tempDir(), 'policy.onnx');
    fs.writeFileSync(file, actor.exportOnnx({ format: 'rlx-policy' }));
    const loaded = await OnnxPolicy.load(file, flatPolicySpaces(3, box));
    try {
      const fromOnnx = new Float32Array(B * 2);
      await loaded.act(obs, B, fromOnnx, true, new Rng(1));
      fromOnnx.forEach((a, j) => assert.ok(Math.abs(a - acted[j]!) < 1e-5, `exported action ${j}: ${a}, acting gave ${acted[j]}`));
    } finally {
      await loaded.release();
    }
  });
});

describe('a numeric learner module that does wrong fails the run, naming the module and what was wrong', () => {
  const refused = async (dir: string, expected: RegExp, params: Record<string, unknown> = {}, plan = modulePlan([params])) => {
    const out = tempDir();
    await assert.rejects(train(plan, { out, baseDir: dir }), (err: Error) => {
      assert.ok(err instanceof LearnerModuleError || err.name === 'PlanError', `${err.name}: ${err.message}`);
      assert.match(err.message, expected);
      return true;
    });
    assert.deepEqual(fs.readdirSync(out), [], 'no run directory is written');
  };

  it('buildLosses throws', () => refused(moduleDir("throw new Error('no batch.values');"),
    /^algorithm Mine \(module "mine\.ts"\): buildLosses threw while building the losses: no batch\.values$/));

  it('a network given something that is not a tensor of its graph', () => refused(moduleDir('return { critics: { loss: g.mean(nets.q1(batch.observations, [0.5])) }, actor: { loss: g.mean(nets.actor(batch.observations)) } };'),
    /^algorithm Mine \(module "mine\.ts"\): buildLosses threw while building the losses: q1's actions is an object \(Array\), not a tensor of the loss graph$/));

  it('a loss of the wrong shape', () => refused(moduleDir(`${TARGET}\n  return { critics: { loss: y }, actor: { loss: actor } };`),
    /^algorithm Mine \(module "mine\.ts"\): buildLosses returned the critics loss of shape \[B\]; it must be a scalar/));

  it('an actor loss that does not reach the actor (only its target)', () => refused(moduleDir(`${TARGET}\n  return { critics: { loss: critic }, actor: { loss: g.neg(g.mean(nets.q1(batch.observations, nets.targetActor(batch.observations)))) } };`),
    /^algorithm Mine \(module "mine\.ts"\): buildLosses returned a actor loss that no gradient flows from to the actor: it must be computed from networks\.actor/));

  it('a key that names no networks, or a bad every', async () => {
    await refused(moduleDir(`${TARGET}\n  return { critic: { loss: critic }, actor: { loss: actor } };`), /buildLosses returned 'critic'; its keys name the networks each loss trains: critics, actor/);
    await refused(moduleDir(`${TARGET}\n  return { critics: { loss: critic }, actor: { loss: actor, every: 0.5 } };`), /actor\.every must be a whole number of at least 1/);
  });

  it('buildLosses never returns', () => refused(moduleDir('for (;;) {}'),
    /^algorithm Mine \(module "mine\.ts"\): loading the module and calling buildLoss\(es\) did not finish within 1\.5 s/, { build_timeout: 1.5 }));

  it('the module exports buildLoss, a text learner\'s, instead of buildLosses', async () => {
    const dir = tempDir('rlx-learner-');
    fs.writeFileSync(path.join(dir, 'mine.ts'), `${SPEC}export function buildLoss() {}\n`);
    await refused(dir, /the module exports no buildLosses function; a numeric learner adds/);
  });

  it('on discrete actions (CartPole) it is refused before training', async () => {
    const plan = modulePlan([{}]);
    plan.env = { name: 'E', kind: 'CartPole', params: {} };
    await refused(moduleDir(PLAIN), /does not train on discrete actions/, {}, plan);
  });

  it('a stage after a built-in\'s (SAC) is refused before training: it cannot start from SAC\'s networks', async () => {
    const plan = modulePlan([{}, {}]);
    plan.stages[0]!.algorithm = { name: 'Soft', kind: 'SAC', params: {} };
    await refused(moduleDir(PLAIN), /stage s1 \(module\) cannot start from the weights of stage s0 \(SAC\): SAC trains an actor and twin Q-networks, module a deterministic actor and twin Q-networks of its own/, {}, plan);
  });

  it('a text learner on Pendulum is refused before training, pointing at numeric learners', async () => {
    const dir = tempDir('rlx-learner-');
    fs.writeFileSync(path.join(dir, 'mine.ts'), "export const spec = { kind: 'text', settings: {} };\nexport function buildLoss(g, batch) { return { loss: g.mean(batch.logProb) }; }\n");
    await refused(dir, /algorithm Mine \(module "mine\.ts"\) is a text learner: Pendulum has actions of numbers; write a learner of kind 'numeric' for it/, { learning_starts: undefined, batch_size: undefined });
  });

  it('a NaN mid-run stops it, naming the module and the loss', async () => {
    const dir = moduleDir(`${TARGET}\n  return { critics: { loss: settings.broken ? g.add(critic, g.log(g.constant(-1))) : critic }, actor: { loss: actor } };`);
    let failed: RunFailedError | undefined;
    await train(modulePlan([{ broken: true }]), { out: tempDir(), baseDir: dir }).catch((err: unknown) => (failed = err as RunFailedError));
    assert.ok(failed instanceof RunFailedError, `the run failed: ${String(failed)}`);
    assert.match(failed.message, /^algorithm Mine \(module "mine\.ts"\)'s update diverged: the loss is NaN \(update 1, the critics loss's step 1\); the critics loss its buildLosses built is not finite there/);
  });
});
