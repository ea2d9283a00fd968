// The editor settings the extension contributes for .rlx files agree with the formatter: a new
// file indents as `rlx fmt` will lay it out, and VS Code does not guess another indent from a
// file's first lines (detectIndentation would keep a 4-space file at 4 and fight the formatter).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/repo.js';
import { INDENT } from '../../dsl/format/format.js';

interface Manifest {
  contributes: { configurationDefaults?: Record<string, Record<string, unknown>> };
}

const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as Manifest;

test('[rlx] editor defaults: the formatter\'s indent, in spaces, never detected', () => {
  assert.deepEqual(manifest.contributes.configurationDefaults?.['[rlx]'], {
    'editor.tabSize': INDENT,
    'editor.insertSpaces': true,
    'editor.detectIndentation': false,
  });
});
