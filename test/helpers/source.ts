// Test sources in the style of rust-analyzer fixtures: files live in memory under a virtual
// root, and ranges are marked inside the text with ⟦ and ⟧ around the characters a diagnostic
// must cover. A test states the source and what it expects; this module does the bookkeeping
// and prints every diagnostic, in context, when an expectation fails.
//
//   expectDiagnostic(`algorithm A = PPO { ⟦lr⟧: 1e-3 }`, 'unknown-property', /no property 'lr'/);
//   expectClean({ 'main.rlx': 'import "./envs.rlx" ...', 'envs.rlx': 'env Pole = CartPole {}' });
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { analyze, LineIndex, Workspace } from '../../dsl/index.js';
import type { Analysis, AnalyzeOptions, Diagnostic, DiagnosticCode, FileHost, Fix, Range, Severity, TextEdit } from '../../dsl/index.js';

export const OPEN = '⟦';
export const CLOSE = '⟧';

/** Where in-memory files live. Not a path on any machine: nothing here touches the disk. */
export const VIRTUAL_ROOT = path.resolve('/virtual');
/** The file name a plain string source gets. */
export const MAIN = 'main.rlx';

/** One source file, or several by name (`{ 'main.rlx': ..., 'envs.rlx': ... }`), markers included. */
export type Sources = string | Record<string, string>;

export interface MarkedFile {
  /** Name as the test wrote it, relative to the virtual root. */
  name: string;
  /** Absolute path under the virtual root, as diagnostics report it. */
  path: string;
  /** The text with the markers taken out. */
  text: string;
  /** The marked ranges, in source order, as offsets into `text`. */
  marks: Range[];
}

/** Takes the ⟦ ⟧ markers out of a text and returns where they were. Markers do not nest. */
export function stripMarkers(marked: string): { text: string; marks: Range[] } {
  let text = '';
  const marks: Range[] = [];
  let open: number | undefined;
  for (const ch of marked) {
    if (ch === OPEN) {
      if (open !== undefined) throw new Error(`nested ${OPEN} in test source:\n${marked}`);
      open = text.length;
    } else if (ch === CLOSE) {
      if (open === undefined) throw new Error(`${CLOSE} without ${OPEN} in test source:\n${marked}`);
      marks.push({ start: open, end: text.length });
      open = undefined;
    } else {
      text += ch;
    }
  }
  if (open !== undefined) throw new Error(`${OPEN} without ${CLOSE} in test source:\n${marked}`);
  return { text, marks };
}

export function virtualPath(name: string): string {
  return path.resolve(VIRTUAL_ROOT, name);
}

/** A FileHost over in-memory texts keyed by name relative to VIRTUAL_ROOT. */
export class MemoryHost implements FileHost {
  private readonly texts = new Map<string, string>();

  constructor(files: Record<string, string> = {}) {
    for (const [name, text] of Object.entries(files)) this.set(name, text);
  }

  set(name: string, text: string): void {
    this.texts.set(virtualPath(name), text);
  }

  readFile(filePath: string): string | undefined {
    return this.texts.get(path.resolve(filePath));
  }
}

function normalise(sources: Sources): Record<string, string> {
  return typeof sources === 'string' ? { [MAIN]: sources } : sources;
}

export interface Checked {
  files: MarkedFile[];
  analysis: Analysis;
  /** Every diagnostic of every file, files in the order given, each file's sorted by position. */
  all: Diagnostic[];
  file(name: string): MarkedFile;
  /** Diagnostics of one file by its test name. */
  in(name: string): Diagnostic[];
  /** Errors and warnings (not infos) of all files. */
  problems(): Diagnostic[];
  /** A readable listing of all diagnostics, for assertion messages. */
  render(): string;
}

/**
 * Strips markers from every file and analyses them together. By default every file is a root
 * (as in an editor with the whole folder open); `roots` narrows that to some files.
 */
export function check(sources: Sources, roots?: string[], options?: AnalyzeOptions): Checked {
  const files = Object.entries(normalise(sources)).map(([name, marked]): MarkedFile => {
    const { text, marks } = stripMarkers(marked);
    return { name, path: virtualPath(name), text, marks };
  });
  const host = new MemoryHost(Object.fromEntries(files.map((f) => [f.name, f.text])));
  const workspace = new Workspace(host);
  const analysis = analyze(workspace, (roots ?? files.map((f) => f.name)).map(virtualPath), options);
  const byPath = new Map(files.map((f) => [f.path, f]));
  const all: Diagnostic[] = [];
  for (const f of files) all.push(...(analysis.diagnostics.get(f.path) ?? []));
  for (const [p, list] of analysis.diagnostics) if (!byPath.has(p)) all.push(...list);
  const file = (name: string): MarkedFile => {
    const found = files.find((f) => f.name === name);
    if (!found) throw new Error(`no file '${name}' in this test source`);
    return found;
  };
  return {
    files,
    analysis,
    all,
    file,
    in: (name) => analysis.diagnostics.get(file(name).path) ?? [],
    problems: () => all.filter((d) => d.severity !== 'info'),
    render: () => renderDiagnostics(files, all),
  };
}

/** `main.rlx:3:5-3:9 error unknown-name "Pol": message`, one line per diagnostic (1-based lines and columns). */
export function renderDiagnostics(files: MarkedFile[], diagnostics: Diagnostic[]): string {
  if (diagnostics.length === 0) return '  (no diagnostics)';
  return diagnostics.map((d) => {
    const f = files.find((x) => x.path === d.file);
    return `  ${f ? describeRange(f, d.range) : `${d.file} [${d.range.start}, ${d.range.end})`} ${d.severity} ${d.code}: ${d.message}`;
  }).join('\n');
}

