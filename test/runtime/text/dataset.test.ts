// `task: dataset("./file.jsonl")`: the user's prompts and targets, split by the fixed prompt
// hash, with errors that name the file and the line.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, describe, it } from 'node:test';

import { Rng } from '../../../shared/random.js';
import { datasetTask, DatasetError, loadDataset, parseDataset } from '../../../runtime/text/dataset.js';
import { taskTokenizer } from '../../../runtime/text/task.js';

const jsonl = (rows: readonly object[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
/** The prompts and targets of examples, without their rows and lines. */
const pairs = (examples: readonly { prompt: string; target: string }[]) => examples.map(({ prompt, target }) => ({ prompt, target }));
const sums = Array.from({ length: 200 }, (_, i) => ({ prompt: `${i}+${i}=`, target: String(2 * i) }));

describe('parseDataset', () => {
  it('reads one example per line, skipping blank lines, a BOM and CRLF endings, keeping every field of the row and its line', () => {
    const text = '\uFEFF{"prompt": "1+1=", "target": "2", "source": "hand"}\r\n\r\n   \n{"target": "😀", "prompt": "smile é"}\n';
    assert.deepEqual(parseDataset(text, 'd.jsonl'), [
      { prompt: '1+1=', target: '2', row: { prompt: '1+1=', target: '2', source: 'hand' }, line: 1 },
      { prompt: 'smile é', target: '😀', row: { target: '😀', prompt: 'smile é' }, line: 4 },
    ]);
  });

  it('reads TRL\'s conversational rows: a prompt of messages, prompt-completion rows, and messages ending with the assistant\'s answer', () => {
    const text = jsonl([
      { prompt: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: '1+1?' }], target: '2' },
      { prompt: [{ role: 'user', content: 'hi' }], completion: [{ role: 'assistant', content: 'hello' }] },
      { prompt: 'plain', completion: 'text' },
      { messages: [{ role: 'user', content: '2+2?' }, { role: 'assistant', content: '4' }] },
    ]);
    const read = parseDataset(text, 'd.jsonl');
    assert.deepEqual(read.map(({ prompt, target, messages }) => ({ prompt, target, messages })), [
      { prompt: 'Be brief.\n1+1?', target: '2', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: '1+1?' }] },
      { prompt: 'hi', target: 'hello', messages: [{ role: 'user', content: 'hi' }] },
      { prompt: 'plain', target: 'text', messages: undefined },
      { prompt: '2+2?', target: '4', messages: [{ role: 'user', content: '2+2?' }] },
    ]);
    const bad: [string, RegExp][] = [
      ['{"messages": [{"role": "user", "content": "a"}]}', /^DatasetError: d\.jsonl line 1: "messages" must end with the assistant's answer after at least one other message/],
      ['{"prompt": [{"role": "user"}], "target": "b"}', /^DatasetError: d\.jsonl line 1: "prompt" item 1 needs a "role" and a "content" that are strings/],
      ['{"prompt": [], "target": "b"}', /^DatasetError: d\.jsonl line 1: "prompt" is an empty list/],
      ['{"prompt": ["a"], "target": "b"}', /^DatasetError: d\.jsonl line 1: "prompt" item 1 is a string; a conversation is a list of/],
    ];
    for (const [line, message] of bad) assert.throws(() => parseDataset(line, 'd.jsonl'), message, line);
  });

  it('names the file and line of a bad line and says what a line must be', () => {
    const cases: [string, RegExp][] = [
      ['{"prompt": "a", "target": "b"}\n{"prompt": "a", target: "b"}', /^d\.jsonl line 2: not valid JSON \(.+\); each line must be one JSON object like \{"prompt": "12\+34=", "target": "46"\}$/],
      ['\n\n[1, 2]', /^d\.jsonl line 3: expected an object with "prompt" and "target", got a list/],
      ['"just text"', /^d\.jsonl line 1: expected an object .*got a string;/],
      ['{"prompt": "a"}', /^d\.jsonl line 1: no "target" field/],
      ['{"question": "a", "target": "b"}', /^d\.jsonl line 1: no "prompt" field/],
      ['{"prompt": "1+1=", "target": 2}', /^d\.jsonl line 1: "target" must be a string, got a number;/],
      ['{"prompt": null, "target": "2"}', /^d\.jsonl line 1: "prompt" must be a string, got null/],
    ];
    for (const [text, message] of cases) assert.throws(() => parseDataset(text, 'd.jsonl'), (err: Error) => err instanceof DatasetError && message.test(err.message), text);
  });
});

