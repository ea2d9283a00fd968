// docs/language.md's examples are normative: each ```rlx block parses on its own, and all of them
// together, in order, form one file that checks with no errors and no warnings. The files in
// examples/ are what a new user opens first: each must check clean too. Both may show what the
// language declares and the trainer does not run yet: those `not-implemented` warnings are
// expected (test/cli/check-agrees-with-train.test.ts tests them).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { analyze, parse, Workspace } from '../../dsl/index.js';
import { codeBlocks, readLanguageDoc, repoRoot } from '../helpers/repo.js';
import { check, renderDiagnostics } from '../helpers/source.js';
import type { Diagnostic } from '../../dsl/index.js';

const notRunYet = (d: Diagnostic) => d.code === 'not-implemented';

const blocks = codeBlocks(readLanguageDoc(), 'rlx');

describe('docs/language.md examples', () => {
  test('the page has rlx examples', () => {
    assert.ok(blocks.length >= 5, `expected the rlx blocks of docs/language.md; found ${blocks.length}`);
  });

  for (const block of blocks) {
    test(`the block at docs/language.md line ${block.line} parses without syntax errors`, () => {
      const { errors, file } = parse(block.text);
      assert.deepEqual(errors, [], `syntax errors in the block at line ${block.line}`);
      assert.ok(file.declarations.length > 0, 'each example declares something');
      for (const decl of file.declarations) assert.ok(decl.name, `a declaration without a name at offset ${decl.range.start}`);
    });
  }

  test('all blocks together check with no errors and no warnings', () => {
    const text = blocks.map((b) => b.text).join('\n');
    const checked = check(text);
    assert.deepEqual(checked.problems().filter((d) => !notRunYet(d)), [], `docs/language.md's examples, put together, must check clean:\n${checked.render()}`);
    // Every declaration of every block is there once (nothing swallowed by recovery).
    const names = checked.analysis.units[0].parse.file.declarations.map((d) => d.name?.text);
    for (const expected of ['Pole', 'Actor', 'Tuned', 'Fast', 'Faster', 'Balance', 'Upright', 'Reach', 'Sums', 'LrScan', 'Rooms', 'Her', 'Dialogue']) {
      assert.ok(names.includes(expected), `'${expected}' missing from the parsed declarations`);
    }
  });

  test('with Windows line endings too', () => {
    const text = blocks.map((b) => b.text).join('\n').replace(/\n/g, '\r\n');
    const checked = check(text);
    assert.deepEqual(checked.problems().filter((d) => !notRunYet(d)), [], checked.render());
    const her = checked.analysis.units[0].parse.file.declarations.find((d) => d.name?.text === 'Her');
    assert.equal(her?.doc, 'Goal-reaching with hindsight: failed episodes still teach.');
  });

  test('split into one file per block, each importing the ones before it', () => {
    // The blocks refer to each other both ways (the last block declares what the experiments use, and uses
    // the first block's Actor), so these files import each other in cycles; apart from those import
    // cycles, names resolve through the imports and everything checks clean.
    const files: Record<string, string> = {};
    blocks.forEach((b, i) => {
      const imports = blocks.slice(0, i).map((_, j) => `import "./block${j}.rlx"\n`).join('');
      files[`block${i}.rlx`] = imports + b.text;
    });
    // Section 11 declares what the earlier blocks use: the earlier blocks import it as well.
    const last = blocks.length - 1;
    for (let i = 0; i < last; i++) files[`block${i}.rlx`] = `import "./block${last}.rlx"\n` + files[`block${i}.rlx`];
    const checked = check(files);
    const problems = checked.problems().filter((d) => d.code !== 'import-cycle' && !notRunYet(d));
    assert.deepEqual(problems, [], checked.render());
  });
});

describe('examples/*.rlx', () => {
  const dir = path.join(repoRoot(), 'examples');
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.rlx')).sort() : [];
  if (files.length === 0) {
    test('each example checks clean', { skip: 'examples/ has no .rlx files yet' }, () => {});
    return;
  }
  // Read from the disk: examples may import each other.
  const host = { readFile: (p: string) => (fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : undefined) };
  for (const name of files) {
    test(`examples/${name} checks with no errors and no warnings`, () => {
      const filePath = path.join(dir, name);
      const analysis = analyze(new Workspace(host), [filePath]);
      const problems = [...analysis.diagnostics.values()].flat().filter((d) => d.severity !== 'info' && !notRunYet(d));
      const marked = analysis.units.map((u) => ({ name: path.relative(dir, u.path), path: u.path, text: u.text, marks: [] }));
      assert.deepEqual(problems, [], `examples/${name} must check clean:\n${renderDiagnostics(marked, problems)}`);
    });
  }
});
