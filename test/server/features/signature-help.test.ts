import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signatureHelp } from '../../../server/features/signature-help.js';
import type { Sources } from '../../helpers/source.js';
import { fixture } from './fixture.js';

/** The signature shown at `$0` with its active parameter marked in brackets: `linear(from, [to], over = 1)`; null when none. */
function check(source: Sources, expected: string | null): void {
  const f = fixture(source);
  const help = signatureHelp(f.doc, f.cursor);
  if (!help) return assert.equal(null, expected);
  const signature = help.signatures[help.activeSignature ?? 0];
  const active = help.activeParameter === null || help.activeParameter === undefined ? undefined : signature.parameters?.[help.activeParameter];
  let label = signature.label;
  if (active && Array.isArray(active.label)) {
    const [start, end] = active.label;
    label = `${label.slice(0, start)}[${label.slice(start, end)}]${label.slice(end)}`;
  }
  assert.equal(label, expected);
}

describe('signature help', () => {
  it('schedules: the active parameter by position', () => {
    check('algorithm X = PPO { learning_rate: linear($0) }', 'linear([from], to, over = 1)');
    check('algorithm X = PPO { learning_rate: linear(2.5e-4, $0) }', 'linear(from, [to], over = 1)');
    check('algorithm X = PPO { learning_rate: linear(2.5e-4, 0$0) }', 'linear(from, [to], over = 1)');
  });

  it('by name when the argument is named', () => {
    check('algorithm X = DQN { epsilon: linear(1, 0.05, over: $0) }', 'linear(from, to, [over = 1])');
    check('algorithm X = DQN { epsilon: linear(to: 0.05, $0 from: 1) }', 'linear(from, to, over = 1)');
  });

  it('works on incomplete text: an unclosed call at the end of the file', () => {
    check('algorithm X = DQN { epsilon: cosine(1, $0', 'cosine(from, [to], over = 1)');
  });

  it('the innermost call: a schedule inside warmup', () => {
    check('algorithm X = PPO { clip: warmup(1000, linear(0.2, $0)) }', 'linear(from, [to], over = 1)');
    check('algorithm X = PPO { clip: warmup(1000, $0) }', 'warmup(steps, [then])');
  });

  it('options that take arguments', () => {
    check('algorithm X = DQN { relabel: future($0) }', 'future([k = 4])');
    check('env X = GridWorld { goal: fixed(3, $0) }', 'fixed(x, [y])');
    check('env X = TextTask { task: addition(digits: $0) }', 'addition([digits = 2], pad = false)');
    check('env X = TextTask { task: addition(digits: 2, pad: $0) }', 'addition(digits = 2, [pad = false])');
  });

  it('reward functions and verifiers, with types; variadic ones stay on their one parameter', () => {
    check('reward R { term a = -0.1 * clip(obs.x, -1, $0) }', 'clip(x: number, lo: number, [hi: number]) -> number');
    check('reward R { term a = numeric(completion, target, tol: $0) }', 'numeric(a: string, b: string, [tol: number = 1e-6]) -> bool');
    check('reward R { term a = max(obs.x, obs.y, $0) }', 'max([x: number], ...) -> number');
    check('experiment E { stop: abs($0) }', 'abs([x: number]) -> number');
  });

  it('past the last parameter no parameter is active', () => {
    check('algorithm X = PPO { learning_rate: constant(1, $0) }', 'constant(value)');
  });

  it('module("...") of an env', () => {
    check('env Mine = module("./mine.ts$0")', 'module([path: string])');
  });

  it('none outside a call, after it closes, or for what is not callable', () => {
    check('algorithm X = PPO { learning_rate: $0 }', null);
    check('algorithm X = PPO { learning_rate: linear(1, 0)$0 }', null);
    check('algorithm X = PPO { epochs: foo($0) }', null);
  });
});
