// TextTask's configuration from a plan: the registry's defaults and ranges, the task's own
// arguments checked the same way, datasets found next to the .rlx file, and max_tokens long
// enough for the targets.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';

import { EnvParamError } from '../../../runtime/envs/params.js';
import { textTaskConfig } from '../../../runtime/text/config.js';

describe('textTaskConfig', () => {
  it('takes the registry defaults: addition(digits: 2), max_tokens 8', () => {
    const config = textTaskConfig({});
    assert.equal(config.task.description, 'addition(digits: 2)');
    assert.equal(config.max_tokens, 8);
  });

  it('builds each task from the plan form the compiler writes, or a bare option name', () => {
    assert.equal(textTaskConfig({ task: { kind: 'addition', digits: 3 }, max_tokens: 6 }).task.description, 'addition(digits: 3)');
    assert.equal(textTaskConfig({ task: { kind: 'reverse', len: 7 } }).task.description, 'reverse(len: 7)');
    assert.equal(textTaskConfig({ task: { kind: 'sort', len: 3 } }).task.description, 'sort(len: 3)');
    assert.equal(textTaskConfig({ task: { kind: 'addition', digits: 2, pad: true } }).task.description, 'addition(digits: 2, pad: true)');
    assert.equal(textTaskConfig({ task: { kind: 'addition', digits: 2, pad: false } }).task.description, 'addition(digits: 2)');
    assert.equal(textTaskConfig({ task: 'sort' }).task.description, 'sort(len: 5)', 'the option\'s own default');
  });

  it('checks the task arguments against the registry, naming the param', () => {
    const cases: [object, string, RegExp][] = [
      [{ task: { kind: 'addition', digits: 9 } }, 'task.digits', /TextTask task addition: param "digits" must be a whole number >= 1 and <= 8, got 9/],
      [{ task: { kind: 'sort', len: 0 } }, 'task.len', /param "len" must be/],
      [{ task: { kind: 'addition', pad: 'yes' } }, 'task.pad', /TextTask task addition: param "pad" must be true or false, got "yes"/],
      [{ task: { kind: 'reverse', lem: 3 } }, 'task.lem', /unknown param "lem" \(did you mean "len"\?\)/],
      [{ task: { kind: 'multiply' } }, 'task', /param "task" must be one of addition\(digits, pad\), reverse\(len\), sort\(len\), dataset\(path\), got \{"kind":"multiply"\}/],
      [{ task: 3 }, 'task', /param "task" must be one of/],
      [{ max_tokens: 0 }, 'max_tokens', /param "max_tokens" must be/],
      [{ maxtokens: 8 }, 'maxtokens', /unknown param "maxtokens" \(did you mean "max_tokens"\?\)/],
    ];
    for (const [given, param, message] of cases) {
      assert.throws(() => textTaskConfig(given), (err: Error) => err instanceof EnvParamError && err.param === param && message.test(err.message), JSON.stringify(given));
    }
  });

  it('refuses a max_tokens shorter than the longest target, saying how long it must be', () => {
    assert.throws(
      () => textTaskConfig({ task: { kind: 'addition', digits: 4 }, max_tokens: 4 }),
      (err: Error) => err instanceof EnvParamError && err.param === 'max_tokens' && err.message === 'TextTask: max_tokens is 4, but addition(digits: 4) has targets of up to 5 characters, which no completion could reach; raise max_tokens to at least 5',
    );
    assert.doesNotThrow(() => textTaskConfig({ task: { kind: 'addition', digits: 4 }, max_tokens: 5 }));
  });

  describe('dataset(path)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-texttask-'));
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, 'qa.jsonl'), ['{"prompt": "capital of France?", "target": "Paris"}', '{"prompt": "2+2=", "target": "4"}', '{"prompt": "sky?", "target": "blue"}'].join('\n'));

    it('loads the file relative to the .rlx file\'s folder', () => {
      const { task } = textTaskConfig({ task: { kind: 'dataset', path: './qa.jsonl' } }, { baseDir: dir });
      assert.equal(task.description, 'dataset("./qa.jsonl")');
      assert.equal(task.maxTargetLength, 5);
    });

    it('errors: no path, no folder to start from, a missing file, targets longer than max_tokens', () => {
      assert.throws(() => textTaskConfig({ task: { kind: 'dataset' } }, { baseDir: dir }), /dataset\(path\) needs the path of a \.jsonl file as a string, got nothing/);
      assert.throws(() => textTaskConfig({ task: { kind: 'dataset', path: './qa.jsonl' } }), /needs the folder of the \.rlx file/);
      assert.throws(() => textTaskConfig({ task: { kind: 'dataset', path: 'missing.jsonl' } }, { baseDir: dir }), /cannot read .*missing\.jsonl: no such file/);
      assert.throws(() => textTaskConfig({ task: { kind: 'dataset', path: './qa.jsonl' }, max_tokens: 4 }, { baseDir: dir }), /dataset\("\.\/qa\.jsonl"\) has targets of up to 5 characters/);
    });
  });
});
