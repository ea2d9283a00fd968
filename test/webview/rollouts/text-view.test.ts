// The numbers of a text batch's table, as a user reads them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupPrompt, signed } from '../../../webview/rollouts/text-view.js';
import { formatShort } from '../../../webview/shared/format.js';

test('advantages read with their sign and 3 significant digits: a normalised -0.5 is not "-0.4999"', () => {
  // group_std advantages of a 1-of-2 group: (0 - 0.5) / (0.5 + 1e-4), as the Sums fixture records them.
  assert.equal(signed(-0.4999000132083893), '−0.5');
  assert.equal(signed(0.49900200963020325), '+0.499');
  assert.equal(signed(1.4970059394836426), '+1.5');
  assert.equal(signed(0), '0');
  assert.deepEqual([formatShort(1.1), formatShort(0.1), formatShort(-0.43359890580177307), formatShort(2e-5), formatShort(Number.NaN)], ['1.1', '0.1', '-0.434', '2.00e-5', '–']);
});

test("a pretrained model's group shows the task's prompt and the chat-rendered one it read; a character model's the task's alone (issue 43 item 20)", () => {
  const read = '<|im_start|>user\n12+34=<|im_end|>\n<|im_start|>assistant\n';
  assert.deepEqual(groupPrompt({ type: 'group', start: '12+34=', prompt: read, target: '46', samples: [] }), { task: '12+34=', read });
  assert.deepEqual(groupPrompt({ type: 'group', start: '12+34=', target: '46', samples: [] }), { task: '12+34=' });
  // A model without a chat template read the prompt as it is: nothing more to show.
  assert.deepEqual(groupPrompt({ type: 'group', start: '12+34=', prompt: '12+34=', samples: [] }), { task: '12+34=' });
});
