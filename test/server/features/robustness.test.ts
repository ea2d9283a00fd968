// Every feature, on text being typed: the examples cut short and edited at random (seeded, so
// every run sees the same cases), each feature asked at random positions. None may throw (a
// refused rename throws RenameError, which the server reports), and every range returned must
// lie inside the document.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import type { Position, Range } from 'vscode-languageserver';
import { codeActions } from '../../../server/features/code-actions.js';
import { completion } from '../../../server/features/completion/index.js';
import { definition } from '../../../server/features/definition.js';
import { toLspDiagnostics } from '../../../server/features/diagnostics.js';
import { experiments, planFor } from '../../../server/features/experiments.js';
import { foldingRanges } from '../../../server/features/folding.js';
import { formatDocument, formatRange } from '../../../server/features/formatting.js';
import { documentHighlights } from '../../../server/features/highlight.js';
import { hover } from '../../../server/features/hover.js';
import { inlayHints } from '../../../server/features/inlay-hints.js';
import { references } from '../../../server/features/references.js';
import { prepareRename, rename, RenameError } from '../../../server/features/rename.js';
import { selectionRanges } from '../../../server/features/selection.js';
import { semanticTokens } from '../../../server/features/semantic-tokens.js';
import { signatureHelp } from '../../../server/features/signature-help.js';
import { documentSymbols, workspaceSymbols } from '../../../server/features/symbols.js';
import type { DocumentContext } from '../../../server/context.js';
import { exampleFiles } from '../../helpers/repo.js';
import { seededRandom } from '../../helpers/random.js';
import { fixture } from './fixture.js';

const PIECES = ['{', '}', '(', ')', '[', ']', ':', '=', ',', '.', '"', '\n', ' ', '//', '///', '/*', 'obs.', 'env', 'term ', 'stage x = ', 'linear(', 'future(k: ', '0.5', '1k', 'PPO', 'eval.', 'algorithm.', 'none', 'module("'];

function mutate(text: string, random: () => number): string {
  const at = Math.floor(random() * (text.length + 1));
  switch (Math.floor(random() * 3)) {
    case 0: return text.slice(0, at); // typing at the end of what there is so far
    case 1: return text.slice(0, at) + text.slice(Math.min(text.length, at + 1 + Math.floor(random() * 20)));
    default: return text.slice(0, at) + PIECES[Math.floor(random() * PIECES.length)] + text.slice(at);
  }
}

function inside(doc: DocumentContext, range: Range): boolean {
  const lastLine = doc.lines.lineCount - 1;
  const ok = (p: Position) => p.line >= 0 && p.line <= lastLine && p.character >= 0;
  return ok(range.start) && ok(range.end) && doc.lines.offset(range.start) <= doc.lines.offset(range.end);
}

/** Calls every feature at a position; returns the ranges they gave, to be checked. */
function everyFeature(doc: DocumentContext, at: Position): Range[] {
  const ranges: Range[] = [];
  const all: Range = { start: { line: 0, character: 0 }, end: doc.lines.position(doc.unit.text.length) };
  for (const item of completion(doc, at)) if (item.textEdit && 'range' in item.textEdit) ranges.push(item.textEdit.range);
  const h = hover(doc, at);
  if (h?.range) ranges.push(h.range);
  ranges.push(...definition(doc, at).filter((l) => l.uri === doc.uri).map((l) => l.range));
  ranges.push(...references(doc, at, true).filter((l) => l.uri === doc.uri).map((l) => l.range));
  ranges.push(...documentHighlights(doc, at).map((d) => d.range));
  try {
    const prepared = prepareRename(doc, at);
    if (prepared) ranges.push(prepared.range);
    rename(doc, at, 'Renamed');
  } catch (err) {
    if (!(err instanceof RenameError)) throw err;
  }
  signatureHelp(doc, at);
  ranges.push(...selectionRanges(doc, [at]).map((s) => s.range));
  ranges.push(...codeActions(doc, { start: at, end: at }).flatMap((a) => Object.values(a.edit?.changes ?? {}).flat().map((e) => e.range)));
  ranges.push(...inlayHints(doc, all).map((hint) => ({ start: hint.position, end: hint.position })));
  ranges.push(...formatRange(doc, { start: at, end: at }).map((e) => e.range));
  return ranges;
}

function documentWide(doc: DocumentContext): Range[] {
  const ranges = [
    ...toLspDiagnostics(doc).map((d) => d.range),
    ...documentSymbols(doc).map((s) => s.range),
    ...formatDocument(doc).map((e) => e.range),
    ...experiments(doc).map((e) => e.range),
  ];
  foldingRanges(doc);
  semanticTokens(doc);
  workspaceSymbols(doc.analysis, 'a');
  for (const e of experiments(doc)) planFor(doc, e.name);
  return ranges;
}

describe('robustness of the editor features', () => {
  const examples = exampleFiles().map((file) => fs.readFileSync(file, 'utf8'));

  test('every feature answers on every example at every 7th offset', () => {
    for (const text of examples) {
      const f = fixture(text);
      for (const r of documentWide(f.doc)) assert.ok(inside(f.doc, r));
      for (let offset = 0; offset <= text.length; offset += 7) {
        for (const r of everyFeature(f.doc, f.doc.lines.position(offset))) assert.ok(inside(f.doc, r), `range ${JSON.stringify(r)} outside the text`);
      }
    }
  });

  test('every feature answers on randomly edited examples', () => {
    const random = seededRandom(4);
    for (let round = 0; round < 300; round++) {
      let text = examples[round % examples.length];
      for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) text = mutate(text, random);
      const f = fixture(text);
      try {
        documentWide(f.doc);
        for (let k = 0; k < 4; k++) {
          const at = f.doc.lines.position(Math.floor(random() * (text.length + 1)));
          for (const r of everyFeature(f.doc, at)) assert.ok(inside(f.doc, r), `range ${JSON.stringify(r)} outside the text`);
        }
      } catch (err) {
        assert.fail(`${(err as Error).stack}\n--- input ---\n${text}`);
      }
    }
  });
});
