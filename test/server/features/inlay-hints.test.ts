import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InlayHint, Range } from 'vscode-languageserver';
import { inlayHints } from '../../../server/features/inlay-hints.js';
import { DEFAULT_SETTINGS } from '../../../server/context.js';
import type { Sources } from '../../helpers/source.js';
import { fixture } from './fixture.js';

const EVERYWHERE: Range = { start: { line: 0, character: 0 }, end: { line: 1000, character: 0 } };

function hints(source: Sources, range = EVERYWHERE, settings = DEFAULT_SETTINGS): InlayHint[] {
  const f = fixture(source, settings);
  return inlayHints(f.doc, f.marks()[0] ?? range);
}

/** Each hint as `line:character label`. */
function check(source: Sources, expected: string[]): void {
  assert.deepEqual(hints(source).map((h) => `${h.position.line}:${h.position.character} ${h.label as string}`), expected);
}

describe('inlay hints', () => {
  it('one hint per body, at the end of its opening line, listing the unstated defaults', () => {
    check('algorithm Tuned = PPO {\n  learning_rate: 1e-3\n  epochs: 8\n}', [
      '0:23 defaults: rollout_steps 128, minibatches 4, gamma 0.99, … +9',
    ]);
  });

  it('a one-line body: after its closing brace', () => {
    check('env Swing = Pendulum { max_steps: 200 }', ['0:39 defaults: g 10, max_speed 8, max_torque 2']);
  });

  it('inherited values are not defaults; a body that states or inherits everything gets no hint', () => {
    check('policy Base = mlp { hidden: [32] }\npolicy Wide = Base {\n  activation: relu\n}', [
      '0:34 defaults: activation tanh, shared_trunk false, core none',
      '1:20 defaults: shared_trunk false, core none',
    ]);
    check('policy Base = mlp { hidden: [32], activation: relu, shared_trunk: true, core: none }\npolicy Wide = Base {\n  hidden: [64]\n}', []);
  });

  it('blocks and stages get their own hints', () => {
    check('experiment E {\n  env: CartPole\n  policy: mlp\n  algorithm: PPO\n  budget: 1k\n  seeds: [1]\n  device: cpu\n  precision: fp32\n  envs: 2\n  eval {\n    every: 1k\n  }\n  stage warm = SFT {\n    updates: 10\n  }\n}', [
      '9:8 defaults: episodes 10, deterministic true',
      '12:20 defaults: data demos, batch_size 64, learning_rate 0.001, … +2',
    ]);
  });

  it("an eval block on a text env offers no default the trainer does not read there (episodes, deterministic) (issue 43 item 20)", () => {
    const experiment = (env: string) => `${env}\nexperiment E {\n  env: Sums\n  policy: transformer\n  algorithm: GRPO\n  budget: 1k\n  eval {\n    every: 1k\n  }\n}`;
    const evalLine = (source: string) => hints(source).filter((h) => h.position.line === 6).map((h) => h.label);
    assert.deepEqual(evalLine(experiment('env Sums = TextTask { task: addition(digits: 1) }')), []);
    assert.deepEqual(evalLine(experiment('env Sums = CartPole { }')), ['defaults: episodes 10, deterministic true']);
  });

  it('the tooltip lists every default as source', () => {
    const [hint] = hints('policy P = mlp {\n  hidden: [32]\n}');
    assert.equal(hint.label, 'defaults: activation tanh, shared_trunk false, core none');
    assert.equal(hint.paddingLeft, true);
    assert.deepEqual(hint.tooltip, { kind: 'markdown', value: 'Defaults in effect (mlp):\n\n```rlx\nactivation: tanh\nshared_trunk: false\ncore: none\n```' });
  });

  it('only hints inside the requested range', () => {
    assert.equal(hints('policy A = mlp { hidden: [8] }\n⟦policy B = mlp { hidden: [16] }⟧').length, 1);
    assert.equal(hints('policy A = mlp { hidden: [8] }\npolicy ⟦⟧B = mlp { hidden: [16] }\n').length, 0);
  });

  it('none when the setting is off, or where the base is unknown', () => {
    assert.deepEqual(hints('policy P = mlp { hidden: [32] }', EVERYWHERE, { inlayHints: { defaults: false } }), []);
    check('policy P = Nowhere { hidden: [32] }\nenv M = module("./m.ts") { size: 3 }', []);
  });
});
