// cst-to-ast.ts reads the syntax tree through dsl/syntax/cst-types.ts, generated from the
// grammar's rules by tools/cst-types.ts: the committed file must be what the grammar gives now,
// or a renamed or dropped child would type-check against stale types.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { CST_TYPES_FILE, cstTypes } from '../../tools/cst-types.js';
import { repoRoot } from '../helpers/repo.js';

test('the committed syntax tree types are those the grammar generates', () => {
  const committed = fs.readFileSync(path.join(repoRoot(), CST_TYPES_FILE), 'utf8');
  assert.ok(committed === cstTypes(), `${CST_TYPES_FILE} differs from the grammar's rules: run npm run cst-types`);
});
