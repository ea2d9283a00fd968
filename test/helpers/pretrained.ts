// Sources with pretrained policies: their model folders are real folders (test/fixtures/hf-tiny,
// or made in a temporary folder), written into the sources relative to the virtual root the
// sources live in, as a user writes them relative to the .rlx file.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyze, Workspace, type Analysis, type Diagnostic } from '../../dsl/index.js';
import { repoRoot } from './repo.js';
import { MemoryHost, renderDiagnostics, stripMarkers, virtualPath, VIRTUAL_ROOT, type Expected, type MarkedFile } from './source.js';

export const HF_TINY = path.join(repoRoot(), 'test', 'fixtures', 'hf-tiny');

/** A folder as a source writes it in `pretrained("...")` from a file at `from` (relative to the virtual root). */
export function written(dir: string, from = 'main.rlx'): string {
  return path.relative(path.dirname(virtualPath(from)), dir).split(path.sep).join('/');
}

/** `pretrained("<the hf-tiny folder>")` as main.rlx writes it. */
export function tiny(family: 'qwen2' | 'llama' | 'gpt2'): string {
  return `pretrained("${written(path.join(HF_TINY, family))}")`;
}

/** A temporary model folder with these files (name -> text); the caller removes it. */
export function modelFolder(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-model-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

export function tinyFile(family: string, name: string): string {
  return fs.readFileSync(path.join(HF_TINY, family, name), 'utf8');
}

export interface PretrainedChecked {
  analysis: Analysis;
  files: MarkedFile[];
  all: Diagnostic[];
  render(): string;
}

/** Analyses the sources (every file a root) with `freeMemory` bytes free on the "machine". */
export function checkPretrained(sources: Record<string, string> | string, freeMemory = 2 ** 40): PretrainedChecked {
  const named = typeof sources === 'string' ? { 'main.rlx': sources } : sources;
  const files = Object.entries(named).map(([name, marked]): MarkedFile => ({ name, path: virtualPath(name), ...stripMarkers(marked) }));
  const workspace = new Workspace(new MemoryHost(Object.fromEntries(files.map((f) => [f.name, f.text]))), () => freeMemory);
  const analysis = analyze(workspace, files.map((f) => f.path));
  const all = files.flatMap((f) => analysis.diagnostics.get(f.path) ?? []);
  return { analysis, files, all, render: () => renderDiagnostics(files, all) };
}

/** The warning every pretrained policy gets until the trainer runs them (dsl/schema/policies.ts). */
const NOT_WIRED = (d: Diagnostic) => d.code === 'not-implemented' && d.message.startsWith('policy pretrained is not implemented');

/**
 * One diagnostic per marked range, in order, each exactly there; nothing else is reported but
 * the not-yet-trained warning at `pretrained`.
 */
export function expectPretrained(sources: Record<string, string> | string, expected: Expected[], freeMemory?: number): Diagnostic[] {
  const checked = checkPretrained(sources, freeMemory);
  const marks = checked.files.flatMap((file) => file.marks.map((range) => ({ file, range })));
  assert.equal(marks.length, expected.length, `the source marks ${marks.length} range(s) for ${expected.length} expected diagnostic(s)`);
  const found = expected.map((e, i) => {
    const { file, range } = marks[i]!;
    const hit = checked.all.find((d) => d.file === file.path && d.code === e.code && d.range.start === range.start && d.range.end === range.end
      && d.severity === (e.severity ?? 'error') && (e.message === undefined || (typeof e.message === 'string' ? d.message.includes(e.message) : e.message.test(d.message))));
    assert.ok(hit, `expected ${e.severity ?? 'error'} ${e.code} ${e.message ?? ''} at ${file.name} [${range.start}, ${range.end}) ${JSON.stringify(file.text.slice(range.start, range.end))}; got:\n${checked.render()}`);
    return hit;
  });
  const others = checked.all.filter((d) => !found.includes(d) && d.severity !== 'info' && !NOT_WIRED(d));
  assert.deepEqual(others.map((d) => `${d.code}: ${d.message}`), [], `unexpected diagnostics:\n${checked.render()}`);
  return found;
}

export { VIRTUAL_ROOT };
