// The repository stands alone: a clone of it, and nothing beside it, builds and passes its
// tests; and the citations of the language reference in code point at headings that exist.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { readLanguageDoc, repoRoot } from './helpers/repo.js';

/** Tracked-looking source files: everything but dependencies, build output and test data. */
function sourceFiles(dir = repoRoot()): string[] {
  const skip = new Set(['node_modules', 'out', 'dist', '.git', '.tmp', 'runs', 'fixtures']);
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return skip.has(entry.name) ? [] : sourceFiles(file);
    return /\.(ts|js|mjs|cjs|sh|json|md)$/.test(entry.name) || entry.name === 'run' ? [file] : [];
  });
}

/** GitHub's anchor of a markdown heading: lower case, punctuation dropped, spaces as hyphens. */
function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

describe('the repository', () => {
  it('reads nothing from a folder beside it (../shared is the design folder of development, not part of a clone)', () => {
    const offenders = sourceFiles()
      .filter((file) => !file.endsWith('repository.test.ts'))
      .flatMap((file) => fs.readFileSync(file, 'utf8').split('\n').map((line, i) => ({ file, line, i })))
      .filter(({ line }) => /\.\.\/shared\/(LANGUAGE|ARCHITECTURE|STYLE|fixtures|tools|peers)/.test(line) || /\bLANGUAGE\.md\b/.test(line))
      .map(({ file, i, line }) => `${path.relative(repoRoot(), file)}:${i + 1}: ${line.trim()}`);
    assert.deepEqual(offenders, []);
  });

  it('cites only headings of docs/language.md that exist', () => {
    const headings = new Set(readLanguageDoc().split('\n').filter((l) => /^#{1,4} /.test(l)).map((l) => anchor(l.replace(/^#+ /, ''))));
    const cited = sourceFiles().flatMap((file) =>
      [...fs.readFileSync(file, 'utf8').matchAll(/docs\/language\.md#([\w-]+)/g)].map((m) => ({ file: path.relative(repoRoot(), file), anchor: m[1]! })),
    );
    assert.ok(cited.length >= 5, `the code cites the reference by heading (found ${cited.length})`);
    const missing = cited.filter((c) => !headings.has(c.anchor)).map((c) => `${c.file}: #${c.anchor}`);
    assert.deepEqual(missing, [], `headings of docs/language.md: ${[...headings].join(', ')}`);
  });

  it('cites only headings of the other docs/ pages that exist (a page that is split keeps the headings others link to)', () => {
    const docs = path.join(repoRoot(), 'docs');
    const headingsOf = new Map<string, Set<string>>();
    const headings = (page: string): Set<string> | undefined => {
      if (!headingsOf.has(page)) {
        const file = path.join(docs, page);
        if (!fs.existsSync(file)) return undefined; // a page of another project (a dependency's docs quoted in a comment)
        headingsOf.set(page, new Set(fs.readFileSync(file, 'utf8').split('\n').filter((l) => /^#{1,4} /.test(l)).map((l) => anchor(l.replace(/^#+ /, '')))));
      }
      return headingsOf.get(page);
    };
    const cited = sourceFiles().flatMap((file) =>
      [...fs.readFileSync(file, 'utf8').matchAll(/docs\/((?:notes\/)?[\w-]+\.md)#([\w-]+)/g)]
        .filter((m) => m[1] !== 'language.md')
        .map((m) => ({ file: path.relative(repoRoot(), file), page: m[1]!, anchor: m[2]! })),
    );
    const missing = cited.filter((c) => headings(c.page) !== undefined && !headings(c.page)!.has(c.anchor)).map((c) => `${c.file}: docs/${c.page}#${c.anchor}`);
    assert.ok(cited.some((c) => c.page === 'gpu.md'), 'the code cites docs/gpu.md by heading');
    assert.deepEqual(missing, []);
  });
});
