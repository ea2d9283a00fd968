// rollouts/ keeps a bounded number of the evaluated policy's episodes: the first, the latest and
// a sample spread over the run, however many evaluations a long run makes.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { listRollouts } from '../../../runtime/run/reader.js';
import { episodesToRemove, thinEvalEpisodes } from '../../../runtime/run/rollout-cap.js';
import { readEvents } from '../../../runtime/run/events.js';
import { train } from '../../../runtime/train.js';
import { makePlan, tempDir } from '../helpers.js';

/** The steps kept when episodes arrive one at a time at `steps`, thinned after each as the trainer does. */
function arriving(steps: number[], cap: number): number[] {
  let kept: number[] = [];
  for (const step of steps) {
    kept.push(step);
    const gone = new Set(episodesToRemove(kept, cap));
    kept = kept.filter((_, i) => !gone.has(i));
  }
  return kept;
}

describe('eval episodes in rollouts/', () => {
  it('keep the first, the latest and evenly spread ones between', () => {
    assert.deepEqual(arriving([0, 1, 2, 3, 4, 5, 6, 7, 8], 5), [0, 2, 4, 6, 8]);
    const long = arriving(Array.from({ length: 2000 }, (_, i) => (i + 1) * 10_000), 50);
    assert.equal(long.length, 50);
    assert.equal(long[0], 10_000);
    assert.equal(long.at(-1), 20_000_000);
    // Spread over the run: no gap more than a few times the even spacing (20M / 49).
    const gaps = long.slice(1).map((step, i) => step - long[i]!);
    assert.ok(Math.max(...gaps) <= 3 * (20_000_000 / 49), `largest gap ${Math.max(...gaps)}`);
    assert.deepEqual(episodesToRemove([1, 2, 3], 50), [], 'under the cap nothing goes');
  });

  it('a run folder already over the cap (a resumed run) is brought down to it, train and final episodes untouched', () => {
    const dir = tempDir();
    const names = ['episode-0.jsonl', 'episode-100-eval.jsonl', 'episode-200-eval.jsonl', 'episode-300-eval.jsonl', 'episode-400-eval.jsonl', 'episode-500-eval.jsonl', 'episode-600-final.jsonl'];
    fs.mkdirSync(path.join(dir, 'rollouts'));
    for (const name of names) fs.writeFileSync(path.join(dir, 'rollouts', name), '{}\n');
    assert.deepEqual(thinEvalEpisodes(dir, 3).map((f) => path.basename(f)), ['episode-200-eval.jsonl', 'episode-400-eval.jsonl']);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'rollouts')).sort(), ['episode-0.jsonl', 'episode-100-eval.jsonl', 'episode-300-eval.jsonl', 'episode-500-eval.jsonl', 'episode-600-final.jsonl']);
  });

  it('a run evaluated at every update records at most the cap, and says so once in its log', async () => {
    const plan = makePlan({ budget: 8192, eval: { every: 512, episodes: 1, deterministic: true } });
    const result = await train(plan, { out: tempDir(), evalEpisodesKept: 3 });
    const evals = listRollouts(result.runDir).filter((e) => e.recorded === 'eval').map((e) => e.step);
    const events = readEvents(path.join(result.runDir, 'events.jsonl'));
    const evaluated = events.filter((e) => e.type === 'eval').map((e) => e.step);
    assert.equal(evaluated.length, 16);
    // The last evaluation ended the run: its policy is the final episode, not an eval one.
    assert.equal(evals.length, 3);
    assert.equal(evals[0], evaluated[0]);
    assert.equal(evals[2], evaluated.at(-2));
    assert.ok(listRollouts(result.runDir).some((e) => e.recorded === 'final'));
    const told = events.filter((e) => e.type === 'log' && /^rollouts\/ keeps 3 episodes of the evaluated policy/.test(e.message));
    assert.equal(told.length, 1);
  });
});
