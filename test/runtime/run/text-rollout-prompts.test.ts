// A pretrained model reads its task's prompt through its chat template (issue 43 item 20): the
// rollout inspector's files keep both, the task's prompt (`start`) and what the model read
// (`prompt`), for the sampled batches and for the final policy's held-out answers.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { listRollouts, readRollout, type TextGroup } from '../../../runtime/run/reader.js';
import { train } from '../../../runtime/train.js';
import { repoRoot } from '../../helpers/repo.js';
import { makePlan, tempDir } from '../helpers.js';

const QWEN2 = path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2');

test("a pretrained run's recorded groups carry the chat-rendered prompt beside the task's", { timeout: 300_000 }, async () => {
  const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 1 }, max_tokens: 3 }, algorithm: 'GRPO', algorithmParams: { group_size: 2, prompts_per_update: 2 }, budget: 4 });
  plan.policy = { name: 'Base', kind: 'pretrained', params: { model: QWEN2, chat: { system: 'You add.' } } as never };
  const result = await train(plan, { out: tempDir() });
  assert.equal(result.status, 'finished');
  const files = listRollouts(result.runDir);
  const groups = (recorded: string): TextGroup[] => {
    const contents = readRollout(files.find((f) => f.recorded === recorded)!.file);
    assert.equal(contents.kind, 'text');
    return contents.kind === 'text' ? contents.groups : [];
  };
  for (const recorded of ['train', 'final']) {
    const all = groups(recorded);
    assert.ok(all.length > 0, recorded);
    for (const g of all) {
      // The tiny Qwen2's ChatML: the system message, the task's prompt as the user's, then the assistant's turn opened.
      assert.equal(g.prompt, `<|im_start|>system\nYou add.<|im_end|>\n<|im_start|>user\n${g.start}<|im_end|>\n<|im_start|>assistant\n`, recorded);
    }
  }
});
