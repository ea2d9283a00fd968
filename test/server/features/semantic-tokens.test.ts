import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SEMANTIC_TOKENS_LEGEND, semanticTokens } from '../../../server/features/semantic-tokens.js';
import { fixture } from './fixture.js';

/** The encoded tokens decoded to `line:char text type [modifiers]`, one string per token. */
function decode(source: string): string[] {
  const f = fixture(source);
  const { data } = semanticTokens(f.doc);
  const lines = f.doc.unit.text.split('\n');
  const out: string[] = [];
  let line = 0;
  let char = 0;
  for (let i = 0; i < data.length; i += 5) {
    const [deltaLine, deltaChar, length, type, modifiers] = data.slice(i, i + 5);
    line += deltaLine;
    char = deltaLine === 0 ? char + deltaChar : deltaChar;
    const names = SEMANTIC_TOKENS_LEGEND.tokenModifiers.filter((_, bit) => modifiers & (1 << bit));
    out.push(`${line}:${char} ${lines[line].slice(char, char + length)} ${SEMANTIC_TOKENS_LEGEND.tokenTypes[type]}${names.length ? ` [${names.join(',')}]` : ''}`);
  }
  return out;
}

function check(source: string, expected: string[]): void {
  assert.deepEqual(decode(source), expected);
}

describe('semantic tokens', () => {
  it('declarations by kind (declaration modifier), built-in bases (defaultLibrary), properties, numbers with suffixes', () => {
    check('/// The pole.\nenv Pole = CartPole { max_steps: 200k }', [
      '0:0 /// The pole. comment [documentation]',
      '1:0 env keyword',
      '1:4 Pole class [declaration]',
      '1:9 = operator',
      '1:11 CartPole class [defaultLibrary]',
      '1:22 max_steps property',
      '1:33 200k number',
    ]);
  });

  it('references coloured by the kind they refer to; keywords used as property names are properties', () => {
    check('policy Actor = mlp\nalgorithm T = DQN\nreward R { term a = 1 }\nexperiment E { env: CartPole, policy: Actor, algorithm: T, reward: R, budget: 1.5M }\nsweep S over E { seeds: [1] }', [
      '0:0 policy keyword', '0:7 Actor struct [declaration]', '0:13 = operator', '0:15 mlp struct [defaultLibrary]',
      '1:0 algorithm keyword', '1:10 T type [declaration]', '1:12 = operator', '1:14 DQN type [defaultLibrary]',
      '2:0 reward keyword', '2:7 R function [declaration]', '2:11 term keyword', '2:16 a variable [declaration]', '2:18 = operator', '2:20 1 number',
      '3:0 experiment keyword', '3:11 E namespace [declaration]',
      '3:15 env property', '3:20 CartPole class [defaultLibrary]',
      '3:30 policy property', '3:38 Actor struct',
      '3:45 algorithm property', '3:56 T type',
      '3:59 reward property', '3:67 R function',
      '3:70 budget property', '3:78 1.5M number',
      '4:0 sweep keyword', '4:6 S macro [declaration]', '4:8 over keyword', '4:13 E namespace', '4:17 seeds property', '4:25 1 number',
    ]);
  });

  it('expressions: functions, reward names, fields, options, schedules, arguments, strings, metrics', () => {
    check('reward R { term a = -0.05 * abs(obs.x) + regex(completion, "^[0-9]+$") }', [
      '0:0 reward keyword', '0:7 R function [declaration]', '0:11 term keyword', '0:16 a variable [declaration]', '0:18 = operator',
      '0:20 - operator', '0:21 0.05 number', '0:26 * operator', '0:28 abs function [defaultLibrary]',
      '0:32 obs variable [defaultLibrary,readonly]', '0:36 x property [readonly]', '0:39 + operator',
      '0:41 regex function [defaultLibrary]', '0:47 completion variable [defaultLibrary,readonly]', '0:59 "^[0-9]+$" string',
    ]);
    check('algorithm T = DQN { relabel: future(k: 4), epsilon: linear(1, 0.05, over: 0.5), double: true }', [
      '0:0 algorithm keyword', '0:10 T type [declaration]', '0:12 = operator', '0:14 DQN type [defaultLibrary]',
      '0:20 relabel property', '0:29 future enumMember [defaultLibrary]', '0:36 k parameter', '0:39 4 number',
      '0:43 epsilon property', '0:52 linear function [defaultLibrary]', '0:59 1 number', '0:62 0.05 number', '0:68 over parameter', '0:74 0.5 number',
      '0:80 double property', '0:88 true keyword',
    ]);
    check('experiment E { stop: eval.mean_return >= 475 }', [
      '0:0 experiment keyword', '0:11 E namespace [declaration]', '0:15 stop property',
      '0:21 eval variable [defaultLibrary,readonly]', '0:26 mean_return variable [defaultLibrary,readonly]', '0:38 >= operator', '0:41 475 number',
    ]);
  });

  it('a block comment over several lines is one token per line; unknown names get none', () => {
    check('/* one\ntwo */\nexperiment E { env: Nowhere }', [
      '0:0 /* one comment', '1:0 two */ comment', '2:0 experiment keyword', '2:11 E namespace [declaration]', '2:15 env property',
    ]);
  });

  it('the encoding: relative lines and starts, lengths, legend indexes, modifier bits', () => {
    const { data } = semanticTokens(fixture('env Pole = CartPole\n  // x').doc);
    const type = (name: string) => SEMANTIC_TOKENS_LEGEND.tokenTypes.indexOf(name);
    const bit = (name: string) => 1 << SEMANTIC_TOKENS_LEGEND.tokenModifiers.indexOf(name);
    assert.deepEqual(data, [
      0, 0, 3, type('keyword'), 0,
      0, 4, 4, type('class'), bit('declaration'),
      0, 5, 1, type('operator'), 0,
      0, 2, 8, type('class'), bit('defaultLibrary'),
      1, 2, 4, type('comment'), 0,
    ]);
  });

  it('the legend lists what the tokens use', () => {
    assert.ok(SEMANTIC_TOKENS_LEGEND.tokenTypes.includes('enumMember'));
    assert.deepEqual(SEMANTIC_TOKENS_LEGEND.tokenModifiers, ['declaration', 'defaultLibrary', 'documentation', 'readonly']);
  });
});
