// Pretrained language models in the language: `policy Base = pretrained("./models/x") { lora { } chat { } }`,
// each check at its range, the memory estimate against the machine's free memory, and the plan.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { compile, type Plan } from '../../dsl/index.js';
import { FAMILIES, parseLmConfig } from '../../hf/config.js';
import { linearModules } from '../../hf/lora.js';
import { LORA_TARGETS } from '../../dsl/schema/index.js';
import { checkPretrained, expectPretrained, HF_TINY, modelFolder, tiny, tinyFile, written } from '../helpers/pretrained.js';
import { virtualPath } from '../helpers/source.js';

const TEXT = 'env Arith = TextTask { task: addition(digits: 2), max_tokens: 4 }\n';
const run = (policy = 'Base', extra = '') => `experiment E {\n  env: Arith\n  policy: ${policy}\n  algorithm: GRPO\n  budget: 1k\n${extra}}\n`;

describe('pretrained("...") checks', () => {
  it('a Hugging Face folder of each family checks clean, with nothing said of the trainer (it trains them)', () => {
    for (const family of ['qwen2', 'llama', 'gpt2'] as const) expectPretrained(`policy Base = ${tiny(family)}\n${TEXT}${run()}`, []);
    const checked = checkPretrained(`policy Base = ${tiny('qwen2')}\n`);
    assert.equal(checked.all.find((d) => d.code === 'not-implemented'), undefined);
  });

  it('a folder that does not exist: model-not-found at the path, saying how to get one', () => {
    const [d] = expectPretrained('policy Base = pretrained(⟦"./models/Qwen3-0.6B"⟧)\n', [{ code: 'model-not-found' }]);
    assert.match(d!.message, /^cannot find the model folder '\.\/models\/Qwen3-0\.6B' \(looked for .*Qwen3-0\.6B\); pretrained\("\.\.\."\) paths are relative to this file\. /);
    assert.match(d!.message, /config\.json, tokenizer\.json and model\.safetensors/);
    assert.match(d!.message, /`hf download Qwen\/Qwen3-0\.6B --local-dir \.\/models\/Qwen3-0\.6B`/);
  });

  it('a file instead of a folder', () => {
    const file = written(path.join(HF_TINY, 'qwen2', 'config.json'));
    expectPretrained(`policy Base = pretrained(⟦"${file}"⟧)\n`, [{ code: 'model-not-found', message: 'is a file; pretrained("...") names a model folder' }]);
  });

  it('config.json missing, unreadable or of a model rlx does not build: invalid-model with the reader\'s message', () => {
    const base = JSON.parse(tinyFile('qwen2', 'config.json')) as Record<string, unknown>;
    const weights = { 'tokenizer.json': '{}', 'model.safetensors': '' };
    const cases: [Record<string, string>, RegExp][] = [
      [weights, /^cannot read the model config .*config\.json: /],
      [{ ...weights, 'config.json': '{ "model_type": ' }, /config\.json is not valid JSON/],
      [{ ...weights, 'config.json': JSON.stringify({ ...base, model_type: 'mistral' }) }, /config\.json: model_type "mistral" is not supported; rlx builds llama, qwen2, qwen3, gpt2/],
      [{ ...weights, 'config.json': JSON.stringify({ ...base, num_key_value_heads: 3 }) }, /"num_key_value_heads" \(3\) must divide num_attention_heads \(4\)/],
    ];
    for (const [files, message] of cases) {
      const dir = modelFolder(files);
      try {
        expectPretrained(`policy Base = pretrained(⟦"${written(dir)}"⟧)\n`, [{ code: 'invalid-model', message }]);
      } finally {
        fs.rmSync(dir, { recursive: true });
      }
    }
  });

  it('no tokenizer.json, or no weights: invalid-model naming the missing file', () => {
    const config = tinyFile('qwen2', 'config.json');
    const cases: [Record<string, string>, string][] = [
      [{ 'config.json': config, 'model.safetensors': '' }, 'has no tokenizer.json;'],
      [{ 'config.json': config, 'tokenizer.json': '{}' }, 'has no model.safetensors (or model.safetensors.index.json and its shards);'],
      [{ 'config.json': config, 'tokenizer.json': '{}', 'model.safetensors.index.json': '{}' }, ''],
    ];
    for (const [files, message] of cases) {
      const dir = modelFolder(files);
      try {
        const source = `policy Base = pretrained(${message ? '⟦' : ''}"${written(dir)}"${message ? '⟧' : ''})\n`;
        expectPretrained(source, message ? [{ code: 'invalid-model', message }] : []);
      } finally {
        fs.rmSync(dir, { recursive: true });
      }
    }
  });

  it('a folder that appears (a download finishing) is seen at the next check', () => {
    const dir = modelFolder({ 'config.json': tinyFile('qwen2', 'config.json'), 'model.safetensors': '' });
    try {
      const source = `policy Base = pretrained("${written(dir)}")\n`;
      assert.ok(checkPretrained(source).all.some((d) => d.code === 'invalid-model'));
      fs.writeFileSync(path.join(dir, 'tokenizer.json'), '{}');
      // The folder's modification time may not move within its clock's resolution; set it as a later write would.
      const later = new Date(Date.now() + 5000);
      fs.utimesSync(dir, later, later);
      assert.deepEqual(checkPretrained(source).all.filter((d) => d.code === 'invalid-model'), []);
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });

  it('pretrained(...) is for policies only, and takes one folder in quotes', () => {
    expectPretrained(`env Mine = ⟦${tiny('qwen2')}⟧\n`, [{ code: 'invalid-base', message: 'only policies can be pretrained models; write `policy Base = pretrained("./models/Qwen3-0.6B")`' }]);
    expectPretrained('policy Base = ⟦pretrained⟧ { }\n', [{ code: 'wrong-arguments', message: 'pretrained takes the model folder: `policy Base = pretrained("./models/Qwen3-0.6B")`' }]);
    expectPretrained('policy Base = ⟦pretrained(12)⟧\n', [{ code: 'wrong-arguments', message: 'pretrained takes one folder path in quotes' }]);
    expectPretrained(`policy Base = ${tiny('qwen2')}\n${TEXT}${run('⟦pretrained⟧')}`, [{ code: 'type-mismatch', message: 'pretrained needs its model folder: declare `policy Base = pretrained("./models/Qwen3-0.6B")` and write `policy: Base`' }]);
  });

  it('a policy without a base names pretrained with its folder among the bases', () => {
    expectPretrained('policy ⟦P⟧ { }\n', [{ code: 'invalid-base', message: 'a policy needs a base: mlp, cnn, transformer, pretrained("./models/NAME") or another policy' }]);
  });

  it('a transformer\'s or an mlp\'s settings in its body are unknown properties', () => {
    expectPretrained(`policy Base = ${tiny('qwen2')} {\n  ⟦layers⟧: 2\n  ⟦hidden⟧: [64]\n}\n`, [
      { code: 'unknown-property', message: "pretrained has no property 'layers'" },
      { code: 'unknown-property', message: "pretrained has no property 'hidden'" },
    ]);
  });

  it('lora { } targets are checked against the model\'s family, with did-you-mean', () => {
    expectPretrained(`policy Base = ${tiny('qwen2')} {\n  lora { rank: 16, alpha: 32, targets: [q_proj, k_proj, v_proj, o_proj], rslora: true }\n}\n`, []);
    expectPretrained(`policy Base = ${tiny('gpt2')} {\n  lora { targets: [c_attn, ⟦q_proj⟧] }\n}\n`, [
      { code: 'unknown-name', message: "a gpt2 model has no layer 'q_proj'; its linear layers are c_attn, c_proj, c_fc; did you mean 'c_proj'?" },
    ]);
    expectPretrained(`policy Base = ${tiny('llama')} {\n  lora { targets: [⟦c_fc⟧] }\n}\n`, [
      { code: 'unknown-name', message: "a llama model has no layer 'c_fc'; its linear layers are q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj" },
    ]);
    expectPretrained(`policy Base = ${tiny('llama')} {\n  lora { targets: [⟦q_prj⟧], rank: ⟦0⟧ }\n}\n`, [
      { code: 'type-mismatch', message: /q_proj/ },
      { code: 'out-of-range' },
    ]);
  });

  it('chat { }: system, a user template with {prompt}, and template variables of any simple type', () => {
    expectPretrained(`policy Base = ${tiny('qwen2')} {\n  chat { system: "You add numbers.", user: "Add: {prompt}", enable_thinking: false, effort: 2, style: "terse" }\n}\n`, []);
    expectPretrained(`policy Base = ${tiny('qwen2')} {\n  chat { user: ⟦"Add these"⟧, system: ⟦3⟧ }\n}\n`, [
      { code: 'suspicious-value', severity: 'warning', message: "chat.user has no {prompt}, so the task's prompt never reaches the model" },
      { code: 'type-mismatch' },
    ]);
  });

  it('a policy inherits the folder, resolved relative to the file that wrote it', () => {
    const models = `policy Base = pretrained("${written(path.join(HF_TINY, 'qwen2'), 'sub/models.rlx')}") { chat { system: "Be brief." } }\n`;
    expectPretrained({
      'main.rlx': `import "./sub/models.rlx"\npolicy Lora = Base {\n  lora { rank: 4, targets: [⟦c_attn⟧] }\n}\n${TEXT}${run('Lora')}`,
      'sub/models.rlx': models,
    }, [{ code: 'unknown-name', message: "a qwen2 model has no layer 'c_attn'" }]);
  });
});

describe('pretrained policies in experiments', () => {
  it('warns when paired with an env that is not text, and with learners that are not SFT, GRPO or REINFORCE', () => {
    const source = `policy Base = ${tiny('qwen2')}\nexperiment E {\n  env: Pole\n  policy: ⟦Base⟧\n  algorithm: ⟦PPO⟧\n  budget: 1k\n}\nenv Pole = CartPole\n`;
    expectPretrained(source, [
      { code: 'incompatible-env', severity: 'warning', message: 'policy Base is a pretrained language model, which only writes text, and CartPole has discrete actions; pair it with a text env' },
      { code: 'incompatible-env', severity: 'warning', message: 'policy Base is a pretrained language model; PPO does not train language models: use REINFORCE, GRPO, SFT' },
    ]);
    expectPretrained(`policy Base = ${tiny('qwen2')}\n${TEXT}experiment E {\n  env: Arith\n  policy: Base\n  stage warm = SFT { updates: 10 }\n  stage rl = GRPO { budget: 100 }\n}\n`, []);
  });

  it('warns at the policy when the estimated memory passes the free memory, with the figures', () => {
    const source = `policy Base = ${tiny('qwen2')}\n${TEXT}experiment E {\n  env: Arith\n  policy: ⟦Base⟧\n  algorithm: GRPO\n  budget: 1k\n}\n`;
    const [d] = expectPretrained(source, [{ code: 'exceeds-memory', severity: 'warning' }], 2 ** 20);
    // hf-tiny qwen2: 64 wide, 2 layers, 2 kv heads of 16, vocab 400, context 128; GRPO 16 x 8 = 128 rows of min(256 + 4, 128) tokens.
    assert.match(d!.message, /^this run needs about [\d.]+ MiB, more than the 1\.0 MiB of memory free on this machine \(`rlx train` will refuse it\): weights \(float32\) [\d.]+ KiB, KL reference copy [\d.]+ KiB, gradients/);
    assert.match(d!.message, /KV cache 8\.0 MiB/); // keys and values x 2 layers x 2 heads x 16 x 128 rows x 128 tokens x 4 bytes
    assert.match(d!.message, /estimated for GRPO 16 prompts x 8 completions, sequences of 128 tokens \(the model's context of 128 tokens\), full fine-tuning\./);
    expectPretrained(source.replace('⟦Base⟧', 'Base'), [], 2 ** 40);
    // With LoRA already (rank 2 on q_proj 64 -> 64 and v_proj 64 -> 32, 2 layers: 896 parameters), the advice is the batch or the model.
    const lora = source.replace(`${tiny('qwen2')}\n`, `${tiny('qwen2')} { lora { rank: 2 } }\n`);
    const [l] = expectPretrained(lora, [{ code: 'exceeds-memory', severity: 'warning' }], 2 ** 20);
    assert.match(l!.message, /LoRA training 896 parameters\. Use fewer prompts or completions per update, or a smaller model$/);
    assert.match(d!.message, /full fine-tuning\. Use LoRA \(lora \{ rank: 16 \}\), fewer prompts/);
  });

  // The rows come from the algorithm's own work (AlgorithmSpec.work), the trainer's answer too
  // (test/runtime/lm/train-pretrained.test.ts): GRPO's demonstrations join its update's batch.
  it('estimates GRPO with sft_data at its samples and its demonstrations, as the trainer does', () => {
    const source = `policy Base = ${tiny('qwen2')}\n${TEXT}experiment E {\n  env: Arith\n  policy: ⟦Base⟧\n  algorithm: Mixed\n  budget: 1k\n}\nalgorithm Mixed = GRPO { prompts_per_update: 4, group_size: 8, sft_data: demos, sft_batch_size: 12 }\n`;
    const [d] = expectPretrained(source, [{ code: 'exceeds-memory', severity: 'warning' }], 2 ** 10);
    assert.match(d!.message, /estimated for GRPO 4 prompts x 8 completions \+ 12 demonstrations, sequences of 128 tokens/);
  });
});

describe('LoRA targets in the registry', () => {
  it('are exactly the module names of the families the trainer builds (hf/lora.ts, hf/families/)', () => {
    const config = JSON.parse(tinyFile('llama', 'config.json')) as Record<string, unknown>;
    const gpt2 = JSON.parse(tinyFile('gpt2', 'config.json')) as Record<string, unknown>;
    const names = new Set<string>();
    for (const family of FAMILIES) {
      const c = parseLmConfig(family === 'gpt2' ? gpt2 : { ...config, model_type: family });
      for (const m of linearModules(c)) names.add(m.module);
    }
    assert.deepEqual(LORA_TARGETS.map((o) => o.name).sort(), [...names].sort());
  });
});

describe('the plan of a pretrained policy', () => {
  function planOf(sources: Record<string, string>): Plan {
    const checked = checkPretrained(sources);
    const result = compile(checked.analysis, virtualPath('main.rlx'));
    assert.ok(result.ok, result.ok ? '' : result.error);
    return [...result.plans][0]!;
  }

  it('carries the folder (absolute), LoRA with defaults filled, and the chat settings', () => {
    const plan = planOf({
      'main.rlx': `import "./sub/models.rlx"\npolicy Lora = Base {\n  lora { rank: 16, targets: [q_proj, k_proj] }\n}\n${TEXT}${run('Lora')}`,
      'sub/models.rlx': `policy Base = pretrained("${written(path.join(HF_TINY, 'qwen2'), 'sub/models.rlx')}") {\n  chat { system: "Be brief.", enable_thinking: false }\n}\n`,
    });
    assert.deepEqual(plan.policy, {
      name: 'Lora',
      kind: 'pretrained',
      path: path.join(HF_TINY, 'qwen2'),
      params: {
        lora: { rank: 16, alpha: 8, targets: ['q_proj', 'k_proj'], rslora: false, base_dtype: 'auto' },
        chat: { system: 'Be brief.', user: '{prompt}', variables: { enable_thinking: false } },
      },
    });
  });

  it('full fine-tuning has lora null; LoRA without targets takes PEFT\'s default for the family', () => {
    const full = planOf({ 'main.rlx': `policy Base = ${tiny('gpt2')}\n${TEXT}${run()}` });
    assert.deepEqual(full.policy.params, { lora: null, chat: { system: null, user: '{prompt}', variables: {} } });
    const lora = planOf({ 'main.rlx': `policy Base = ${tiny('gpt2')} { lora { rank: 2 } }\n${TEXT}${run()}` });
    assert.deepEqual((lora.policy.params.lora as { targets: string[] }).targets, ['c_attn']);
  });
});