describe('loadDataset', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-dataset-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the file relative to the folder of the .rlx file', () => {
    fs.mkdirSync(path.join(dir, 'data'));
    fs.writeFileSync(path.join(dir, 'data', 'sums.jsonl'), jsonl(sums.slice(0, 3)));
    const read = loadDataset('./data/sums.jsonl', dir);
    assert.deepEqual({ examples: pairs(read.examples), warnings: read.warnings }, { examples: sums.slice(0, 3), warnings: [] });
  });

  it('a missing file or a folder is an error with the resolved path and where paths start', () => {
    assert.throws(
      () => loadDataset('./nope.jsonl', dir),
      (err: Error) => err instanceof DatasetError && err.message === `cannot read the dataset "./nope.jsonl" ${path.join(dir, 'nope.jsonl')}: no such file (the path is relative to the folder of the .rlx file, ${dir}; at most 512 MiB)`,
    );
    assert.throws(() => loadDataset('data', dir), /the dataset "data" .*data is a folder, not a file/);
  });

  it('lines may end with a lone CR (old Mac files); a byte-order mark inside the file is named by its line', () => {
    fs.writeFileSync(path.join(dir, 'cr.jsonl'), jsonl(sums.slice(0, 3)).replace(/\n/g, '\r'));
    assert.deepEqual(pairs(loadDataset('cr.jsonl', dir).examples), sums.slice(0, 3));
    fs.writeFileSync(path.join(dir, 'joined.jsonl'), jsonl(sums.slice(0, 1)) + '\uFEFF' + jsonl(sums.slice(1, 2)));
    assert.throws(() => loadDataset('joined.jsonl', dir), /^DatasetError: joined\.jsonl line 2: starts with a byte-order mark \(U\+FEFF\), as where two files were joined together; remove it$/);
  });

  it('bytes that are not UTF-8: read as U+FFFD, with one warning naming the file and the first such line', () => {
    fs.writeFileSync(path.join(dir, 'latin1.jsonl'), Buffer.concat([Buffer.from(jsonl(sums.slice(0, 2))), Buffer.from('{"prompt": "caf'), Buffer.of(0xe9), Buffer.from('=", "target": "x"}\n{"prompt": "'), Buffer.of(0xff), Buffer.from('", "target": "y"}\n')]));
    const { examples, warnings } = loadDataset('latin1.jsonl', dir);
    assert.equal(examples[2].prompt, 'caf\uFFFD=');
    assert.deepEqual(warnings, ['latin1.jsonl line 3: bytes that are not UTF-8 text, read as U+FFFD (\uFFFD); save the file as UTF-8']);
  });

  it('a path out of the folder of the .rlx file is refused before anything is read; no line of a file is ever quoted', () => {
    for (const outside of ['../../../etc/passwd', '/etc/passwd', '..']) {
      assert.throws(() => loadDataset(outside, dir), (err: Error) => err instanceof DatasetError && /is outside the folder of the \.rlx file .*; dataset paths stay inside it/.test(err.message), outside);
    }
    fs.writeFileSync(path.join(dir, 'secret.jsonl'), 'root:x:0:0:root:/root:/bin/bash\n');
    assert.throws(() => loadDataset('secret.jsonl', dir), (err: Error) => /line 1: not valid JSON/.test(err.message) && !err.message.includes('root'));
  });

  it('a FIFO or a device is refused at once, not waited on or read for ever', () => {
    const fifo = path.join(dir, 'fifo.jsonl');
    spawnSync('mkfifo', [fifo]);
    fs.symlinkSync('/dev/zero', path.join(dir, 'zero.jsonl'));
    for (const name of ['fifo.jsonl', 'zero.jsonl']) {
      const started = Date.now();
      assert.throws(() => loadDataset(name, dir), /is not a regular file \(a device, pipe or socket\)/);
      assert.ok(Date.now() - started < 1000);
    }
  });

  it('a file over 512 MiB is refused with the limit (a sparse file: no disk used)', () => {
    const large = path.join(dir, 'large.jsonl');
    fs.closeSync(fs.openSync(large, 'w'));
    fs.truncateSync(large, 600 * 2 ** 20);
    assert.throws(() => loadDataset('large.jsonl', dir), /the dataset "large\.jsonl" .* is 600\.0 MiB, more than the 512\.0 MiB rlx reads for it/);
  });
});

