// Formatting through the dsl formatter. The whole document: its line edits. A range: each
// top-level declaration the range overlaps, formatted on its own (with the comments directly
// above it and a comment ending its last line). Declarations are the unit because the formatter's
// layout of a declaration does not depend on its neighbours, and because a subset of a
// whole-file line diff is not safe to apply (the diff may pair a '}' deleted here with one
// inserted elsewhere). It also means a declaration can be formatted while another one is broken.
// The blank lines between declarations are only normalised by whole-document formatting.
// The editor's FormattingOptions (tabSize, insertSpaces) are ignored on purpose: the language has
// one canonical layout, and a file formatted in an editor whose defaults are 8-wide tabs (Neovim,
// Eglot) must still pass `rlx fmt --check`.
import type { Range, TextEdit } from 'vscode-languageserver';
import { format, formatEdits, lineEndingOf, type TextEdit as RlxEdit } from '../../dsl/index.js';
import { lineEdits } from '../../dsl/format/edits.js';
import type * as A from '../../dsl/index.js';
import { toLspRange, toOffset, type DocumentContext } from '../context.js';

export function formatDocument(doc: DocumentContext): TextEdit[] {
  return toLsp(doc, formatEdits(doc.unit.text));
}

export function formatRange(doc: DocumentContext, range: Range): TextEdit[] {
  const start = toOffset(doc.lines, range.start);
  const end = toOffset(doc.lines, range.end);
  const text = doc.unit.text;
  const edits: RlxEdit[] = [];
  for (const decl of doc.unit.parse.file.declarations) {
    const span = extent(text, decl, doc.unit.parse.file.comments);
    if (span.end < start || span.start > end) continue;
    const slice = text.slice(span.start, span.end);
    // The document's line breaks, also for a declaration on one line that formats to several.
    const result = format(slice, { lineEnding: lineEndingOf(text) });
    if (!result.ok) continue; // this declaration has syntax errors: leave it as it is
    // The formatter ends a file with a newline; the slice stops before its line break.
    const formatted = result.text.replace(/\r?\n$/, '');
    for (const e of lineEdits(slice, formatted)) edits.push({ range: { start: e.range.start + span.start, end: e.range.end + span.start }, newText: e.newText });
  }
  return toLsp(doc, edits);
}

/** A declaration with its comments: those on the lines directly above it, and one after its closing brace. */
function extent(text: string, decl: A.Declaration, comments: A.Comment[]): A.Range {
  const lineStart = (offset: number) => text.lastIndexOf('\n', offset - 1) + 1;
  const startsLine = (offset: number) => /^[ \t]*$/.test(text.slice(lineStart(offset), offset));
  let start = decl.range.start;
  for (let i = comments.length - 1; i >= 0; i--) {
    const c = comments[i];
    if (c.range.end > start) continue;
    if (!startsLine(c.range.start) || !/^[ \t]*\r?\n?[ \t]*$/.test(text.slice(c.range.end, start))) break;
    start = c.range.start;
  }
  let end = decl.range.end;
  const trailing = comments.find((c) => c.range.start >= end && /^[ \t]*$/.test(text.slice(end, c.range.start)));
  if (trailing) end = trailing.range.end;
  // From the start of the line, so that the formatter sees (and fixes) the declaration's indentation.
  return { start: startsLine(start) ? lineStart(start) : start, end };
}

function toLsp(doc: DocumentContext, edits: RlxEdit[]): TextEdit[] {
  return edits.map((e) => ({ range: toLspRange(doc.lines, e.range), newText: e.newText }));
}
