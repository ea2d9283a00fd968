// The code verifier (issue 45 item 3): `passes(completion_code(completion), row.tests)` runs each
// completion's code against its row's tests in a sandboxed Python process, all of a batch at
// once, and scores the fraction passed. Hostile code (endless loops, fork bombs, memory and
// output bombs, writes outside its folder, the network, sleeping) is contained: it scores what
// it passed and the batch goes on.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import type { PlanReward } from '../../../dsl/compile/plan.js';
import { completionCode, runCodeCases } from '../../../runtime/rewards/code-verifier.js';
import { compileReward } from '../../../runtime/rewards/index.js';
import { datasetTask, loadDataset } from '../../../runtime/text/dataset.js';
import { TextEnvironment } from '../../../runtime/text/env.js';
import type { TextTask } from '../../../runtime/text/task.js';
import { Rng } from '../../../shared/random.js';
import { writer } from './text-writer.js';
import { testPython } from '../../helpers/python.js';

const python = testPython();
const needsPython = python ? {} : { skip: 'no python3 with numpy (see test/helpers/python.ts)' };
const limits = { python: python?.python ?? 'python3', seconds: 2, memoryMb: 256 };
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-code-verifier-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe('completion_code()', () => {
  it('reads the last complete fenced block without its fences and language tag, else the whole text', () => {
    assert.equal(completionCode('Here:\n```python\ndef f(x):\n    return x\n```\nand\n```\nf = 1\n```\n'), 'f = 1\n');
    assert.equal(completionCode('```py\nx = 2\n```'), 'x = 2\n');
    assert.equal(completionCode('f=lambda x:x+1'), 'f=lambda x:x+1');
    assert.equal(completionCode('```python\nnever closed'), '```python\nnever closed', 'an unclosed block is no block');
  });
});

describe('the sandbox', needsPython, () => {
  it('scores the fraction of tests passed; code that does not run passes none', () => {
    const tests = ['assert f(1) == 2', 'assert f(2) == 3', 'assert f(0) == 5'];
    const [right, syntax, raises, none] = runCodeCases([
      { code: 'def f(x):\n    return x + 1\n', tests },
      { code: 'def f(x:', tests },
      { code: 'raise ValueError("no")', tests },
      { code: 'f = 1', tests: [] },
    ], limits, 'reward R');
    assert.deepEqual([right!.passed, right!.total, right!.status], [2, 3, 'ok']);
    assert.deepEqual([syntax!.passed, syntax!.status], [0, 'error']);
    assert.match(syntax!.detail, /SyntaxError/);
    assert.deepEqual([raises!.passed, raises!.status], [0, 'error']);
    assert.deepEqual([none!.total, none!.status], [0, 'no-tests']);
  });

  it('contains hostile code: each case ends within its limits, and nothing outside its folder is touched', () => {
    const outside = path.join(scratch, 'escaped.txt');
    const cases = [
      { code: 'while True:\n    pass', tests: ['assert True'] },
      { code: 'import time\ntime.sleep(60)', tests: ['assert True'] },
      { code: 'import os\nwhile True:\n    os.fork()', tests: ['assert True'] },
      { code: 'x = bytearray(4 * 1024**3)', tests: ['assert True'] },
      { code: 'import os\nwhile True:\n    os.write(1, b"x" * 65536)', tests: ['assert True'] },
      { code: `open(${JSON.stringify(outside)}, "w").write("x")`, tests: ['assert True'] },
      { code: 'import socket\nsocket.create_connection(("127.0.0.1", 9))', tests: ['assert True'] },
      { code: 'import subprocess\nsubprocess.run(["true"])', tests: ['assert True'] },
      { code: 'open("mine.txt", "w").write("x")\ndef g():\n    return 1', tests: ['assert g() == 1', 'assert open("mine.txt").read() == "x"'] },
      { code: 'print("y" * 10**7)\ndef h():\n    return 2', tests: ['assert h() == 2'] },
    ];
    const results = runCodeCases(cases, limits, 'reward R');
    assert.deepEqual(results.map((r) => r.status), ['timeout', 'timeout', 'error', 'memory', 'error', 'error', 'error', 'error', 'ok', 'ok']);
    assert.deepEqual(results.map((r) => r.passed), [0, 0, 0, 0, 0, 0, 0, 0, 2, 1]);
    assert.match(results[2]!.detail, /refuses os\.fork/);
    assert.match(results[4]!.detail, /File too large/, 'output past its cap fails the write');
    assert.match(results[5]!.detail, /refuses writing outside its folder/);
    assert.equal(fs.existsSync(outside), false);
  });

  it('a missing interpreter is one line saying what to do', () => {
    assert.throws(() => runCodeCases([{ code: '', tests: ['assert True'] }], { ...limits, python: 'rlx-no-such-python' }, 'reward R'),
      /^CodeVerifierError: reward R: passes\(\) runs code with Python, but "rlx-no-such-python" is not a command here; install Python 3/);
  });
});

describe('passes() in a text task\'s reward', needsPython, () => {
  const rows = [
    { prompt: 'add 1', target: 'f=lambda x:x+1', tests: ['assert f(0) == 1', 'assert f(2) == 3'] },
    { prompt: 'mul 2', target: 'f=lambda x:x*2', tests: ['assert f(1) == 2', 'assert f(3) == 6'] },
    { prompt: 'sub 1', target: 'f=lambda x:x-1', tests: 'assert f(5) == 4' },
  ];
  fs.writeFileSync(path.join(scratch, 'code.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');

  function rowsTask(): TextTask {
    const { examples } = loadDataset('./code.jsonl', scratch);
    const task = datasetTask(examples, './code.jsonl');
    let next = 0;
    return { ...task, sample: () => examples[next++ % examples.length]! };
  }

  function envOf(): TextEnvironment {
    const reward: PlanReward = { name: 'R', replace_env_reward: true, terms: [{ name: 'passes', expr: { call: 'passes', args: [{ call: 'completion_code', args: [{ ref: 'completion' }] }, { ref: 'row.tests' }] } }] };
    const compiled = compileReward(reward, { kind: 'TextTask', obsFields: [], actionSpace: { kind: 'discrete', n: 1 }, text: true });
    compiled.code!.configure(limits);
    return new TextEnvironment(rowsTask(), 20, compiled);
  }


  it('scores each completion by its own row\'s tests: a list of asserts, or one text', async () => {
    const env = envOf();
    // Row 1 right, row 2 half right (f(1) == 2 passes, f(3) == 6 does not), row 3 (one test) wrong.
    const out = await env.rollouts(writer(env, ['f=lambda x:x+1', 'f=lambda x:x+1', 'f=lambda x:x+1']), { groups: 3, groupSize: 1, startRng: new Rng(1), sampleRng: new Rng(2), temperature: 1 });
    assert.deepEqual([...out.rewards], [1, 0.5, 0]);
    assert.equal(out.metrics!['rewards/passes'], 0.5);
  });
});
