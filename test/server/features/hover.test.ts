import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hover } from '../../../server/features/hover.js';
import type { Sources } from '../../helpers/source.js';
import { fixture, textAt } from './fixture.js';

/**
 * The hover at `$0`: its markdown must contain every expected line (in order), and its range
 * must cover the text marked ⟦ ⟧ (or the word at the cursor when nothing is marked).
 */
function check(source: Sources, expected: string[]): void {
  const f = fixture(source);
  const result = hover(f.doc, f.cursor);
  assert.ok(result, 'no hover');
  const value = (result.contents as { value: string }).value;
  let from = 0;
  for (const line of expected) {
    const at = value.indexOf(line, from);
    assert.ok(at >= 0, `hover lacks (or misorders) ${JSON.stringify(line)}:\n${value}`);
    from = at + line.length;
  }
  const [marked] = f.marks();
  if (marked) assert.deepEqual(result.range, marked);
}

function checkNone(source: Sources): void {
  const f = fixture(source);
  assert.equal(hover(f.doc, f.cursor), null);
}

const TUNED = '/// Annealed PPO for CartPole.\nalgorithm Tuned = PPO {\n  learning_rate: linear(2.5e-4, 0)\n  epochs: 8\n}\n';

describe('hover on properties', () => {
  it('doc, type, default, range and the value set here', () => {
    check('algorithm X = PPO { ⟦ga$0mma⟧: 0.9 }', [
      '```rlx\n(property) PPO.gamma: number\n```',
      'Discount factor for future rewards, in [0, 1].',
      'Type: `number`', 'Default: `0.99`', 'Range: >= 0 and <= 1 (unusual below 0.8)',
      'In effect: `0.9`, set here (overrides the default `0.99`).',
    ]);
  });

  it('an override says what it overrides and where that comes from', () => {
    check(`${TUNED}algorithm Fast = Tuned { learning_rate$0: 1e-3 }`, [
      '(property) PPO.learning_rate: number | schedule',
      'In effect: `1e-3`, set here (overrides `linear(2.5e-4, 0)` from Tuned).',
    ]);
  });

  it('through two levels of inheritance, the nearest statement counts', () => {
    check(`${TUNED}algorithm Fast = Tuned { epochs: 16 }\nalgorithm Faster = Fast { epo$0chs: 32 }`, ['In effect: `32`, set here (overrides `16` from Fast).']);
  });

  it('a sweep path: the values swept, and what holds otherwise (inherited from the algorithm)', () => {
    check(`${TUNED}experiment B { env: CartPole, policy: mlp, algorithm: Tuned, budget: 1k }\nsweep S over B {\n  algorithm.⟦learning_r$0ate⟧: [1e-4, 3e-4]\n}`, [
      '(property) algorithm (PPO).learning_rate',
      'Swept over `[1e-4, 3e-4]`; otherwise `linear(2.5e-4, 0)` from Tuned.',
    ]);
    check(`${TUNED}experiment B { env: CartPole, policy: mlp, algorithm: Tuned, budget: 1k }\nsweep S over B {\n  ⟦algo$0rithm⟧.gamma: [0.9]\n}`, [
      '(property) experiment.algorithm: algorithm name', 'In effect: `Tuned`, inherited from B.',
    ]);
  });

  it('a curriculum path: the env parameter and its value in effect', () => {
    check('env Rooms = GridWorld { size: 7 }\nexperiment E {\n  env: Rooms\n  curriculum { param: env.⟦si$0ze⟧, from: 5, to: 11, advance: eval.success >= 0.8 }\n}', [
      '(property) env (GridWorld).size: integer', 'In effect: `7`, inherited from Rooms.',
    ]);
  });

  it('a block member with its block\'s doc; a stage member against its algorithm', () => {
    check('experiment E { eval { every: 10k, episo$0des: 5 } }', ['(property) eval { }.episodes: integer', 'Default: `10`']);
    check('experiment E {\n  stage warm = SFT { upd$0ates: 2k }\n}', ['(property) stage (SFT).updates', 'In effect: `2k`, set here (overrides the default `1k`).']);
  });
});

