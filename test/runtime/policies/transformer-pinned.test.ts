// Pins what two short character-level runs learn at a fixed seed: a single-turn text task
// (SFT, then GRPO on sampled completions) and a dialogue (SFT on GuessNumber's expert, then
// RLOO on whole dialogues). Every metric and evaluation value of both runs is compared with
// the values in fixtures/transformer-pinned.json, recorded when the `transformer` policy was
// rebuilt on runtime/lm/'s GPT-2 (issue 29) from the policy as it was before, whose runs the
// new one reproduces bit for bit. A change to the model, its initialisation, the decoding
// loop or the learners that moves what a run learns fails here.
//
// Values are compared to 1e-5 (relative) rather than bit for bit: onnxruntime picks its kernels
// by the CPU's instruction set, and a machine with other vector widths may sum in another order.
// Rewrite the fixture only for a change meant to move results: RLX_WRITE_PINNED=1.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { readEvents } from '../../../runtime/run/events.js';
import { train } from '../../../runtime/train.js';
import { repoRoot } from '../../helpers/repo.js';
import { makePlan, tempDir } from '../helpers.js';

const FIXTURE = path.join(repoRoot(), 'test', 'runtime', 'policies', 'fixtures', 'transformer-pinned.json');
const TOLERANCE = 1e-5;

type Pinned = Record<string, Record<string, number[]>>;

const sft = (updates: number): Plan['stages'][number] => ({
  name: 'warmup',
  algorithm: { name: 'Sft', kind: 'SFT', params: { updates, batch_size: 32, learning_rate: 3e-3 } },
  budget: null,
});

function textRun(): Plan {
  const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'reverse', len: 3 }, max_tokens: 3 } });
  return {
    ...plan,
    policy: { name: 'Tiny', kind: 'transformer', params: { layers: 2, width: 32, heads: 2, context: 16 } },
    stages: [sft(40), { name: 'main', algorithm: { name: 'Grpo', kind: 'GRPO', params: { group_size: 8, learning_rate: 1e-3 } }, budget: 384 }],
  };
}

function dialogueRun(): Plan {
  const plan = makePlan({ env: 'GuessNumber', envParams: { low: 1, high: 16, max_turns: 4 } });
  return {
    ...plan,
    policy: { name: 'Tiny', kind: 'transformer', params: { layers: 2, width: 32, heads: 2, context: 48 } },
    stages: [sft(12), { name: 'main', algorithm: { name: 'Rloo', kind: 'REINFORCE', params: { baseline: 'leave_one_out', episodes_per_update: 8, learning_rate: 1e-4 } }, budget: 96 }],
  };
}

/** Every metric and evaluation value of a run by name, in step order (wall-clock rates left out). */
async function learned(plan: Plan): Promise<Record<string, number[]>> {
  const result = await train(plan, { out: tempDir() });
  assert.equal(result.status, 'finished');
  const values: Record<string, number[]> = {};
  for (const e of readEvents(path.join(result.runDir, 'events.jsonl'))) {
    if (e.type !== 'metrics' && e.type !== 'eval') continue;
    for (const [name, v] of Object.entries(e.values as Record<string, unknown>)) {
      // Wall-clock rates and the process's memory differ from machine to machine.
      if (typeof v !== 'number' || name === 'charts/sps' || name.includes('time') || name.startsWith('memory/')) continue;
      (values[`${e.type} ${name}`] ??= []).push(v);
    }
  }
  return values;
}

test('short char-level runs at a fixed seed learn what they learned when pinned', async () => {
  const got: Pinned = { text: await learned(textRun()), dialogue: await learned(dialogueRun()) };
  if (process.env.RLX_WRITE_PINNED === '1') {
    fs.mkdirSync(path.dirname(FIXTURE), { recursive: true });
    fs.writeFileSync(FIXTURE, JSON.stringify(got, null, 1) + '\n');
    return;
  }
  const pinned = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as Pinned;
  for (const run of Object.keys(pinned)) {
    assert.deepEqual(Object.keys(got[run]!).sort(), Object.keys(pinned[run]!).sort(), `${run}: the same metrics`);
    for (const [name, values] of Object.entries(pinned[run]!)) {
      const now = got[run]![name]!;
      assert.equal(now.length, values.length, `${run}: ${name} logged ${now.length} times, pinned ${values.length}`);
      values.forEach((v, i) => {
        const close = Math.abs(now[i]! - v) <= TOLERANCE * Math.max(1, Math.abs(v));
        assert.ok(close, `${run}: ${name}[${i}] is ${now[i]}, pinned ${v}`);
      });
    }
  }
});
