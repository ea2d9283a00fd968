// `rlx check` on a spec with a pretrained model: the memory estimate, read against this machine's
// free memory, is a warning with the figures (issue 29 item 9), a missing folder an error, and a
// folder whose files rlx train would refuse (weights, tokenizer, chat template) an error naming
// the file, with nothing written to runs/ by rlx train.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { parseLmConfig } from '../../hf/config.js';
import { weightSpecs } from '../../hf/weights.js';
import { repoRoot } from '../helpers/repo.js';
import { scratch } from './scratch.js';

const { rlx, write, work } = scratch('rlx-pretrained-');
const HF_TINY = path.join(repoRoot(), 'test/fixtures/hf-tiny');

/**
 * A model.safetensors for `config` whose header is right (every weight, stored BF16) and whose
 * data is a hole: a sparse file of the model's size, so the checker, which reads headers only,
 * finds nothing wrong, without gigabytes on disk.
 */
function sparseWeights(file: string, config: Record<string, unknown>): void {
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  let at = 0;
  for (const spec of weightSpecs(parseLmConfig(config))) {
    const shape = spec.transposed ? [...spec.shape].reverse() : spec.shape;
    const bytes = 2 * shape.reduce((a, b) => a * b, 1);
    header[spec.name] = { dtype: 'BF16', shape, data_offsets: [at, at + bytes] };
    at += bytes;
  }
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, Buffer.concat([length, json]));
  fs.truncateSync(file, 8 + json.length + at);
}

/** Qwen3-0.6B's config.json (its sizes; the weights themselves are not read by the checker). */
const QWEN3_0_6B = JSON.stringify({
  architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3', hidden_size: 1024, num_hidden_layers: 28, num_attention_heads: 16,
  num_key_value_heads: 8, head_dim: 128, intermediate_size: 3072, vocab_size: 151936, max_position_embeddings: 40960,
  rms_norm_eps: 1e-6, rope_theta: 1000000, tie_word_embeddings: true, torch_dtype: 'bfloat16', hidden_act: 'silu',
});

