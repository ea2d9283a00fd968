// `format(text)`: the one canonical layout of an rlx file (layout rules in printer.ts). It refuses
// a file with syntax errors rather than guess at a broken tree, and it checks its own output:
// a formatter must never change what a file means, so output that does not parse back to the
// same tree with the same comments is refused as a bug instead of handed to the editor.
import type * as A from '../syntax/ast.js';
import { parse, type SyntaxError } from '../syntax/parse.js';
import { LineIndex } from '../text.js';
import { commentText, Printer } from './printer.js';

/** Spaces per indentation level. Not an option: the language has one layout, the one `rlx fmt --check` accepts. */
export const INDENT = 2;

export interface FormatOptions {
  /** A body written on one line stays on one line only if it fits in this many columns (default 100). */
  lineWidth?: number;
  /** Line breaks of the output (default: the text's own, from its first line break; LF when it has none). */
  lineEnding?: '\n' | '\r\n';
}

export type FormatResult = { ok: true; text: string } | { ok: false; reason: string };

export function format(text: string, options: FormatOptions = {}): FormatResult {
  try {
    // Line breaks are normalised first so that offsets, blank-line counts and output agree.
    const source = text.replace(/\r\n?/g, '\n');
    const { file, errors } = parse(source);
    if (errors.length > 0) return { ok: false, reason: refusal(source, errors) };
    const layout = { indent: INDENT, lineWidth: count(options.lineWidth, 100) };
    const output = new Printer(source, file.comments, layout).print(file);
    const problem = differences(file, output);
    if (problem) return { ok: false, reason: `internal formatter error: ${problem}; the file was left as it is (please report this)` };
    // A file written with CRLF keeps it: formatting is about layout, and a formatted CRLF file must
    // read as formatted (no editor edits, `rlx fmt --check` passes).
    const lineEnding = options.lineEnding ?? lineEndingOf(text);
    return { ok: true, text: lineEnding === '\n' ? output : output.replace(/\n/g, lineEnding) };
  } catch (err) {
    return { ok: false, reason: `internal formatter error: ${(err as Error)?.message ?? String(err)}; the file was left as it is (please report this)` };
  }
}

/** The line break a text uses, by its first one: CRLF or LF (also for a text without any). */
export function lineEndingOf(text: string): '\n' | '\r\n' {
  const at = text.indexOf('\n');
  return at > 0 && text[at - 1] === '\r' ? '\r\n' : '\n';
}

function refusal(source: string, errors: SyntaxError[]): string {
  const first = errors[0];
  const line = new LineIndex(source).position(first.range.start).line + 1;
  const n = errors.length;
  return `the file has ${n} syntax error${n === 1 ? '' : 's'}; fix ${n === 1 ? 'it' : 'them'} first (line ${line}: ${first.message})`;
}

function count(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isInteger(value) && value >= 0 ? value : fallback;
}

/** What, if anything, the formatted text lost: it must parse to the same tree and keep every comment. */
function differences(before: A.SourceFile, output: string): string | undefined {
  const after = parse(output);
  if (after.errors.length > 0) return `the output does not parse (${after.errors[0].message})`;
  if (syntaxShape(before) !== syntaxShape(after.file)) return 'the output parses to a different tree';
  // Sorted: comments above an import move with it when imports are gathered at the top.
  const texts = (file: A.SourceFile) => file.comments.map((c) => trimLines(commentText(c))).sort().join('\n');
  if (texts(before) !== texts(after.file)) return 'a comment was lost or duplicated';
  return undefined;
}

/** The tree without positions and comments (the formatter moves both), as a comparable string. */
function syntaxShape(file: A.SourceFile): string {
  return JSON.stringify(file, (key, value: unknown) => {
    if (key === 'range' || key === 'keywordRange' || key === 'comments') return undefined;
    if (key === 'doc' && typeof value === 'string') return trimLines(value);
    return value;
  });
}

function trimLines(text: string): string {
  return text.replace(/[^\S\n]+$/gm, '');
}
