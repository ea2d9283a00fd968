// SFT's `data: "file.jsonl"`: the trainer does not read demonstrations from a file yet, so the
// checker refuses it at the setting with the trainer's own reason (a spec that checks clean
// trains), and a plan written by hand is refused by `rlx train` with the same words.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SFT_DATA_FILE_NOT_IMPLEMENTED } from '../../dsl/schema/algorithms.js';
import { scratch } from './scratch.js';

const { rlx, write } = scratch('rlx-sft-data-');
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const spec = (data: string) => `env Sums = TextTask { task: addition(digits: 1) }
policy Tiny = transformer { width: 16, heads: 2, layers: 1 }
experiment Warm { env: Sums, policy: Tiny, stage sft = SFT { updates: 2, batch_size: 4, data: ${data} } }
`;

describe('SFT data from a file', () => {
  test('rlx check refuses data: "demos.jsonl" at the setting, with the reason rlx train refuses a plan with it', () => {
    write('demos.jsonl', '{"prompt": "1+1=", "completion": "2"}\n');
    const checked = rlx('check', write('file.rlx', spec('"demos.jsonl"')));
    assert.notEqual(checked.code, 0, 'an error, not a clean check');
    assert.match(checked.stderr + checked.stdout, new RegExp(`file\\.rlx:3:\\d+.*error.*${escape(SFT_DATA_FILE_NOT_IMPLEMENTED)}`));

    const declared = rlx('check', write('declared.rlx', `${spec('demos')}algorithm Warmup = SFT { data: "demos.jsonl" }\nexperiment Later { env: Sums, policy: Tiny, algorithm: Warmup, budget: 10 }\n`));
    assert.match(declared.stderr + declared.stdout, new RegExp(`declared\\.rlx:4:\\d+.*error.*${escape(SFT_DATA_FILE_NOT_IMPLEMENTED)}`));

    const plan = rlx('plan', write('demos.rlx', spec('demos')));
    assert.equal(plan.code, 0, plan.stderr);
    const edited = JSON.parse(plan.stdout) as { stages: { algorithm: { params: Record<string, unknown> } }[] };
    edited.stages[0]!.algorithm.params.data = 'demos.jsonl';
    const trained = rlx('train', '--plan', write('file.json', JSON.stringify(edited)), '--out', 'runs');
    assert.equal(trained.code, 2, trained.stderr);
    assert.match(trained.stderr, new RegExp(escape(SFT_DATA_FILE_NOT_IMPLEMENTED)));
  });
});
