// Paths relative to the repository, whichever folder the compiled tests run from (out/test/...
// after tsc), so that no machine's absolute path is written into a test.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder above this module that holds the rlx package.json. */
export function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest) && (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === 'rlx') return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no rlx package.json in any folder above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/** The language's normative reference. */
export function languageDocPath(): string {
  return path.join(repoRoot(), 'docs', 'language.md');
}

/** docs/language.md's text. */
export function readLanguageDoc(): string {
  return fs.readFileSync(languageDocPath(), 'utf8');
}

export interface CodeBlock {
  /** The block's text, without the fences. */
  text: string;
  /** 1-based line of the block's first text line in the markdown file. */
  line: number;
}

/** Every fenced block with the given info string (```rlx), in document order. */
export function codeBlocks(markdown: string, language: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```' + language) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end].trim() !== '```') end++;
    blocks.push({ text: lines.slice(start, end).join('\n') + '\n', line: start + 1 });
    i = end;
  }
  return blocks;
}

/** The example specs a new user opens first. */
export function examplesDir(): string {
  return path.join(repoRoot(), 'examples');
}

export function exampleFiles(): string[] {
  return fs.readdirSync(examplesDir()).filter((f) => f.endsWith('.rlx')).sort().map((f) => path.join(examplesDir(), f));
}

/** The Gymnasium reference trajectories (test/fixtures/gymnasium/README.md says where they come from). */
export function gymnasiumFixturesDir(): string {
  return path.join(repoRoot(), 'test', 'fixtures', 'gymnasium');
}