describe('datasetTask', () => {
  it('holds out about a tenth of the prompts by hash, the same whatever the order of lines', () => {
    const task = datasetTask(sums, 'sums.jsonl');
    const heldOut = task.heldOut();
    assert.ok(heldOut.length >= 8 && heldOut.length <= 35, `${heldOut.length} of 200 held out`);
    assert.deepEqual(datasetTask([...sums].reverse(), 'sums.jsonl').heldOut(), heldOut, 'the split depends on prompts, not positions');
    assert.ok(heldOut.every((e) => task.isHeldOut(e.prompt)));
    const rng = new Rng(3);
    const trained = Array.from({ length: 3000 }, () => task.sample(rng));
    assert.ok(trained.every((e) => !task.isHeldOut(e.prompt)));
    assert.equal(new Set(trained.map((e) => e.prompt)).size, 200 - heldOut.length, 'every training example is drawn');
  });

  it('puts repeated prompts on the same side, so nothing held out was trained on', () => {
    const repeated = [...sums, ...sums.map((e) => ({ ...e, target: `${e.target} ` }))];
    const task = datasetTask(repeated, 'r.jsonl');
    const heldOut = new Set(task.heldOut().map((e) => e.prompt));
    assert.equal(task.heldOut().length, 2 * heldOut.size);
    const rng = new Rng(4);
    for (let k = 0; k < 2000; k++) assert.ok(!heldOut.has(task.sample(rng).prompt));
  });

  it('takes its alphabet and lengths (in characters) from every example, held out or not', () => {
    const task = datasetTask([{ prompt: 'smile é', target: '😀' }, { prompt: 'frown', target: '☹️' }], 'faces.jsonl');
    assert.equal(task.description, 'dataset("faces.jsonl")');
    assert.equal(task.maxPromptLength, 7);
    assert.equal(task.maxTargetLength, 2, '☹️ is two code points (with its variation selector)');
    const tokenizer = taskTokenizer(task);
    for (const e of [{ prompt: 'smile é', target: '😀' }, { prompt: 'frown', target: '☹️' }]) tokenizer.encode(e.prompt + e.target);
  });

  it('an empty set or a single prompt is an error that says what is needed', () => {
    assert.throws(() => datasetTask(parseDataset('\n \n', 'e.jsonl'), 'e.jsonl'), (err: Error) => err instanceof DatasetError && /^e\.jsonl: no examples \(the file is empty or blank\)/.test(err.message));
    assert.throws(() => datasetTask([{ prompt: 'a', target: 'b' }, { prompt: 'a', target: 'c' }], 'one.jsonl'), /one\.jsonl: every example has the same prompt; a dataset needs at least 2 different prompts/);
  });

  it('two prompts: one held out, one trained on', () => {
    const task = datasetTask([{ prompt: 'a', target: '1' }, { prompt: 'b', target: '2' }], 'two.jsonl');
    assert.equal(task.heldOut().length, 1);
    assert.notEqual(task.sample(new Rng(1)).prompt, task.heldOut()[0].prompt);
  });
});