describe('hover on references and declarations', () => {
  it('a reference shows the declaration: header, doc comment, what it sets, where', () => {
    check(`${TUNED}experiment E { algorithm: ⟦Tun$0ed⟧ }`, [
      '```rlx\nalgorithm Tuned = PPO\n```', 'Annealed PPO for CartPole.', '- `learning_rate: linear(2.5e-4, 0)`\n- `epochs: 8`', 'Declared in [main.rlx, line 2](file:///',
    ]);
  });

  it('inherited properties are marked with their owner, and the chain is shown', () => {
    check(`${TUNED}algorithm F$0ast = Tuned { epochs: 16 }`, [
      'algorithm Fast = Tuned', 'Inherits: Fast → Tuned → PPO', '- `learning_rate: linear(2.5e-4, 0)` (from Tuned)', '- `epochs: 16`',
    ]);
  });

  it('a reference into an imported file names that file', () => {
    check({ 'main.rlx': 'import "./envs.rlx"\nexperiment E { env: Po$0le }', 'envs.rlx': '\n/// Long episodes.\nenv Pole = CartPole { max_steps: 1k }' }, [
      'env Pole = CartPole', 'Long episodes.', '[envs.rlx, line 3](file:///',
    ]);
  });

  it('a built-in: its doc and parameters with defaults', () => {
    check('algorithm X = ⟦PP$0O⟧', ['```rlx\nalgorithm PPO (built-in)\n```', 'Proximal Policy Optimization', '- `learning_rate` = `2.5e-4`: Optimiser step size']);
    check('env E = Cart$0Pole', ['env CartPole (built-in)', 'Actions: discrete', 'Observation fields: `x`, `x_dot`, `theta`, `theta_dot`']);
  });

  it('terms and stages', () => {
    check('reward Base { term alive = 1.0 }\nreward R = Base { term al$0ive = 2.0 }', ['```rlx\nterm alive = 2.0\n```', 'Term of reward R.', 'Replaces the term `alive` of Base.']);
  });

  it('nothing on punctuation, whitespace or an unknown name', () => {
    checkNone('algorithm X = PPO {  $0  }');
    checkNone('experiment E { env: Nowhere$0 }');
  });
});

describe('hover in expressions', () => {
  it('functions and schedules: signature and doc', () => {
    check('reward R { term a = -0.1 * ⟦a$0bs⟧(obs.x) }', ['```rlx\nabs(x: number) -> number\n```', 'Absolute value.']);
    check('algorithm X = PPO { learning_rate: lin$0ear(1e-3, 0) }', ['linear(from, to, over = 1)', 'Straight line from `from` to `to`']);
  });

  it('an argument name: the parameter\'s doc', () => {
    check('algorithm X = DQN { epsilon: linear(1, 0.05, ⟦o$0ver⟧: 0.5) }', ['(argument) linear(over = 1)', 'Fraction of the budget']);
  });

  it('options: doc and arguments', () => {
    check('policy P = mlp { activation: re$0lu }', ['(option) relu', 'Rectified linear unit.']);
    check('algorithm X = DQN { relabel: fut$0ure(k: 8) }', ['(option) future(k)', '- `k` = `4`: Relabeled copies per transition.']);
  });

  it('obs and its fields, with the env paired through an experiment', () => {
    const source = 'env Pole = CartPole\nreward R { term tilt = abs(obs.theta$0) }\nexperiment E { env: Pole, reward: R }';
    check(source, ['```rlx\nobs.theta: number\n```', 'Observation field of Pole (CartPole).', 'Paired with Pole (CartPole) in E.']);
    check(source.replace('obs.theta$0', 'ob$0s.theta'), ['obs: vector', 'Fields of Pole (CartPole): `x`, `x_dot`, `theta`, `theta_dot`']);
    check('reward R { term tilt = abs(obs.theta$0) }', ['No experiment uses this reward yet']);
  });

  it('metrics in conditions', () => {
    check('experiment E { stop: eval.mean_ret$0urn >= 475 }', ['(metric) eval.mean_return', 'Mean return of the latest evaluation.']);
  });

  it('an import: the file it resolves to', () => {
    check({ 'main.rlx': 'import "./en$0vs.rlx"', 'envs.rlx': '' }, ['Imports [envs.rlx](file:///']);
  });
});

describe('hover ranges', () => {
  it('cover the hovered name only', () => {
    const f = fixture('experiment E { env: Cart$0Pole }');
    const result = hover(f.doc, f.cursor)!;
    assert.equal(textAt(f.doc, result.range!), 'CartPole');
  });
});
