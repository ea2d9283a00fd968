// Policy kinds only read their settings; what an algorithm trains is a family that says how each
// kind is built (family.ts, language-model.ts), so a new learner brings its networks without a
// method on every policy kind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LANGUAGE_MODEL, ownsTokenizer, PolicyFactory, POLICIES, TOKEN_MODEL, TransformerPolicy } from '../../../runtime/policies/index.js';
import { Rng } from '../../../shared/random.js';
import { CharTokenizer } from '../../../runtime/policies/transformer/char-tokenizer.js';

const tokenizer = CharTokenizer.fromAlphabet('+0123456789=');
const mlp = { kind: 'mlp', name: 'Net', params: { hidden: [8], activation: 'tanh', shared_trunk: false } };
const transformer = { kind: 'transformer', name: 'Tiny', params: { layers: 1, width: 8, heads: 2, context: 16 } };

test('a policy kind is its name and its settings, with no method for one kind of algorithm', () => {
  for (const definition of POLICIES) assert.deepEqual(Object.keys(definition).sort(), ['name', 'settings'], definition.name);
});

test('a text learner asks the factory for a language model: a transformer is one, an mlp is refused naming both', async () => {
  const model = new PolicyFactory(transformer, null, new Rng(1)).languageModel(LANGUAGE_MODEL, 'GRPO', { tokenizer });
  assert.ok(model instanceof TransformerPolicy);
  assert.equal(model.tokenizer, tokenizer);
  await model.release();
  assert.throws(
    () => new PolicyFactory(mlp, null, new Rng(1)).languageModel(LANGUAGE_MODEL, 'GRPO', { tokenizer }),
    { message: "GRPO trains a language model over the task's tokens, which policy Net (mlp) cannot be; use a transformer policy" },
  );
});

test('a pretrained model is a language model with a tokenizer of its own, not a token model over the task', () => {
  assert.ok(Object.hasOwn(LANGUAGE_MODEL.kinds, 'pretrained') && !Object.hasOwn(TOKEN_MODEL.kinds, 'pretrained'));
  assert.deepEqual(['mlp', 'transformer', 'pretrained'].map(ownsTokenizer), [false, false, true]);
  assert.throws(
    () => new PolicyFactory({ kind: 'pretrained', name: 'Qwen', params: {}, path: 'models/qwen' }, null, new Rng(1)).languageModel(TOKEN_MODEL, 'a token model', { tokenizer }),
    { message: "a token model trains a language model over the task's tokens, which policy Qwen (pretrained) cannot be; use a transformer policy" },
  );
});
