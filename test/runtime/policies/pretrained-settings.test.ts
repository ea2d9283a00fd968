// A pretrained policy's settings as the trainer reads them from a plan: what a setting the plan
// leaves out means is the schema registry's default, the one the checker, hover and the compiler
// show, so a hand-written plan trains what the same .rlx text would.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pretrained } from '../../../dsl/schema/index.js';
import { pretrainedParams } from '../../../runtime/policies/pretrained-settings.js';

const registryDefault = (name: string) => pretrained.blocks!.find((b) => b.name === 'lora')!.params.find((p) => p.name === name)!.default;

describe('pretrained policy settings from a plan', () => {
  it('a lora block without alpha or rank takes the registry\'s defaults (alpha is not 2 x rank)', () => {
    const withRank = pretrainedParams({ lora: { rank: 16, targets: ['q_proj'] } }, './models/m');
    assert.equal(withRank.lora?.alpha, registryDefault('alpha'));
    assert.equal(withRank.lora?.alpha, 8);
    const bare = pretrainedParams({ lora: { targets: ['q_proj'] } }, './models/m');
    assert.equal(bare.lora?.rank, registryDefault('rank'));
    assert.equal(bare.lora?.alpha, registryDefault('alpha'));
  });

  it('a plan\'s own rank and alpha are kept', () => {
    const lora = pretrainedParams({ lora: { rank: 4, alpha: 32, targets: ['q_proj'] } }, './models/m').lora;
    assert.deepEqual([lora?.rank, lora?.alpha], [4, 32]);
  });
});
