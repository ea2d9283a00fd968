import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prepareRename, rename, RenameError } from '../../../server/features/rename.js';
import type { Sources } from '../../helpers/source.js';
import { fixture } from './fixture.js';

/** Every file's text after renaming what is at `$0` to `newName` (files the rename leaves alone are unchanged). */
function check(before: Sources, newName: string, after: Record<string, string>): void {
  const f = fixture(before);
  const edit = rename(f.doc, f.cursor, newName);
  for (const [name, expected] of Object.entries(after)) {
    const doc = f.docOf(name);
    const edits = edit.changes?.[f.uri(name)] ?? [];
    let text = doc.unit.text;
    for (const e of [...edits].sort((a, b) => doc.lines.offset(b.range.start) - doc.lines.offset(a.range.start))) {
      text = text.slice(0, doc.lines.offset(e.range.start)) + e.newText + text.slice(doc.lines.offset(e.range.end));
    }
    assert.equal(text, expected, `${name} after the rename`);
  }
}

/** The rename is refused with a message matching `message`. */
function checkRefused(source: Sources, newName: string, message: RegExp): void {
  const f = fixture(source);
  assert.throws(() => rename(f.doc, f.cursor, newName), (err: unknown) => err instanceof RenameError && message.test(err.message));
}

describe('rename', () => {
  it('the declaration and every reference in the file', () => {
    check('algorithm Tu$0ned = PPO\nalgorithm Fast = Tuned\nexperiment E { algorithm: Tuned }\nsweep S over E { algorithm: [Tuned, Fast] }', 'Annealed', {
      'main.rlx': 'algorithm Annealed = PPO\nalgorithm Fast = Annealed\nexperiment E { algorithm: Annealed }\nsweep S over E { algorithm: [Annealed, Fast] }',
    });
  });

  it('across files, from a reference in an importing file', () => {
    check({
      'main.rlx': 'import "./envs.rlx"\nexperiment A { env: Po$0le }',
      'envs.rlx': 'env Pole = CartPole\nenv Long = Pole { max_steps: 1k }',
      'other.rlx': 'env Pole = Pendulum\nexperiment B { env: Pole }',
    }, 'Cart', {
      'main.rlx': 'import "./envs.rlx"\nexperiment A { env: Cart }',
      'envs.rlx': 'env Cart = CartPole\nenv Long = Cart { max_steps: 1k }',
      'other.rlx': 'env Pole = Pendulum\nexperiment B { env: Pole }',
    });
  });

  it('to the same name: no edits', () => {
    const f = fixture('env Po$0le = CartPole');
    assert.deepEqual(rename(f.doc, f.cursor, 'Pole'), { changes: {} });
  });

  it('refuses a built-in', () => {
    checkRefused('algorithm A = PP$0O', 'Mine', /'PPO' is a built-in algorithm and cannot be renamed/);
  });

  it('refuses a name that is not an identifier, or a keyword', () => {
    checkRefused('env Po$0le = CartPole', 'my pole', /'my pole' is not a valid name/);
    checkRefused('env Po$0le = CartPole', '2pole', /not a valid name/);
    checkRefused('env Po$0le = CartPole', 'sweep', /'sweep' is a keyword/);
    checkRefused('env Po$0le = CartPole', 'module', /'module' is a keyword/);
  });

  it('refuses a clash with a declaration in the same file, in an imported file, or a built-in', () => {
    checkRefused('env Po$0le = CartPole\npolicy Actor = mlp', 'Actor', /'Actor' is already declared in main.rlx \(policy Actor\)/);
    checkRefused({ 'main.rlx': 'import "./envs.rlx"\nenv Sw$0ing = Pendulum', 'envs.rlx': 'env Pole = CartPole' }, 'Pole', /already declared in envs.rlx \(env Pole\)/);
    checkRefused('env Po$0le = CartPole', 'GridWorld', /'GridWorld' is the name of a built-in env/);
  });

  it('refuses the name of a built-in function or schedule (docs/language.md: names may not reuse a built-in\'s)', () => {
    checkRefused('env Po$0le = CartPole', 'abs', /'abs' is the name of a built-in function; choose another name/);
    checkRefused('reward Sh$0aped { term r = 1 }', 'norm', /'norm' is the name of a built-in function/);
    checkRefused('algorithm Tu$0ned = PPO', 'linear', /'linear' is the name of a built-in schedule/);
  });

  it('refuses a clash in a file that imports the declaration', () => {
    checkRefused({ 'envs.rlx': 'env Po$0le = CartPole', 'main.rlx': 'import "./envs.rlx"\npolicy Actor = mlp\nexperiment E { env: Pole, policy: Actor }' }, 'Actor', /already declared in main.rlx/);
  });

  it('refuses what is not a declaration', () => {
    checkRefused('algorithm A = PPO { epo$0chs: 4 }', 'n', /Only declarations can be renamed/);
  });
});

describe('prepare rename', () => {
  it('the name\'s range and text', () => {
    const f = fixture('env Pole = CartPole\nexperiment E { env: ⟦Po$0le⟧ }');
    assert.deepEqual(prepareRename(f.doc, f.cursor), { range: f.marks()[0], placeholder: 'Pole' });
  });

  it('null where nothing can be renamed; a built-in is refused with the reason', () => {
    const f = fixture('algorithm A = PPO {  $0 }');
    assert.equal(prepareRename(f.doc, f.cursor), null);
    const g = fixture('algorithm A = PP$0O');
    assert.throws(() => prepareRename(g.doc, g.cursor), RenameError);
  });
});
