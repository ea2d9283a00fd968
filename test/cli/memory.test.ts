// What a user sees of a pretrained run's memory before it starts: `rlx check --memory` prints each
// experiment's estimate by part, the micro-batch auto chose and a `total` line; micro_batch and
// generation_batch beyond the update's rows are errors at the value; a micro-batch that does not
// divide the update checks clean (the last one is smaller, the loss normalised over the update).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { scratch } from './scratch.js';

const { rlx, write, work: dir } = scratch('rlx-memory-');

/** A folder of Qwen2.5-0.5B's config.json alone: the estimate needs no weights. */
function qwen05(): string {
  const folder = path.join(dir, 'qwen05');
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'config.json'), JSON.stringify({ model_type: 'qwen2', hidden_size: 896, intermediate_size: 4864, num_hidden_layers: 24, num_attention_heads: 14, num_key_value_heads: 2, max_position_embeddings: 32768, rms_norm_eps: 1e-6, rope_theta: 1e6, tie_word_embeddings: true, vocab_size: 151936 }));
  return folder;
}

const grpo = (settings: string) => `env Sums = TextTask { task: addition(digits: 3), max_tokens: 256 }
policy Base = pretrained("./qwen05") { lora { rank: 16, alpha: 32, targets: [q_proj, v_proj] } }
algorithm Tuned = GRPO { prompts_per_update: 16, group_size: 8, max_new_tokens: 256${settings} }
experiment Scale { env: Sums, policy: Base, algorithm: Tuned, budget: 1280 }
`;

/** The GiB of the `total` line. */
function totalGiB(stdout: string): number {
  const line = stdout.split('\n').find((l) => l.startsWith('total '));
  assert.ok(line, `a line starting 'total' in:\n${stdout}`);
  return Number(/^total ([\d.]+) GiB/.exec(line)![1]);
}

describe('rlx check --memory', () => {
  test('a standard GRPO batch (16 x 8 x 256, LoRA) of a 0.5B model: micro-batches with recomputed blocks, a few GiB, where one graph needs hundreds', () => {
    qwen05();
    const auto = rlx('check', '--memory', write('auto.rlx', grpo('')));
    assert.match(auto.stdout, /experiment Scale: GRPO 16 prompts x 8 completions, sequences of 512 tokens/);
    assert.match(auto.stdout, /^ {2}micro_batch \d+, gradient_checkpointing on$/m);
    assert.match(auto.stdout, /^ {2}weights \(float32\): 1\.8 GiB$/m);
    assert.ok(totalGiB(auto.stdout) < 8, auto.stdout);
    // The base kept as float16 (lora { base_dtype }): half the weights' bytes.
    const half = rlx('check', '--memory', write('half.rlx', grpo('').replace('targets: [q_proj, v_proj]', 'targets: [q_proj, v_proj], base_dtype: float16')));
    assert.match(half.stdout, /^ {2}weights \(the base in float16\): 942\.3 MiB$/m);
    assert.ok(totalGiB(half.stdout) < totalGiB(auto.stdout) - 0.8, half.stdout);
    const whole = rlx('check', '--memory', write('whole.rlx', grpo(', micro_batch: 128, gradient_checkpointing: false')));
    assert.match(whole.stdout, /^ {2}micro_batch 128, gradient_checkpointing off$/m);
    assert.ok(totalGiB(whole.stdout) > 100, whole.stdout);
    const json = JSON.parse(rlx('check', '--memory', '--json', write('json.rlx', grpo(''))).stdout) as { memory: { experiment: string; total: number; checkpointing: boolean }[] };
    assert.deepEqual(json.memory.map((m) => [m.experiment, m.checkpointing]), [['Scale', true]]);
  });

  test('micro_batch or generation_batch beyond the update\'s rows is an error at the value; one that does not divide them checks clean', () => {
    const spec = `env Sums = TextTask { task: addition(digits: 2), max_tokens: 6 }
algorithm Big = GRPO { prompts_per_update: 4, group_size: 4, micro_batch: 32, generation_batch: 17 }
algorithm Fine = GRPO { prompts_per_update: 4, group_size: 4, micro_batch: 5, generation_batch: 3 }
algorithm Warm = SFT { batch_size: 8, micro_batch: 9 }
algorithm Zero = SFT { micro_batch: 0 }
`;
    const out = rlx('check', write('bad.rlx', spec));
    assert.equal(out.code, 1);
    const lines = out.stdout.trim().split('\n');
    assert.deepEqual(lines.map((l) => /^bad\.rlx:(\d+):\d+: error ([a-z-]+)/.exec(l)?.slice(1)), [['2', 'out-of-range'], ['2', 'out-of-range'], ['4', 'out-of-range'], ['5', 'out-of-range']], out.stdout);
    assert.match(lines[0]!, /micro_batch 32 is more rows than an update trains \(16: GRPO 4 prompts x 4 completions\); use at most 16, or auto/);
    assert.match(lines[1]!, /generation_batch 17 is more rows than an update samples \(16/);
  });

  test('TRL\'s names are pointed to rlx\'s', () => {
    const out = rlx('check', write('trl.rlx', 'algorithm A = GRPO { per_device_train_batch_size: 4, generation_batch_size: 8 }\n'));
    assert.match(out.stdout, /did you mean 'micro_batch'\? \(TRL's per_device_train_batch_size is rlx's micro_batch/);
    assert.match(out.stdout, /did you mean 'generation_batch'\?/);
  });
});
