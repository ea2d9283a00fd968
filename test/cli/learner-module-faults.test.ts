// Learner modules that misbehave in ways a loss check does not see (issue 43, item 14): a result
// or exports whose reading throws (a Proxy), and a module that replaces a JavaScript built-in
// rlx uses too; and (item 21) a numeric learner whose critics loss leaves out one of the twin
// critics. `rlx train` fails with one line naming the module (exit 2), never exit 70.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scratch } from './scratch.js';

const { rlx, write } = scratch('rlx-learner-faults-');

const SPEC = `env Sums = TextTask { task: addition(digits: 1), max_tokens: 3 }
policy Tiny = transformer { layers: 1, width: 16, heads: 2, context: 16 }
reward R { term low = regex(completion, "^[0-4]") }
algorithm Mine = module("./mine.ts") { group_size: 4, prompts_per_update: 2 }
experiment Faulty { env: Sums, policy: Tiny, reward: R, algorithm: Mine, budget: 16, device: cpu }
`;

const HEAD = "import { sequenceMean, type LossGraph, type TextBatch } from 'rlx/learner';\n";
const SPEC_EXPORT = "export const spec = { kind: 'text', settings: {} };\n";
const LOSS = 'return { loss: g.neg(g.mean(g.mul(sequenceMean(g, batch.logProb, batch.mask), batch.advantages))) };';
const THROWING_PROXY = "new Proxy({}, { get() { throw new Error('trap'); }, has() { throw new Error('trap'); }, ownKeys() { throw new Error('trap'); } })";

function train(module: string): { code: number; stderr: string } {
  write('mine.ts', module);
  write('faulty.rlx', SPEC);
  const r = rlx('train', 'faulty.rlx', '--out', 'runs');
  assert.doesNotMatch(r.stderr, /internal error|    at /);
  return r;
}

describe('a learner module that misbehaves outside its loss', () => {
  test('buildLoss returning a Proxy whose traps throw: the module is named', () => {
    const r = train(`${HEAD}${SPEC_EXPORT}export function buildLoss(g: LossGraph, batch: TextBatch) { return ${THROWING_PROXY}; }\n`);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /algorithm Mine \(module "mine\.ts"\): reading what buildLoss returned threw: trap; hand rlx plain objects/);
  });

  test('a spec whose getter throws (the checker read its literal): the module is named', () => {
    const r = train(`${HEAD}${SPEC_EXPORT}Object.defineProperty(spec, 'kind', { get() { throw new Error('trap'); } });\nexport function buildLoss(g: LossGraph, batch: TextBatch) { ${LOSS} }\n`);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /algorithm Mine \(module "mine\.ts"\): reading the module's exports threw: trap/);
  });

  test('top-level code replacing JSON.stringify is refused, naming it', () => {
    const r = train(`${HEAD}${SPEC_EXPORT}JSON.stringify = () => { throw new Error('mine'); };\nexport function buildLoss(g: LossGraph, batch: TextBatch) { ${LOSS} }\n`);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /algorithm Mine \(module "mine\.ts"\): the module's top-level code changed JavaScript's built-in JSON\.stringify, which rlx uses too; a learner module must leave the built-ins as they are/);
  });

  test("buildLoss replacing JSON.stringify on the trainer's thread only is refused, and the run's files are still written", () => {
    const r = train(`${HEAD}import { isMainThread } from 'node:worker_threads';\n${SPEC_EXPORT}export function buildLoss(g: LossGraph, batch: TextBatch) {\n  if (isMainThread) JSON.stringify = () => { throw new Error('mine'); };\n  ${LOSS}\n}\n`);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /algorithm Mine \(module "mine\.ts"\): buildLoss changed JavaScript's built-in JSON\.stringify/);
  });

  test('a numeric learner whose critics loss does not use q2 (DDPG): the module and the unused network are named', () => {
    write('ddpg.ts', `import type { LossGraph, NumericBatch, NumericNetworks } from 'rlx/learner';
export const spec = { kind: 'numeric', settings: {} };
export function buildLosses(g: LossGraph, batch: NumericBatch, nets: NumericNetworks) {
  const y = g.add(batch.rewards, g.mul(g.mul(g.sub(1, batch.dones), batch.gamma), nets.targetQ1(batch.nextObservations, nets.targetActor(batch.nextObservations))));
  const critic = g.mean(g.square(g.sub(nets.q1(batch.observations, batch.actions), y)));
  return { critics: { loss: critic }, actor: { loss: g.neg(g.mean(nets.q1(batch.observations, nets.actor(batch.observations)))) } };
}
`);
    write('ddpg.rlx', `env Swing = Pendulum { }
policy Actor = mlp { hidden: [16] }
algorithm Ddpg = module("./ddpg.ts") { learning_starts: 100, batch_size: 16 }
experiment OneCritic { env: Swing, policy: Actor, algorithm: Ddpg, budget: 300, device: cpu }
`);
    const r = rlx('train', 'ddpg.rlx', '--out', 'runs');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /algorithm Ddpg \(module "ddpg\.ts"\): buildLosses returned a critics loss that does not use networks\.q2: rlx trains both critics \(q1 and q2\) on the critics loss/);
    assert.doesNotMatch(r.stderr, /internal error|GradientParts|    at /);
  });
});