function describeRange(f: MarkedFile, range: Range): string {
  const index = new LineIndex(f.text);
  const a = index.position(range.start);
  const b = index.position(range.end);
  return `${f.name}:${a.line + 1}:${a.character + 1}-${b.line + 1}:${b.character + 1} ${JSON.stringify(f.text.slice(range.start, range.end))}`;
}

function sameRange(a: Range, b: Range): boolean {
  return a.start === b.start && a.end === b.end;
}

function matches(message: string, expected: RegExp | string | undefined): boolean {
  if (expected === undefined) return true;
  return typeof expected === 'string' ? message.includes(expected) : expected.test(message);
}

export interface ExpectOptions {
  /** Default 'error'. */
  severity?: Severity;
  /**
   * What else may be reported: 'none' (the default) allows no other error or warning anywhere,
   * 'allowed' ignores everything else.
   */
  others?: 'none' | 'allowed';
  roots?: string[];
  /** How to analyse (a Python env probe's facts, say). */
  analyze?: AnalyzeOptions;
}

export interface Expected {
  code: DiagnosticCode;
  message?: RegExp | string;
  severity?: Severity;
}

export interface Found {
  diagnostic: Diagnostic;
  file: MarkedFile;
  checked: Checked;
}

/**
 * Exactly one range is marked in the sources; a diagnostic with `code` must cover exactly that
 * range, with the given severity and a message matching `message`. Returns it (with its file's
 * text) so the test can look at fixes and related information.
 */
export function expectDiagnostic(sources: Sources, code: DiagnosticCode, message?: RegExp | string, options: ExpectOptions = {}): Found {
  const [found] = expectDiagnostics(sources, [{ code, message, severity: options.severity }], options);
  return found;
}

/**
 * One expectation per marked range, in order (files in the order given, then by offset).
 * Each must be met by a diagnostic on exactly that range.
 */
export function expectDiagnostics(sources: Sources, expected: Expected[], options: ExpectOptions = {}): Found[] {
  const checked = check(sources, options.roots, options.analyze);
  const marks = checked.files.flatMap((file) => file.marks.map((range) => ({ file, range })));
  assert.equal(marks.length, expected.length, `the test source marks ${marks.length} range(s) for ${expected.length} expected diagnostic(s)`);
  const used = new Set<Diagnostic>();
  const found = expected.map((e, i): Found => {
    const { file, range } = marks[i];
    const severity = e.severity ?? 'error';
    const here = checked.in(file.name).filter((d) => !used.has(d) && d.code === e.code && sameRange(d.range, range));
    const hit = here.find((d) => d.severity === severity && matches(d.message, e.message));
    assert.ok(hit, `expected ${severity} ${e.code}${e.message ? ` matching ${e.message}` : ''} at ${describeRange(file, range)}; got:\n${checked.render()}`);
    used.add(hit);
    return { diagnostic: hit, file, checked };
  });
  if ((options.others ?? 'none') === 'none') {
    // Warnings that a built-in is not run by the trainer yet are tested by their own cases;
    // elsewhere (DQN on Pendulum, a curriculum path) they are beside the point.
    const aboutSupport = expected.some((e) => e.code === 'not-implemented');
    const extra = checked.problems().filter((d) => !used.has(d) && (aboutSupport || d.code !== 'not-implemented'));
    assert.equal(extra.length, 0, `unexpected diagnostics besides the expected ones:\n${renderDiagnostics(checked.files, extra)}\nall:\n${checked.render()}`);
  }
  return found;
}

/** No errors and no warnings in any file. */
export function expectClean(sources: Sources, roots?: string[]): Checked {
  const checked = check(sources, roots);
  for (const f of checked.files) assert.equal(f.marks.length, 0, `a clean source should mark nothing (${f.name})`);
  const problems = checked.problems();
  assert.equal(problems.length, 0, `expected no errors or warnings; got:\n${checked.render()}`);
  return checked;
}

/** Applies non-overlapping edits to a text, as an editor applies a quick fix. */
export function applyEdits(text: string, edits: TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => b.range.start - a.range.start || b.range.end - a.range.end);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].range.end > sorted[i - 1].range.start) throw new Error('overlapping edits');
  }
  let out = text;
  for (const e of sorted) {
    assert.ok(e.range.start >= 0 && e.range.start <= e.range.end && e.range.end <= out.length, `edit range ${JSON.stringify(e.range)} outside the text`);
    out = out.slice(0, e.range.start) + e.newText + out.slice(e.range.end);
  }
  return out;
}

/** The fix with this title (or the only fix when no title is given); fails when there is none. */
export function fixOf(found: Found, title?: string | RegExp): Fix {
  const fixes = found.diagnostic.fixes ?? [];
  const fix = title === undefined ? (fixes.length === 1 ? fixes[0] : undefined) : fixes.find((f) => matches(f.title, title));
  assert.ok(fix, `no fix ${title ?? '(exactly one)'} on ${found.diagnostic.code}; fixes: ${JSON.stringify(fixes.map((f) => f.title))}`);
  return fix;
}

/** The diagnostic's file after applying one of its fixes. */
export function applyFix(found: Found, title?: string | RegExp): string {
  return applyEdits(found.file.text, fixOf(found, title).edits);
}

/** The sources with one file replaced (for re-checking after a fix). */
export function withFile(sources: Sources, name: string, text: string): Record<string, string> {
  return { ...normalise(sources), [name]: text };
}
