// The generated text tasks: right answers, seeded sampling, and a held-out set that is fixed
// (the same for every seed and run), disjoint from training, and never empty.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Rng } from '../../../shared/random.js';
import { addition, reverse, sort } from '../../../runtime/text/generated.js';
import { HELD_OUT_LIMIT, promptHash } from '../../../runtime/text/split.js';
import { taskTokenizer, type TextTask } from '../../../runtime/text/task.js';

const samples = (task: TextTask, n: number, seed = 1) => {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => task.sample(rng));
};

describe('generated tasks: examples', () => {
  it('addition(digits) writes "a+b=" and the decimal sum, within the stated lengths', () => {
    for (const digits of [1, 2, 8]) {
      const task = addition(digits);
      assert.equal(task.description, `addition(digits: ${digits})`);
      for (const { prompt, target } of samples(task, 300)) {
        const m = /^(\d+)\+(\d+)=$/.exec(prompt);
        assert.ok(m, prompt);
        assert.ok(m[1].length <= digits && m[2].length <= digits, prompt);
        assert.equal(BigInt(target), BigInt(m[1]) + BigInt(m[2]), prompt);
        assert.ok(prompt.length <= task.maxPromptLength && target.length <= task.maxTargetLength, prompt);
      }
    }
    assert.deepEqual([addition(2).maxPromptLength, addition(2).maxTargetLength], [6, 3]);
  });

  it('addition(digits, pad: true) writes every number at its fixed width: operands at digits, the sum at digits + 1', () => {
    for (const digits of [1, 2, 8]) {
      const task = addition(digits, { pad: true });
      assert.equal(task.description, `addition(digits: ${digits}, pad: true)`);
      for (const { prompt, target } of [...samples(task, 300), ...task.heldOut()]) {
        const m = new RegExp(`^(\\d{${digits}})\\+(\\d{${digits}})=$`).exec(prompt);
        assert.ok(m, prompt);
        assert.equal(target.length, digits + 1, `${prompt}${target}`);
        assert.equal(BigInt(target), BigInt(m[1]) + BigInt(m[2]), prompt);
        assert.equal(prompt.length, task.maxPromptLength);
      }
    }
    const task = addition(2, { pad: true });
    assert.ok(samples(task, 2000).some((e) => /^0\d\+\d\d=$/.test(e.prompt)), 'one-digit operands are drawn too, with a leading zero');
    assert.ok(samples(task, 2000).some((e) => /^0\d\+0\d=$/.test(e.prompt) && e.target.startsWith('00')), 'a sum below 10 is written 00d');
  });

  it('reverse(len) and sort(len): letters reversed, digits sorted, exactly len characters', () => {
    for (const { prompt, target } of samples(reverse(5), 200)) {
      assert.match(prompt, /^[a-z]{5}$/);
      assert.equal(target, prompt.split('').reverse().join(''));
    }
    for (const { prompt, target } of samples(sort(7), 200)) {
      assert.match(prompt, /^[0-9]{7}$/);
      assert.equal(target, prompt.split('').sort().join(''));
    }
  });

  it('samples depend on the seed only', () => {
    assert.deepEqual(samples(addition(3), 50, 9), samples(addition(3), 50, 9));
    assert.notDeepEqual(samples(addition(3), 50, 9), samples(addition(3), 50, 10));
  });

  it('the alphabet covers every prompt and target, so the task tokenizer reads them all', () => {
    for (const task of [addition(2), reverse(4), sort(3)]) {
      const tokenizer = taskTokenizer(task);
      for (const { prompt, target } of [...samples(task, 200), ...task.heldOut()]) {
        assert.equal(tokenizer.decode(tokenizer.encode(prompt + target)), prompt + target);
      }
    }
    assert.equal(addition(1).alphabet, '+0123456789=');
  });
});

describe('generated tasks: the held-out split', () => {
  it('is fixed: the hash and the held-out prompts do not change between versions', () => {
    // Changing these changes what earlier runs were evaluated on (split.ts).
    assert.deepEqual(['', '12+34=', 'abcde'].map(promptHash), [1947474976, 2233076933, 2017074963]);
    assert.deepEqual(addition(2).heldOut().slice(0, 3), [
      { prompt: '98+73=', target: '171' },
      { prompt: '85+90=', target: '175' },
      { prompt: '83+89=', target: '172' },
    ]);
    assert.deepEqual(sort(1).heldOut(), [{ prompt: '6', target: '6' }, { prompt: '8', target: '8' }]);
  });

  it('is the same for every seed and every construction, and never sampled for training', () => {
    for (const make of [() => addition(2), () => addition(5), () => reverse(3), () => reverse(6), () => sort(4), () => sort(9)]) {
      const task = make();
      const heldOut = task.heldOut();
      assert.deepEqual(make().heldOut(), heldOut, task.description);
      assert.equal(heldOut.length, HELD_OUT_LIMIT, task.description);
      assert.equal(new Set(heldOut.map((e) => e.prompt)).size, heldOut.length, `${task.description}: distinct prompts`);
      assert.ok(heldOut.every((e) => task.isHeldOut(e.prompt)), task.description);
      for (const seed of [1, 2]) assert.ok(samples(task, 2000, seed).every((e) => !task.isHeldOut(e.prompt)), `${task.description} seed ${seed}`);
    }
  });

  it('holds out about a tenth of the prompts', () => {
    const task = addition(2);
    let held = 0;
    for (let a = 0; a < 100; a++) for (let b = 0; b < 100; b++) held += task.isHeldOut(`${a}+${b}=`) ? 1 : 0;
    assert.ok(held > 900 && held < 1100, `${held} of 10000 held out`);
  });

  it('tiny tasks still hold something out and still have something to train on', () => {
    for (const task of [sort(1), reverse(1), addition(1), sort(2)]) {
      const heldOut = task.heldOut();
      assert.ok(heldOut.length >= 1, task.description);
      const trained = new Set(samples(task, 3000).map((e) => e.prompt));
      assert.ok(trained.size >= 1 && heldOut.every((e) => !trained.has(e.prompt)), task.description);
    }
    assert.ok(sort(1).heldOut().length < 10);
  });
});
