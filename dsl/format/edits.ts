// `formatEdits(text)`: the formatter's result as a few text edits, so that an editor keeps its
// cursor, folds and undo history on the lines the formatter left alone.
import type { TextEdit } from '../diagnostics.js';
import { format, type FormatOptions } from './format.js';

/** Edits turning `text` into its formatted form; none when it is already formatted or cannot be formatted. */
export function formatEdits(text: string, options?: FormatOptions): TextEdit[] {
  const result = format(text, options);
  if (!result.ok || result.text === text) return [];
  return lineEdits(text, result.text);
}

/** Beyond this many line pairs the quadratic table costs more than the edits save: replace the middle whole. */
const MAX_TABLE = 4_000_000;

/** A line diff: the lines common to both (a longest common subsequence) stay, each run between them is one edit. */
export function lineEdits(before: string, after: string): TextEdit[] {
  const a = splitLines(before);
  const b = splitLines(after);
  // Formatting usually touches a few lines: match the unchanged head and tail first.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const oldLines = a.slice(head, a.length - tail);
  const newLines = b.slice(head, b.length - tail);

  const offsets = [0];
  for (const line of a) offsets.push(offsets[offsets.length - 1] + line.length);
  const kept = oldLines.length * newLines.length <= MAX_TABLE ? commonLines(oldLines, newLines) : [];
  const edits: TextEdit[] = [];
  let i = 0;
  let j = 0;
  for (const [keptOld, keptNew] of [...kept, [oldLines.length, newLines.length]]) {
    if (keptOld > i || keptNew > j) {
      edits.push({ range: { start: offsets[head + i], end: offsets[head + keptOld] }, newText: newLines.slice(j, keptNew).join('') });
    }
    i = keptOld + 1;
    j = keptNew + 1;
  }
  return edits;
}

/** Lines with their line breaks, so that joining them gives the text back. */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Index pairs of a longest common subsequence of two line lists (the classic table). */
function commonLines(a: string[], b: string[]): [number, number][] {
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width); // table[i][j]: LCS length of a[i..] and b[j..]
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * width + j] = a[i] === b[j] ? table[(i + 1) * width + j + 1] + 1 : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) pairs.push([i++, j++]);
    else if (table[(i + 1) * width + j] >= table[i * width + j + 1]) i++;
    else j++;
  }
  return pairs;
}
