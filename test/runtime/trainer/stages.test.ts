// Several stages on an env of numbers (runtime/policies/handover.ts, trainer/env-workload.ts):
// each stage's algorithm starts from the networks the stage before it trained, the step counter
// goes on over the stages, events and status.json name the stage, a resume inside the second
// stage goes on there, and pairs whose networks cannot pass are refused before anything runs.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { algorithmDefinition } from '../../../runtime/algorithms/index.js';
import { readEvents } from '../../../runtime/run/events.js';
import { RunDirectory } from '../../../runtime/run/run-dir.js';
import { Rng } from '../../../shared/random.js';
import { PlanError } from '../../../runtime/support.js';
import { resume, train } from '../../../runtime/train.js';
import { EnvWorkload } from '../../../runtime/trainer/env-workload.js';
import { makePlan, tempDir } from '../helpers.js';

type Stage = Plan['stages'][number];
const stage = (name: string, kind: string, budget: number, params: Record<string, unknown> = {}): Stage => ({ name, algorithm: { name: kind, kind, params: params as Stage['algorithm']['params'] }, budget });

/** CartPole on 2 copies; PPO collects 128 steps per update. */
function stagedPlan(stages: Stage[], env = 'CartPole'): Plan {
  return { ...makePlan({ env, envs: 2 }), stages };
}

const warmThenTune = (budgets: [number, number]): Stage[] => [
  stage('warm', 'PPO', budgets[0], { rollout_steps: 64, learning_rate: 1e-3 }),
  stage('tune', 'PPO', budgets[1], { rollout_steps: 64, learning_rate: 1e-4, epochs: 2 }),
];

const snapshot = (weights: { names: string[]; get(n: string): { data: Float32Array } }) => Object.fromEntries(weights.names.map((n) => [n, Array.from(weights.get(n).data)]));

async function stageAlgorithm(workload: EnvWorkload, plan: Plan, i: number) {
  const s = plan.stages[i]!;
  const settings = algorithmDefinition(s.algorithm.kind)!.params(s.algorithm.params);
  return workload.createAlgorithm(s, settings, new Rng(1).fork(`stage ${i}`), { providers: ['cpu'] });
}

