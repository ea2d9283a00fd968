// The character-level tokenizer: ids from the alphabet, a round trip through text and
// through the JSON form checkpoints store, and errors that say which character and where.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BOS, CharTokenizer, EOS, PAD, SPECIAL_TOKENS, TokenizerError } from '../../../runtime/policies/transformer/char-tokenizer.js';

describe('CharTokenizer', () => {
  const addition = CharTokenizer.fromAlphabet('0123456789+=');

  it('puts the special tokens first, then the characters in code point order, once each', () => {
    assert.deepEqual(addition.vocabulary, ['<pad>', '<bos>', '<eos>', '+', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '=']);
    assert.deepEqual([PAD, BOS, EOS], [0, 1, 2]);
    assert.equal(addition.size, 15);
    assert.deepEqual(CharTokenizer.fromAlphabet(['ba', 'ab', 'a']).vocabulary, [...SPECIAL_TOKENS, 'a', 'b'], 'the same alphabet in any order gives the same ids');
  });

  it('encodes one id per character, framed on request, and decodes back', () => {
    const ids = addition.encode('12+34=', { bos: true, eos: true });
    assert.deepEqual(ids, [BOS, 5, 6, 3, 7, 8, 14, EOS]);
    assert.equal(addition.decode(ids), '12+34=');
    assert.deepEqual(addition.encode(''), []);
    assert.equal(addition.decode([]), '');
  });

  it('decodes up to the first EOS, skipping padding and BOS', () => {
    const [four, six] = addition.encode('46');
    assert.equal(addition.decode([BOS, four, six, EOS, four, four]), '46');
    assert.equal(addition.decode([PAD, PAD, four, PAD, six]), '46');
  });

  it('treats an astral character or a combining mark as one character', () => {
    const t = CharTokenizer.fromAlphabet(['a😀e\u0301']);
    assert.deepEqual(t.vocabulary.slice(SPECIAL_TOKENS.length), ['a', 'e', '\u0301', '😀']);
    assert.deepEqual(t.encode('😀e\u0301a'), [6, 4, 5, 3]);
    assert.equal(t.decode(t.encode('😀e\u0301a')), '😀e\u0301a');
  });

  it('names an unknown character, its code point, its position and where it was', () => {
    assert.throws(
      () => addition.encode('12-3', { where: 'prompt "12-3"' }),
      (err: Error) => err instanceof TokenizerError && err.message === 'prompt "12-3": character "-" (U+002D) at position 3 is not in the task\'s vocabulary (12 characters: "+0123456789="); a policy trained on this task cannot read it',
    );
    assert.throws(() => addition.encode('1😀'), /character "😀" \(U\+1F600\) at position 2/);
    assert.throws(() => addition.encode('<eos>'), /character "<" \(U\+003C\) at position 1/, 'special tokens are not text');
  });

  it('refuses ids outside the vocabulary when decoding', () => {
    assert.throws(() => addition.decode([5, 15]), /token id 15 at position 2 is outside the vocabulary \(ids 0 to 14\)/);
    assert.throws(() => addition.decode([-1]), /token id -1/);
  });

  it('round-trips through JSON, as a checkpoint stores it', () => {
    const stored = JSON.parse(JSON.stringify(addition));
    assert.deepEqual(stored, { kind: 'char', vocabulary: addition.vocabulary });
    const back = CharTokenizer.fromJSON(stored);
    assert.deepEqual(back.vocabulary, addition.vocabulary);
    assert.deepEqual(back.encode('99+1='), addition.encode('99+1='));
  });

  it('refuses a stored vocabulary that is not one, saying where and what is wrong', () => {
    const cases: [unknown, RegExp][] = [
      [null, /checkpoint\.json: "kind" must be "char", got nothing/],
      [{ kind: 'bpe', vocabulary: [] }, /"kind" must be "char", got "bpe"/],
      [{ kind: 'char' }, /"vocabulary" must be a list/],
      [{ kind: 'char', vocabulary: ['<bos>', '<pad>', '<eos>'] }, /vocabulary entry 0 must be "<pad>", got "<bos>"/],
      [{ kind: 'char', vocabulary: [...SPECIAL_TOKENS, 'ab'] }, /vocabulary entry 3 must be one character, got "ab"/],
      [{ kind: 'char', vocabulary: [...SPECIAL_TOKENS, 7] }, /vocabulary entry 3 must be one character, got 7/],
      [{ kind: 'char', vocabulary: [...SPECIAL_TOKENS, 'a', 'b', 'a'] }, /vocabulary entry 5 repeats "a"/],
    ];
    for (const [json, message] of cases) {
      assert.throws(() => CharTokenizer.fromJSON(json, 'checkpoint.json'), (err: Error) => err instanceof TokenizerError && err.message.startsWith('checkpoint.json: ') && message.test(err.message), JSON.stringify(json));
    }
  });
});
