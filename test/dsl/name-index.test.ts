// "Did you mean" over many names (issue 43 item 6): the per-file name index answers what
// closestNames() answers, and a file of thousands of unknown names still gets the right
// suggestion at each of them (the time it takes is `npm run bench -- lsp`'s and `-- dsl`'s).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closestNames } from '../../dsl/diagnostics.js';
import { NameIndex } from '../../dsl/name-index.js';
import { seededRandom } from '../helpers/random.js';
import { check } from '../helpers/source.js';

describe('the name index of "did you mean"', () => {
  it('gives closestNames()\' answers: typos, swaps, prefixes, case, and names with nothing close', () => {
    const random = seededRandom(43);
    const letters = 'abcdeXY_1';
    const word = (n: number) => Array.from({ length: n }, () => letters[Math.floor(random() * letters.length)]).join('');
    const names = Array.from({ length: 400 }, () => word(1 + Math.floor(random() * 9)));
    const index = new NameIndex(names);
    const edit = (w: string): string => {
      const i = Math.floor(random() * (w.length + 1));
      switch (Math.floor(random() * 5)) {
        case 0: return w.slice(0, i) + word(1) + w.slice(i + 1); // substitute
        case 1: return w.slice(0, i) + word(1) + w.slice(i); // insert
        case 2: return w.slice(0, i) + w.slice(i + 1); // delete
        case 3: return i + 1 < w.length ? w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2) : w.toUpperCase(); // swap, or case
        default: return w.slice(0, Math.max(3, i)); // a prefix
      }
    };
    for (let k = 0; k < 3000; k++) {
      const base = names[Math.floor(random() * names.length)];
      const query = k % 3 === 0 ? word(1 + Math.floor(random() * 10)) : k % 3 === 1 ? edit(base) : edit(edit(base));
      assert.deepEqual(index.closest(query), closestNames(query, names), query);
      assert.deepEqual(index.closest(query, 1), closestNames(query, names, 1), query);
    }
  });

  it('stops suggesting, and only that, once its work budget is spent', () => {
    const names = Array.from({ length: 50 }, (_, i) => `name${i}`);
    const index = new NameIndex(names, 1);
    assert.deepEqual(index.closest('nme7'), ['name7'], 'a typo one edit away costs no scan');
    assert.deepEqual(index.closest('zzzzzzzz'), []);
    assert.deepEqual(index.closest('nam-33'), [], 'two edits away needs the scan, which the budget no longer allows');
    assert.deepEqual(new NameIndex(names).closest('nam-33'), ['name33']);
  });

  it('a file of 3,000 declarations and 3,000 unknown names: each error suggests the right name', () => {
    const n = 3000;
    const lines = ['policy P = mlp {}'];
    for (let i = 0; i < n; i++) lines.push(`env Room${i} = GridWorld {}`);
    // A typo of its own declaration at each: a swapped pair, a missing letter, a wrong letter.
    const typo = (i: number) => [`Romo${i}`, `Rom${i}`, `Roam${i}`][i % 3];
    for (let i = 0; i < n; i++) lines.push(`experiment X${i} { env: ${typo(i)}, policy: P, algorithm: PPO, budget: 1k }`);
    const checked = check({ 'main.rlx': `${lines.join('\n')}\n` }, undefined, { maxDiagnosticsPerFile: Infinity });
    const unknown = checked.all.filter((d) => d.code === 'unknown-name');
    assert.equal(unknown.length, n);
    const wrong = unknown.filter((d, i) => d.message !== `unknown env '${typo(i)}'; did you mean 'Room${i}'?`).map((d) => d.message);
    assert.deepEqual(wrong.slice(0, 5), []);
  });
});
