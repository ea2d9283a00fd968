// A learner's checkpoint state declared once as parts (runtime/algorithms/learner-state.ts):
// state() and loadState() follow from the declaration, and a state that does not fit (another
// algorithm's, a damaged one) is refused naming the learner and the part, before anything is
// loaded; through the trainer, a resume from such a checkpoint fails with that message.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { CheckpointStateError, learnerState, part } from '../../../runtime/algorithms/learner-state.js';
import { Adam, WeightStore } from '../../../runtime/tensor/index.js';
import { resume, train } from '../../../runtime/train.js';
import { isInputError } from '../../../shared/input-error.js';
import { Rng } from '../../../shared/random.js';
import { tempDir } from '../helpers.js';
import { learnerPlan, type Learner } from './learners.js';

/** A learner with one part of each kind. */
function toyLearner(seed = 1) {
  const weights = new WeightStore();
  weights.add('w', [2, 3], (n) => Array.from({ length: n }, (_, i) => seed + i));
  weights.add('b', [3]);
  const learner = {
    globalStep: 0,
    updates: 0,
    logAlpha: 0.5,
    rng: new Rng(seed),
    noise: new Rng(seed + 100),
    weights,
    optimizer: new Adam(weights),
    loaded: [] as unknown[],
  };
  const extra = { state: () => ({ size: 3 }), load: (saved: { size: number }) => {
    if (saved.size !== 3) throw new Error(`the saved extra has size ${saved.size}, this one 3`);
    learner.loaded.push(saved);
  } };
  const saved = learnerState('Toy', {
    globalStep: part.counter(learner, 'globalStep'),
    updates: part.counter(learner, 'updates'),
    rngs: part.group({ sample: part.rng(learner.rng), noise: part.rng(learner.noise) }),
    weights: part.formerly('params', part.weights(weights)),
    logAlpha: part.number(() => learner.logAlpha, (v) => (learner.logAlpha = v)),
    optimizer: part.adam(learner.optimizer),
    extra: part.optional(part.object('an extra', extra)),
    missing: part.none(),
  });
  return { learner, saved };
}

/** Trains the toy one step: every part changes. */
function advance(toy: ReturnType<typeof toyLearner>['learner']): void {
  toy.globalStep += 10;
  toy.updates += 1;
  toy.logAlpha -= 0.25;
  toy.rng.uniform();
  toy.noise.normal();
  toy.optimizer.step(toy.weights.values.map((w) => w.map((_, i) => i + 1)), 0.1);
}

const refusal = (pattern: RegExp) => (err: unknown) => {
  assert.ok(err instanceof CheckpointStateError && isInputError(err), `a CheckpointStateError, got ${String(err)}`);
  assert.match(err.message, pattern);
  return true;
};