describe('stages on an env of numbers', () => {
  for (const [what, stages] of [
    ['PPO then PPO with other settings', warmThenTune([256, 256])],
    ['REINFORCE then PPO', [stage('warm', 'REINFORCE', 256), stage('tune', 'PPO', 256, { rollout_steps: 64 })]],
    ['DQN then DQN', [stage('warm', 'DQN', 256, { learning_starts: 32, train_every: 1, batch_size: 16 }), stage('tune', 'DQN', 256)]],
  ] as const) {
    it(`${what}: the second stage's networks start with the weights the first one trained`, async () => {
      const plan = stagedPlan([...stages]);
      const workload = EnvWorkload.create(plan, 1, undefined);
      workload.stepper.reset(1);
      const first = await stageAlgorithm(workload, plan, 0);
      const initial = snapshot(first.policy.weights);
      while (!first.done) await first.iterate();
      const trained = snapshot(first.policy.weights);
      assert.notDeepEqual(trained, initial, 'the first stage trained');
      await first.release();
      const second = await stageAlgorithm(workload, plan, 1);
      assert.deepEqual(snapshot(second.policy.weights), trained);
      assert.match(workload.handedOver() ?? '', /^the (actor-critic|q-network) networks \(\d+ weights\)$/);
      await second.release();
      await workload.release();
    });
  }

  it('SAC then SAC: the actor, the twin critics and their targets pass on', async () => {
    const plan = stagedPlan([stage('warm', 'SAC', 64, { learning_starts: 16, batch_size: 8 }), stage('tune', 'SAC', 64)], 'Pendulum');
    const workload = EnvWorkload.create(plan, 1, undefined);
    workload.stepper.reset(1);
    const first = await stageAlgorithm(workload, plan, 0);
    while (!first.done) await first.iterate();
    const networks = (state: unknown) => {
      const { actor, critics, target } = state as Record<'actor' | 'critics' | 'target', Record<string, { data: Float32Array }>>;
      return Object.fromEntries(Object.entries({ actor, critics, target }).map(([part, weights]) => [part, Object.fromEntries(Object.entries(weights).map(([n, w]) => [n, Array.from(w.data)]))]));
    };
    const trained = networks(first.state());
    await first.release();
    const second = await stageAlgorithm(workload, plan, 1);
    assert.deepEqual(networks(second.state()), trained);
    assert.match(workload.handedOver() ?? '', /^the sac networks/);
    await second.release();
    await workload.release();
  });

  it('PPO then PPO through train(): both stages run in one run, steps go on, events and status.json name the stage', async () => {
    const plan = stagedPlan(warmThenTune([512, 384]));
    const result = await train(plan, { out: tempDir() });
    assert.equal(result.status, 'finished');
    assert.equal(result.step, 512 + 384);
    const events = readEvents(path.join(result.runDir, 'events.jsonl'));
    const hparams = events.filter((e) => e.type === 'hparams');
    assert.deepEqual(hparams.map((e) => [e.stage, e.step, (e.values as Record<string, unknown>).budget]), [['warm', 0, 512], ['tune', 512, 384]]);
    assert.deepEqual(hparams.map((e) => (e.values as Record<string, unknown>).learning_rate), [1e-3, 1e-4], 'each stage its own settings');
    const metrics = events.filter((e) => e.type === 'metrics');
    assert.deepEqual(metrics.map((e) => [e.stage, e.step]), [128, 256, 384, 512].map((s) => ['warm', s]).concat([640, 768, 896].map((s) => ['tune', s])));
    const start = events.find((e) => e.type === 'log' && /stage tune \(PPO\) starts at step 512/.test(e.message as string));
    assert.match((start as { message?: string } | undefined)?.message ?? '', /from the actor-critic networks \(\d+ weights\) stage warm trained/);
    const status = RunDirectory.readStatus(result.runDir)!;
    assert.deepEqual(status.stage, { name: 'tune', index: 1, count: 2, algorithm: 'PPO' });
    assert.equal(status.budget, 896);
  });

  it("an evaluation due at a stage's last step is logged once, not again as the stage's end evaluation (issue 43 item 20)", async () => {
    // eval every 256: due at 256 (inside warm), at 512 (warm's last step) and at 768; the run ends at 896.
    const plan = { ...stagedPlan(warmThenTune([512, 384])), eval: { every: 256, episodes: 2, deterministic: true } };
    const result = await train(plan, { out: tempDir() });
    const evals = readEvents(path.join(result.runDir, 'events.jsonl')).filter((e) => e.type === 'eval');
    assert.deepEqual(evals.map((e) => [e.stage, e.step]), [['warm', 256], ['warm', 512], ['tune', 768], ['tune', 896]]);
  });

  it('a run stopped inside the second stage resumes there: its steps, events and status stay in that stage', async () => {
    const plan = stagedPlan(warmThenTune([256, 512]));
    const controller = new AbortController();
    const stopped = await train(plan, { out: tempDir(), signal: controller.signal, onProgress: (p) => p.step >= 384 && controller.abort() });
    assert.equal(stopped.status, 'stopped');
    assert.equal(stopped.step, 384);
    assert.equal(RunDirectory.readStatus(stopped.runDir)!.stage!.name, 'tune');
    const before = readEvents(path.join(stopped.runDir, 'events.jsonl')).length;
    const resumed = await resume(stopped.runDir);
    assert.equal(resumed.status, 'finished');
    assert.equal(resumed.step, 256 + 512);
    const after = readEvents(path.join(stopped.runDir, 'events.jsonl')).slice(before);
    assert.ok(after.some((e) => e.type === 'log' && /resumed from checkpoint at step 384 \(stage tune\)/.test(e.message as string)));
    assert.deepEqual(after.filter((e) => e.type === 'metrics').map((e) => [e.stage, e.step]), [512, 640, 768].map((s) => ['tune', s]));
    assert.equal(after.filter((e) => e.type === 'hparams').length, 0, 'no stage starts again');
    assert.ok(after.every((e) => e.stage === undefined || e.stage === 'tune'));
    assert.deepEqual(RunDirectory.readStatus(stopped.runDir)!.stage, { name: 'tune', index: 1, count: 2, algorithm: 'PPO' });
  });

  it('refuses, before any run directory exists, stages whose networks cannot pass, saying which and why', async () => {
    for (const [stages, pattern] of [
      [[stage('warm', 'PPO', 256), stage('tune', 'DQN', 256)], /stage tune \(DQN\) cannot start from the weights of stage warm \(PPO\): PPO trains an actor-critic, DQN a Q-network/],
      [[stage('warm', 'DQN', 256), stage('tune', 'REINFORCE', 256)], /stage tune \(REINFORCE\) cannot start from the weights of stage warm \(DQN\): DQN trains a Q-network, REINFORCE an actor-critic/],
    ] as const) {
      const out = tempDir();
      await assert.rejects(train(stagedPlan([...stages]), { out }), (err: Error) => err instanceof PlanError && pattern.test(err.message), `${pattern}`);
    }
    // SFT has no networks over observations: refused for its actions.
    await assert.rejects(train(stagedPlan([stage('warm', 'PPO', 256), { ...stage('tune', 'SFT', 0), budget: null }]), { out: tempDir() }), /SFT does not train on discrete actions/);
  });
});
