// docs/language.md's reference is generated from the schema registry: it must be current.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { renderReference, updateDocument } from '../../dsl/docgen.js';
import { ALGORITHMS, ENVS, POLICIES } from '../../dsl/schema/index.js';
import { DIAGNOSTIC_CODES } from '../../dsl/diagnostics.js';
import { repoRoot } from '../helpers/repo.js';

test('docs/language.md matches the schema registry (run `npm run docs` to update it)', () => {
  const doc = fs.readFileSync(path.join(repoRoot(), 'docs', 'language.md'), 'utf8');
  assert.equal(updateDocument(doc), doc);
});

test('the reference names every built-in, parameter and diagnostic code', () => {
  const reference = renderReference();
  for (const spec of [...ENVS, ...ALGORITHMS, ...POLICIES]) {
    assert.ok(reference.includes(`### \`${spec.name}\``), spec.name);
    for (const p of spec.params) assert.ok(reference.includes(`| \`${p.name}\` |`), `${spec.name}.${p.name}`);
  }
  for (const code of Object.keys(DIAGNOSTIC_CODES)) assert.ok(reference.includes(`| \`${code}\` |`), code);
});

test('the reference gives each argument of a choice option its type, default and doc', () => {
  const reference = renderReference();
  for (const spec of [...ENVS, ...ALGORITHMS, ...POLICIES]) {
    for (const p of spec.params) {
      if (p.type.kind !== 'choice') continue;
      for (const o of p.type.options) for (const a of o.params ?? []) assert.ok(reference.includes(`  - \`${a.name}\`: `) && reference.includes(a.doc), `${spec.name}.${p.name} ${o.name}(${a.name})`);
    }
  }
  assert.ok(reference.includes('  - `pad`: `true` / `false`, default `false`. Write every number at a fixed width'), 'addition(pad)');
});
