// Syntax errors with recovery: several independent mistakes in one file are all reported, each
// at its exact place (marked ⟦like this⟧), and the declarations after a mistake still parse and
// are still checked.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from '../../dsl/index.js';
import { expectDiagnostics, stripMarkers, type Expected } from '../helpers/source.js';

/** The names of the declarations the parser found, in order. */
function declared(marked: string): (string | undefined)[] {
  return parse(stripMarkers(marked).text).file.declarations.map((d) => d.name?.text);
}

function expectRecovered(source: string, expected: Expected[], names: string[]): void {
  expectDiagnostics(source, expected);
  assert.deepEqual(declared(source), names, 'every declaration parses, in order');
}

describe('recovery from syntax errors', () => {
  test('everything at once: each error at its place, every declaration still there and checked', () => {
    const source = `env Pole = CartPole {
  max_steps: 500

⟦policy⟧ Actor = mlp {
  hidden: [64, 64
  ⟦activation⟧: ⟦tanhh⟧
}
⟦@⟧
algorithm Tuned = PPO {
  gamma: ⟦,⟧
  clip: ⟦20⟧
}
⟦this is ) garbage ]⟧
algorithm Sft = SFT {
  data: ⟦"demos.jsonl⟧
  updates: ⟦1.5⟧
}
experiment Balance {
  env: Pole
  policy: Actor
  algorithm: Tuned
  budget: 500k
  seeds: [1, 2, 3
⟦}⟧
experiment Last { env: ⟦Pol⟧, policy: Actor, algorithm: Tuned, budget: 1k }
`;
    expectRecovered(source, [
      { code: 'syntax-error', message: "expected '}' but found 'policy'" },
      { code: 'syntax-error', message: "expected ']' but found 'activation'" },
      { code: 'type-mismatch', message: "'tanhh' is not a valid activation" },
      { code: 'invalid-character', message: "unexpected character '@'" },
      { code: 'syntax-error', message: "expected a value (number, string, name, list or call) but found ','" },
      { code: 'out-of-range', message: 'clip must be > 0 and <= 10; found 20' },
      { code: 'syntax-error', message: "unexpected 'this is ) garbage ]': expected a declaration" },
      { code: 'invalid-character', message: 'unterminated string' },
      { code: 'type-mismatch', message: 'updates expects a whole number; found 1.5' },
      { code: 'syntax-error', message: "expected ']' but found '}'" },
      { code: 'unknown-name', message: "unknown env 'Pol'; did you mean 'Pole'?" },
    ], ['Pole', 'Actor', 'Tuned', 'Sft', 'Balance', 'Last']);
  });

  test("a missing '}' ends the body at the next declaration keyword, and that declaration is checked", () => {
    const source = `env Pole = CartPole {\n  max_steps: 500\n\n⟦policy⟧ Actor = mlp { hidden: [64, 64] }\nalgorithm Tuned = PPO { gamma: ⟦1.5⟧ }\nenv Swing = Pendulum { ⟦gravity⟧: 9.8 }\n`;
    expectRecovered(source, [
      { code: 'syntax-error', message: "expected '}' but found 'policy'" },
      { code: 'out-of-range', message: 'gamma must be >= 0 and <= 1; found 1.5' },
      { code: 'unknown-property', message: "Pendulum has no property 'gravity'" },
    ], ['Pole', 'Actor', 'Tuned', 'Swing']);
    const pole = parse(stripMarkers(source).text).file.declarations[0];
    assert.equal(pole.body?.closed, false);
    assert.deepEqual(pole.body?.members.map((m) => m.kind === 'Property' && m.path[0].text), ['max_steps']);
  });

  test('a broken value does not hide the errors after it in the same body', () => {
    // `learning_rate: : 1e-3` once threw the rest of the body away, so `gamma` was checked only
    // after the syntax was fixed.
    const source = `algorithm Tuned = PPO {\n  learning_rate: ⟦:⟧ 1e-3\n  gamma: ⟦1.5⟧\n  ⟦clipp⟧: 0.2\n}\nenv Pole = CartPole { max_steps: ⟦0⟧ }\n`;
    expectRecovered(source, [
      { code: 'syntax-error', message: "expected a value (number, string, name, list or call) but found ':'" },
      { code: 'out-of-range', message: 'gamma must be >= 0 and <= 1; found 1.5' },
      { code: 'unknown-property', message: "PPO has no property 'clipp'" },
      { code: 'out-of-range', message: 'max_steps must be >= 1' },
    ], ['Tuned', 'Pole']);
    const tuned = parse(stripMarkers(source).text).file.declarations[0];
    assert.equal(tuned.body?.closed, true);
  });

  test('stray tokens between members are one error, and the members around them still parse', () => {
    const source = `algorithm Tuned = PPO {\n  gamma: 0.9 ⟦0.5 )⟧\n  clip: ⟦20⟧\n}\n`;
    expectRecovered(source, [
      { code: 'syntax-error', message: "unexpected '0.5 )': expected a property ('name: value'), a block ('name { ... }'), 'term' or 'stage'" },
      { code: 'out-of-range', message: 'clip must be > 0 and <= 10; found 20' },
    ], ['Tuned']);
  });

  test('a property named like a declaration kind is still a property (env: Pole)', () => {
    // The body stops only at a kind keyword followed by a name, so `env: Pole` stays inside.
    const source = `env Pole = CartPole {}\npolicy Actor = mlp {}\nexperiment E {\n  env: Pole\n  policy: Actor\n  algorithm: PPO\n  budget: 1k\n\nenv B = CartPole { max_steps: ⟦0⟧ }\n`;
    expectDiagnostics(source, [{ code: 'out-of-range', message: 'max_steps must be >= 1' }], { others: 'allowed' });
    assert.deepEqual(declared(source), ['Pole', 'Actor', 'E', 'B']);
    const e = parse(stripMarkers(source).text).file.declarations[2];
    assert.deepEqual(e.body?.members.map((m) => m.kind === 'Property' && m.path[0].text), ['env', 'policy', 'algorithm', 'budget']);
  });

  test('a stray token at the top level', () => {
    expectRecovered(`env A = CartPole {}\n⟦}⟧\nenv B = CartPole { max_steps: ⟦0⟧ }\n`, [
      { code: 'syntax-error', message: "unexpected '}': expected a declaration (env, reward, policy, algorithm, experiment, sweep) or an import" },
      { code: 'out-of-range', message: 'max_steps must be >= 1' },
    ], ['A', 'B']);
  });

  test('garbage between declarations is one error per run of garbage', () => {
    expectRecovered(`env A = CartPole {}\n⟦1 2 3 ( :⟧\nenv B = CartPole {}\n⟦"hello" . world⟧\nenv C = CartPole {}\n`, [
      { code: 'syntax-error', message: "unexpected '1 2 3 ( :'" },
      { code: 'syntax-error', message: "unexpected '\"hello\" . world'" },
    ], ['A', 'B', 'C']);
  });

  test('a missing value, then more properties that are still checked', () => {
    expectRecovered(`algorithm A = PPO {\n  gamma: ⟦,⟧\n  clip: ⟦20⟧\n  epochs: ⟦0.5⟧\n}\nenv B = CartPole {}\n`, [
      { code: 'syntax-error', message: "but found ','" },
      { code: 'out-of-range', message: 'clip must be > 0 and <= 10' },
      { code: 'type-mismatch', message: 'epochs expects a whole number' },
    ], ['A', 'B']);
  });

  test('a missing value at the end of a body', () => {
    expectRecovered(`algorithm A = PPO { gamma: ⟦}⟧\nenv B = CartPole {}\n`, [
      { code: 'syntax-error', message: "expected a value (number, string, name, list or call) but found '}'" },
    ], ['A', 'B']);
  });

  test('an unclosed list before the next property', () => {
    expectRecovered(`policy P = mlp {\n  hidden: [64, 64\n  ⟦activation⟧: relu\n}\npolicy Q = mlp { activation: ⟦sigmoid⟧ }\n`, [
      { code: 'syntax-error', message: "expected ']' but found 'activation'" },
      { code: 'type-mismatch', message: "'sigmoid' is not a valid activation" },
    ], ['P', 'Q']);
  });

  test('an unclosed list before the closing brace', () => {
    expectRecovered(`policy P = mlp { hidden: [64, 64 ⟦}⟧\npolicy Q = mlp { hidden: [⟦0⟧] }\n`, [
      { code: 'syntax-error', message: "expected ']' but found '}'" },
      { code: 'out-of-range', message: 'each item of hidden must be >= 1' },
    ], ['P', 'Q']);
  });

  test('an unterminated string ends at the end of its line', () => {
    const source = `algorithm A = SFT {\n  data: ⟦"demos.jsonl⟧\n  updates: ⟦0⟧\n}\nenv B = CartPole {}\n`;
    expectRecovered(source, [
      { code: 'invalid-character', message: "unterminated string: add the closing '\"' on the same line" },
      { code: 'out-of-range', message: 'updates must be >= 1' },
    ], ['A', 'B']);
    const data = parse(stripMarkers(source).text).file.declarations[0].body?.members[0];
    assert.ok(data?.kind === 'Property' && data.value?.kind === 'String');
    assert.equal(data.value.value, 'demos.jsonl', 'the value reads as if the string were closed');
  });

  test('an unclosed call', () => {
    expectRecovered(`algorithm A = PPO {\n  learning_rate: linear(1e-3, 0\n  ⟦clip⟧: 0.1\n}\nenv B = CartPole {}\n`, [
      { code: 'syntax-error', message: "expected ')' but found 'clip'" },
    ], ['A', 'B']);
  });

  test('an unclosed parenthesis in a reward term', () => {
    expectRecovered(`reward R {\n  term a = -(abs(obs.x) + 1\n  ⟦term⟧ b = ⟦foo⟧(1)\n}\nenv B = CartPole {}\n`, [
      { code: 'syntax-error', message: "expected ')' but found 'term'" },
      { code: 'unknown-function', message: "unknown function 'foo'" },
    ], ['R', 'B']);
  });

  test("a missing '}' at the end of the file", () => {
    expectRecovered(`env A = CartPole {}\nenv B = CartPole {\n  max_steps: 5⟦⟧`, [
      { code: 'syntax-error', message: "expected '}' but found the end of the file" },
    ], ['A', 'B']);
  });

  test('a declaration cut short after its name, then the next one', () => {
    expectRecovered(`env A = ⟦env⟧ B = CartPole { max_steps: ⟦0⟧ }\n`, [
      { code: 'syntax-error', message: "expected a name but found 'env'" },
      { code: 'out-of-range', message: 'max_steps must be >= 1' },
    ], ['A', 'B']);
  });

  test('errors in several files are reported in each', () => {
    expectDiagnostics({
      'main.rlx': 'import "./other.rlx"\nenv A = CartPole { max_steps: ⟦,⟧ }\n',
      'other.rlx': 'env B = CartPole {\n⟦@⟧\n}\n',
    }, [
      { code: 'syntax-error', message: "but found ','" },
      { code: 'invalid-character', message: "unexpected character '@'" },
    ]);
  });

  test('an inline algorithm body in an experiment: one error that says what to write, and the members after it still count (issue 43 item 20)', () => {
    expectRecovered('env Pole = CartPole { }\npolicy P = mlp { }\nexperiment E {\n  env: Pole\n  policy: P\n  algorithm: PPO ⟦{ gamma: 0.9 }⟧\n  budget: 10k\n}\n', [
      { code: 'syntax-error', message: "a property's value takes no { } body: declare the settings (`algorithm Tuned = PPO { ... }`) and write `algorithm: Tuned`, or train it as a stage (`stage main = PPO { ... }`)" },
    ], ['Pole', 'P', 'E']);
    expectRecovered('env Pole = CartPole { }\npolicy P = mlp { }\nexperiment E { env: Pole ⟦{ max_steps: 5 }⟧, policy: P, algorithm: PPO, budget: 1k, seed: ⟦-1⟧ }\n', [
      { code: 'syntax-error', message: "a property's value takes no { } body: declare the settings (`env Tuned = Pole { ... }`) and write `env: Tuned`" },
      { code: 'out-of-range', message: /seed/ },
    ], ['Pole', 'P', 'E']);
  });
});