describe('learnerState()', () => {
  it('saves one field per part in the order declared, and loads it back exactly', () => {
    const a = toyLearner();
    advance(a.learner);
    const state = a.saved.save();
    assert.deepEqual(Object.keys(state), ['globalStep', 'updates', 'rngs', 'weights', 'logAlpha', 'optimizer', 'extra', 'missing']);
    assert.deepEqual(Object.keys(state.rngs), ['sample', 'noise']);
    assert.equal(state.missing, null);

    const b = toyLearner(2);
    b.saved.load(structuredClone(state));
    assert.deepEqual(b.saved.save(), state);
    assert.equal(b.learner.rng.uniform(), a.learner.rng.uniform(), 'the random stream continues where it was saved');
    assert.deepEqual(b.learner.loaded, [{ size: 3 }]);
  });

  it("refuses another learner's state naming the part it lacks, and loads nothing of it", () => {
    const a = toyLearner();
    advance(a.learner);
    const { optimizer: _dropped, ...other } = a.saved.save();
    const b = toyLearner(2);
    const before = b.saved.save();
    assert.throws(() => b.saved.load(other), refusal(/^the checkpoint's Toy state has no 'optimizer' \(an Adam state\): the checkpoint was written by another algorithm or is damaged/));
    assert.deepEqual(b.saved.save(), before, 'the parts before the missing one are not loaded either');
  });

  it('names a part of the wrong kind, inside a group by its path', () => {
    const state = toyLearner().saved.save();
    const { saved } = toyLearner(2);
    assert.throws(() => saved.load({ ...state, updates: 1.5 }), refusal(/has 'updates' that is not a whole number >= 0 \(got 1\.5\)/));
    assert.throws(() => saved.load({ ...state, rngs: { ...state.rngs, noise: 'abc' } }), refusal(/has 'rngs\.noise' that is not a random stream's state \(8 numbers\) \(got "abc"\)/));
    assert.throws(() => saved.load({ ...state, rngs: null }), refusal(/has no 'rngs' \(an object of sample, noise\)/));
    assert.throws(() => saved.load({ ...state, optimizer: { step: 1, m: [], v: 'x' } }), refusal(/has 'optimizer' that is not an Adam state/));
    assert.throws(() => saved.load(null), refusal(/^the checkpoint's Toy state is not an object \(got null\)/));
  });

  it('checks every weight\'s name and shape before loading any', () => {
    const a = toyLearner();
    const state = a.saved.save();
    const { saved, learner } = toyLearner(2);
    const before = learner.weights.snapshot();
    assert.throws(() => saved.load({ ...state, weights: { w: state.weights.w } }), refusal(/has no weight 'b' in 'weights'/));
    assert.throws(() => saved.load({ ...state, weights: { ...state.weights, b: { shape: [4], data: new Float32Array(4) } } }), refusal(/has weight 'b' in 'weights' of shape \[4\], where this learner's is \[3\]/));
    assert.deepEqual(learner.weights.snapshot(), before);
  });

  it('reads a renamed part under its former name, and keeps what it has where an optional part is absent', () => {
    const a = toyLearner();
    advance(a.learner);
    const { weights, extra: _extra, ...rest } = a.saved.save();
    const b = toyLearner(2);
    b.saved.load({ ...rest, params: weights, extra: null });
    assert.deepEqual(b.learner.weights.snapshot(), weights);
    assert.deepEqual(b.learner.loaded, [], 'an absent optional part is not loaded');
  });

  it("names the part whose own load refuses the saved value", () => {
    const state = toyLearner().saved.save();
    const { saved } = toyLearner(2);
    assert.throws(() => saved.load({ ...state, extra: { size: 4 } }), refusal(/^the checkpoint's Toy state does not fit this learner at 'extra': the saved extra has size 4, this one 3$/));
  });
});

describe("a resume from another learner's checkpoint", () => {
  /** A run of `learner` stopped halfway, with a checkpoint every `every` steps. */
  async function stoppedRun(learner: Learner, every: number): Promise<string> {
    const plan = learnerPlan(learner);
    const controller = new AbortController();
    const budget = plan.stages[0]!.budget!;
    const result = await train(plan, { out: tempDir(), checkpointEvery: every, signal: controller.signal, onProgress: (p) => p.step >= budget / 2 && controller.abort() });
    assert.equal(result.status, 'stopped');
    return result.runDir;
  }

  /** The algorithm state of the newest checkpoint of a finished run of `learner`, as written. */
  async function finishedState(learner: Learner): Promise<unknown> {
    const result = await train(learnerPlan(learner), { out: tempDir() });
    const dir = path.join(result.runDir, 'checkpoints');
    const newest = fs.readdirSync(dir).filter((n) => /^state-\d+\.json$/.test(n)).sort((x, y) => parseInt(y.slice(6)) - parseInt(x.slice(6)))[0]!;
    return JSON.parse(fs.readFileSync(path.join(dir, newest), 'utf8')).algorithmState;
  }

  /** Puts `algorithmState` into the newest checkpoint of `runDir` (without its checksum, as states of earlier versions are). */
  function replaceNewestState(runDir: string, algorithmState: unknown): void {
    const dir = path.join(runDir, 'checkpoints');
    const newest = fs.readdirSync(dir).filter((n) => /^state-\d+\.json$/.test(n)).sort((x, y) => parseInt(y.slice(6)) - parseInt(x.slice(6)))[0]!;
    const state = JSON.parse(fs.readFileSync(path.join(dir, newest), 'utf8'));
    delete state.algorithmSha256;
    fs.writeFileSync(path.join(dir, newest), JSON.stringify({ ...state, algorithmState }));
  }

  for (const [into, from, message] of [
    ['PPO', 'DQN', /^checkpoints\/state-\d+\.json: the checkpoint's PPO state has no 'iteration' \(a count\): .*; remove it to resume from an earlier checkpoint/],
    ['GRPO', 'SFT', /^checkpoints\/state-\d+\.json: the checkpoint's GRPO state has no 'promptRng' \(a random stream\)/],
  ] as const) {
    it(`fails naming the checkpoint and the part a ${from} state lacks in a ${into} run`, async () => {
      const runDir = await stoppedRun(into, 8);
      replaceNewestState(runDir, await finishedState(from));
      await assert.rejects(resume(runDir), (err: Error) => {
        assert.equal(err.name, 'RunFailedError');
        assert.ok(err.cause instanceof CheckpointStateError, String(err.cause));
        assert.match(err.message, message);
        return true;
      });
    });
  }
});
