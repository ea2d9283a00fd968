import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { isInputError } from '../../shared/input-error.js';
import { InputFileError, readInputFile, readInputJson, readInputText } from '../../shared/input-files.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-input-files-'));
const options = { what: 'dataset', maxBytes: 1024 };

test('a regular file within the limit is read, through a symbolic link too', () => {
  fs.writeFileSync(path.join(dir, 'a.json'), '\uFEFF{"x": 1}');
  fs.symlinkSync(path.join(dir, 'a.json'), path.join(dir, 'link.json'));
  assert.deepEqual(readInputJson(path.join(dir, 'link.json'), options), { x: 1 });
  assert.equal(readInputFile(path.join(dir, 'a.json'), options).length, 3 + 8);
});

test('a device, a FIFO, a folder, a missing or too large file is refused at once, naming file and purpose', () => {
  const fifo = path.join(dir, 'pipe');
  execFileSync('mkfifo', [fifo]);
  fs.symlinkSync('/dev/zero', path.join(dir, 'zero'));
  fs.writeFileSync(path.join(dir, 'big'), Buffer.alloc(2048));
  const cases: [string, RegExp][] = [
    [fifo, /dataset .*pipe is not a regular file/],
    [path.join(dir, 'zero'), /not a regular file/],
    [dir, /is a folder/],
    [path.join(dir, 'missing'), /cannot read the dataset .*missing: no such file/],
    [path.join(dir, 'big'), /is 2\.0 KiB, more than the 1\.0 KiB/],
  ];
  for (const [file, message] of cases) {
    assert.throws(() => readInputFile(file, options), (err: unknown) => err instanceof InputFileError && isInputError(err) && message.test((err as Error).message), file);
  }
});

test('text that is not UTF-8 and JSON that does not parse are refused with the file named', () => {
  fs.writeFileSync(path.join(dir, 'latin1'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  assert.throws(() => readInputText(path.join(dir, 'latin1'), options), /latin1 is not UTF-8/);
  fs.writeFileSync(path.join(dir, 'bad.json'), '{');
  assert.throws(() => readInputJson(path.join(dir, 'bad.json'), options), /bad\.json is not valid JSON/);
});