describe('rlx check with pretrained("...")', () => {
  test('a run far past any machine\'s memory is a warning naming the parts; exit 0', () => {
    write('models/Qwen3-0.6B/config.json', QWEN3_0_6B);
    write('models/Qwen3-0.6B/tokenizer.json', fs.readFileSync(path.join(HF_TINY, 'qwen2/tokenizer.json')));
    sparseWeights(path.join(work, 'models/Qwen3-0.6B/model.safetensors'), JSON.parse(QWEN3_0_6B) as Record<string, unknown>);
    // 100k prompts x 1024 completions sampled at once: petabytes, whatever the machine.
    const file = write('big.rlx', 'env Arith = TextTask\npolicy Base = pretrained("./models/Qwen3-0.6B")\n'
      + 'algorithm Huge = GRPO { prompts_per_update: 100000, group_size: 1024 }\nexperiment E { env: Arith, policy: Base, algorithm: Huge, budget: 1k }\n');
    const r = rlx('check', file);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /big\.rlx:4:36: warning exceeds-memory: this run needs about [\d.]+ GiB, more than the [\d.]+ (GiB|MiB) of memory free on this machine \(`rlx train` will refuse it\): weights \(float32\) 2\.2 GiB, KL reference copy 2\.2 GiB, gradients 2\.2 GiB, Adam state 4\.4 GiB, KV cache/);
    assert.match(r.stdout, /estimated for GRPO 100000 prompts x 1024 completions, sequences of 264 tokens/);
  });

  test('a folder that is not there: an error at the path, exit 1', () => {
    const r = rlx('check', write('missing.rlx', 'policy Base = pretrained("./models/nowhere")\n'));
    assert.equal(r.code, 1);
    assert.match(r.stdout, /missing\.rlx:1:26: error model-not-found: cannot find the model folder '\.\/models\/nowhere'/);
  });

  /** A copy of hf-tiny's qwen2 folder, changed by `edit`, and a spec that SFTs it; the spec's name. */
  const specFor = (name: string, edit: (dir: string) => void): string => {
    const dir = path.join(work, 'models', name);
    fs.cpSync(path.join(HF_TINY, 'qwen2'), dir, { recursive: true });
    edit(dir);
    return write(`${name}.rlx`, `env Sums = TextTask { task: addition(digits: 1) }\npolicy Base = pretrained("./models/${name}")\n`
      + 'experiment Warm { env: Sums, policy: Base, stage sft = SFT { updates: 2, batch_size: 4 } }\n');
  };
  const editJson = (file: string, edit: (json: Record<string, any>) => void) => { // eslint-disable-line @typescript-eslint/no-explicit-any
    const json = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    edit(json);
    fs.writeFileSync(file, JSON.stringify(json));
  };
  const weights = (dir: string) => path.join(dir, 'model.safetensors');

  test('a folder whose files rlx train would refuse: rlx check says which file and what is wrong, and rlx train writes nothing to runs/', () => {
    const cases: [string, (dir: string) => void, RegExp][] = [
      ['truncated', (dir) => fs.truncateSync(weights(dir), 100_000), /models\/truncated\/model\.safetensors: tensor model\.embed_tokens\.weight ends at byte \d+ but the file has only 100000 bytes: truncated\? download it again/],
      ['missing-shard', (dir) => {
        fs.renameSync(weights(dir), path.join(dir, 'model-00001-of-00002.safetensors'));
        fs.writeFileSync(path.join(dir, 'model.safetensors.index.json'), JSON.stringify({ weight_map: { 'model.norm.weight': 'model-00001-of-00002.safetensors', 'lm_head.weight': 'model-00002-of-00002.safetensors' } }));
      }, /model\.safetensors\.index\.json names the shard model-00002-of-00002\.safetensors, which does not exist/],
      ['wider', (dir) => editJson(path.join(dir, 'config.json'), (c) => (c.hidden_size = 128)), /model\.safetensors: tensor "model\.embed_tokens\.weight" is \[400, 64\], but config\.json implies \[400, 128\]/],
      ['wordpiece', (dir) => editJson(path.join(dir, 'tokenizer.json'), (t) => (t.model = { type: 'WordPiece', unk_token: '<unk>', vocab: { '<unk>': 0 } })), /models\/wordpiece\/tokenizer\.json is of type "WordPiece"; rlx reads BPE tokenizers/],
      ['unigram', (dir) => editJson(path.join(dir, 'tokenizer.json'), (t) => (t.model = { type: 'Unigram', unk_id: 0, vocab: [['<unk>', 0]] })), /models\/unigram\/tokenizer\.json is of type "Unigram"; rlx reads BPE tokenizers/],
      ['added-beyond', (dir) => editJson(path.join(dir, 'tokenizer.json'), (t) => t.added_tokens.push({ id: 400, content: '<|tool|>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
        /models\/added-beyond: tokenizer\.json has 401 tokens but config\.json's vocab_size is 400, so ids from 400 on have no embedding row/],
      ['split-special', (dir) => editJson(path.join(dir, 'tokenizer_config.json'), (c) => (c.split_special_tokens = true)), /models\/split-special\/tokenizer_config\.json sets split_special_tokens: true/],
      ['raises', (dir) => fs.writeFileSync(path.join(dir, 'chat_template.jinja'), "{{ raise_exception('system messages only') }}"), /the chat template in .*models\/raises\/chat_template\.jinja refused the conversation: system messages only/],
      ['endless', (dir) => fs.writeFileSync(path.join(dir, 'chat_template.jinja'), '{% for i in range(10**12) %}{{ i }}{% endfor %}'), /the chat template in .*models\/endless\/chat_template\.jinja did not finish rendering: range\(\) of 1000000000000 numbers/],
      ['unparsed', (dir) => fs.writeFileSync(path.join(dir, 'chat_template.jinja'), '{% for m in messages %}{{ m.content }'), /the chat template in .*models\/unparsed\/chat_template\.jinja does not parse/],
    ];
    for (const [name, edit, message] of cases) {
      const spec = specFor(name, edit);
      const checked = rlx('check', spec);
      assert.equal(checked.code, 1, `${name}: ${checked.stdout}${checked.stderr}`);
      assert.match(checked.stdout, new RegExp(`${name}\\.rlx:2:26: error invalid-model: .*${message.source}`), name);
      const out = path.join(work, `runs-${name}`);
      const trained = rlx('train', spec, '--out', out);
      assert.equal(trained.code, 2, `${name}: ${trained.stderr}`);
      assert.doesNotMatch(trained.stderr, /internal error|\n\s+at /);
      assert.ok(!fs.existsSync(out), `${name}: rlx train wrote ${out}`);
    }
  });

  test("a chat { } variable the model's chat template never reads is a warning at the key; one it reads is not (issue 43 item 20)", () => {
    const dir = path.join(work, 'models', 'thinking');
    fs.cpSync(path.join(HF_TINY, 'qwen2'), dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'chat_template.jinja'), '{% for m in messages %}{{ m.content }}{% endfor %}{% if enable_thinking is false %}<think></think>{% endif %}');
    const spec = write('thinking.rlx', 'env Sums = TextTask { task: addition(digits: 1) }\npolicy Base = pretrained("./models/thinking") {\n  chat { enable_thinking: false, enable_thinkng: false }\n}\n'
      + 'experiment Warm { env: Sums, policy: Base, stage sft = SFT { updates: 2, batch_size: 4 } }\n');
    const checked = rlx('check', spec);
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    assert.equal(checked.stdout.trim(), "thinking.rlx:3:34: warning suspicious-value: chat.enable_thinkng: the model's chat template never reads 'enable_thinkng', so it changes nothing; check the name against the template's variables");
  });

  test('lora { base_dtype: float16 } over weights stored in float32 is an error at the value; over bf16 ones it checks clean', () => {
    const spec = (folder: string) => `env Sums = TextTask { task: addition(digits: 1) }\npolicy Base = pretrained("${folder}") {\n  lora { rank: 4, base_dtype: float16 }\n}\n`
      + 'experiment Warm { env: Sums, policy: Base, stage sft = SFT { updates: 2, batch_size: 4 } }\n';
    fs.cpSync(path.join(HF_TINY, 'qwen2'), path.join(work, 'models', 'f32'), { recursive: true });
    const f32 = rlx('check', write('half-f32.rlx', spec('./models/f32')));
    assert.equal(f32.code, 1, f32.stdout + f32.stderr);
    assert.equal(f32.stdout.trim(), "half-f32.rlx:3:31: error invalid-model: base_dtype float16 keeps the base as its checkpoint's float16 or bf16 values, but ./models/f32's weights are stored in float32; use float32, or auto");
    const bf16 = path.join(work, 'models', 'bf16');
    fs.cpSync(path.join(HF_TINY, 'qwen2'), bf16, { recursive: true });
    sparseWeights(path.join(bf16, 'model.safetensors'), JSON.parse(fs.readFileSync(path.join(bf16, 'config.json'), 'utf8')) as Record<string, unknown>);
    const half = rlx('check', write('half-bf16.rlx', spec('./models/bf16')));
    assert.equal(half.code, 0, half.stdout + half.stderr);
  });

  test('rlx train --plan (no checker) refuses a chat template that throws on the run\'s prompt before its run folder exists', () => {
    const spec = specFor('plan-raises', (dir) => fs.writeFileSync(path.join(dir, 'chat_template.jinja'), "{% if messages[0].role == 'user' %}{{ raise_exception('a system message first') }}{% endif %}"));
    const plan = rlx('plan', spec);
    assert.equal(plan.code, 2, 'the checker refuses the template already');
    assert.match(plan.stderr, /plan-raises\/chat_template\.jinja refused the conversation: a system message first/);
    // A plan written before the template changed: only the trainer's own check stands between it and a run.
    const good = specFor('plan-later', () => {});
    const written = rlx('plan', good);
    assert.equal(written.code, 0, written.stderr);
    fs.writeFileSync(path.join(work, 'models/plan-later/chat_template.jinja'), fs.readFileSync(path.join(work, 'models/plan-raises/chat_template.jinja')));
    const planFile = write('later.json', written.stdout);
    const out = path.join(work, 'runs-plan');
    const trained = rlx('train', '--plan', planFile, '--out', out);
    assert.equal(trained.code, 2, trained.stderr);
    assert.match(trained.stderr, /the chat template in .*plan-later\/chat_template\.jinja refused the conversation: a system message first/);
    assert.ok(!fs.existsSync(out), 'nothing written to runs/');
  });

  test('a checkpoint\'s extra tensors of dtypes rlx does not read (I64 position ids) are passed over', () => {
    const spec = specFor('extra-i64', (dir) => {
      const bytes = fs.readFileSync(weights(dir));
      const length = Number(bytes.readBigUInt64LE(0));
      const header = JSON.parse(bytes.subarray(8, 8 + length).toString('utf8')) as Record<string, unknown>;
      const data = bytes.subarray(8 + length);
      header['model.rotary_emb.position_ids'] = { dtype: 'I64', shape: [1, 4], data_offsets: [data.length, data.length + 32] };
      const json = Buffer.from(JSON.stringify(header));
      const prefix = Buffer.alloc(8);
      prefix.writeBigUInt64LE(BigInt(json.length));
      fs.writeFileSync(weights(dir), Buffer.concat([prefix, json, data, Buffer.alloc(32)]));
    });
    const checked = rlx('check', spec);
    assert.equal(checked.code, 0, checked.stdout);
    const trained = rlx('train', spec, '--out', path.join(work, 'runs-extra'));
    assert.equal(trained.code, 0, trained.stderr);
  });
});
