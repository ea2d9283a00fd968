// The sampling controls where decoding runs K tokens per session run (chunked-decoder.ts, a
// GPU's rollouts): stop strings end a completion where the one-step loop ends it; controls
// that change the distribution cannot run in the graph and are refused there (generate()
// keeps them on the one-step loop). On the CPU, as the chunked tests compare the two.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { generate, generateInChunks, type GenerateOptions } from '../../../runtime/lm/generate.js';
import { openModelFolder } from '../../../runtime/lm/model-folder.js';
import { PretrainedLm } from '../../../runtime/lm/pretrained.js';
import { StopStrings } from '../../../runtime/lm/sampling.js';
import { HF_TINY } from '../../helpers/pretrained.js';

test('greedy chunks with a stop string end where the one-step loop ends, token for token', async () => {
  const lm = PretrainedLm.load(openModelFolder(path.join(HF_TINY, 'qwen2')));
  try {
    const decoder = await lm.decoder();
    const prompts = [[5, 17, 42, 8], [9, 3], [100, 101, 102]];
    const base: GenerateOptions = { maxNewTokens: 16, greedy: true, stopIds: lm.tokenizer.eosIds, padId: 0 };
    const plain = await generate(decoder, prompts, base);
    const decode = (ids: readonly number[]) => lm.tokenizer.decode(ids, { skipSpecialTokens: true });
    // A string the first row writes in its 4th-6th tokens.
    const stop = decode(plain[0]!.ids.slice(3, 6));
    assert.ok(stop.length > 0);
    const options = { ...base, stopStrings: new StopStrings([stop], decode) };
    const oneStep = await generate(decoder, prompts, options);
    const chunked = await generateInChunks(decoder, prompts, options, 4);
    assert.deepEqual(chunked.map((c) => [c.ids, c.finish]), oneStep.map((c) => [c.ids, c.finish]));
    assert.ok(oneStep[0]!.ids.length <= 6 && oneStep[0]!.finish === 'stop', `${oneStep[0]!.ids}`);
    await assert.rejects(generateInChunks(decoder, prompts, { ...base, controls: { topP: 0.9 } }, 4), /run in the one-step loop/);
  } finally {
    await lm.release();
  }
});
