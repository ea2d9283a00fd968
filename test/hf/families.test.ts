// The model families as one list of definitions (hf/families/): what the checker, hover, the
// loader and the exporter read about a family comes from its definition.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FAMILIES, parseLmConfig } from '../../hf/config.js';
import { FAMILY_DEFINITIONS } from '../../hf/families/index.js';
import { linearModules } from '../../hf/lora.js';
import { LORA_TARGETS } from '../../dsl/schema/index.js';

const TINY: Record<string, Record<string, unknown>> = {
  gpt2: { n_layer: 1, n_embd: 8, n_head: 2, n_positions: 16, vocab_size: 32 },
  llama: { hidden_size: 8, num_attention_heads: 2, num_hidden_layers: 1, intermediate_size: 16, max_position_embeddings: 16, vocab_size: 32 },
};
const tinyConfig = (modelType: string) => parseLmConfig({ model_type: modelType, ...(TINY[modelType] ?? TINY.llama) });

describe('hf/families: one definition per family, listed once', () => {
  it('lists each model_type once, in the order config.json refusals name them', () => {
    assert.deepEqual([...FAMILIES], ['llama', 'qwen2', 'qwen3', 'gpt2']);
    assert.equal(new Set(FAMILIES).size, FAMILIES.length);
  });

  it('a config.json of another model_type is refused naming every listed family by its display name', () => {
    assert.throws(() => parseLmConfig({ model_type: 'mistral' }), /model_type "mistral" is not supported; rlx builds llama, qwen2, qwen3, gpt2 \(Llama, Qwen2, Qwen3 and GPT-2 architectures\)/);
  });

  for (const definition of FAMILY_DEFINITIONS) {
    it(`${definition.modelType}: its config reads as its family, its default LoRA targets are layers it has, and its modules are the registry's targets`, () => {
      const config = tinyConfig(definition.modelType);
      assert.equal(config.family, definition.modelType);
      const modules = new Set(linearModules(config).map((m) => m.module));
      for (const target of definition.defaultLoraTargets) assert.ok(modules.has(target), `${definition.modelType}: default target ${target} is one of ${[...modules].join(', ')}`);
      const registry = LORA_TARGETS.map((o) => o.name);
      for (const module of modules) assert.ok(registry.includes(module), `${module} is a lora target the schema registry documents`);
    });
  }
});
