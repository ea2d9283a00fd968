// Data files a spec names: `task: dataset("./file.jsonl")` and every setting of type `file`
// (values.ts). The file is there, inside the spec's folder, readable, not too large, and for
// JSONL examples each line is a prompt/target object; reported at the path, as module-not-found
// is for env modules. rlx train refuses the same files (runtime/text/dataset.ts, runtime/run/data-files.ts).
import * as path from 'node:path';
import { datasetInsideFolder, invalidUtf8Message, MAX_DATASET_BYTES } from '../schema/dataset.js';
import type { Call, StringLiteral } from '../syntax/ast.js';
import type { DeclSymbol } from '../semantics/model.js';
import type { DataFileType } from '../schema/types.js';
import type { Accept, CheckContext } from './context.js';
import { checkTransitionsHeader } from './transition-files.js';

const MiB = 2 ** 20;

/** The `dataset("...")` path literals of a declaration's own body (`task: dataset(...)`). */
function datasetPaths(symbol: DeclSymbol): StringLiteral[] {
  const found: StringLiteral[] = [];
  for (const member of symbol.decl.body?.members ?? []) {
    if (member.kind !== 'Property' || member.path.length !== 1 || member.path[0].text !== 'task' || member.value?.kind !== 'Call') continue;
    const call: Call = member.value;
    if (call.callee.parts.length !== 1 || call.callee.parts[0].text !== 'dataset') continue;
    const arg = call.args[0]?.value;
    if (arg?.kind === 'String' && arg.value !== '') found.push(arg);
  }
  return found;
}

export function checkDatasets(ctx: CheckContext, symbol: DeclSymbol): void {
  for (const literal of datasetPaths(symbol)) checkDatasetFile(ctx, literal, 'dataset("...")');
}

/** How a data file is named in messages: `label` says whose paths are relative ('dataset("...")', 'sft_data'), `noun` what it is ('dataset', 'data file'). */
export interface DataFileWords {
  readonly label: string;
  readonly noun: string;
}

/**
 * A JSONL file of {"prompt", "target"} lines that a path literal of this file names (a task's
 * `dataset("...")`): reported at the literal.
 */
export function checkDatasetFile(ctx: CheckContext, literal: StringLiteral, what: string): void {
  checkDataFile(ctx, literal, { label: what, noun: 'dataset' }, 'examples');
}

/**
 * The data file a path literal of this file names (a `file` setting's value; a task's
 * `dataset("...")`): inside the folder of this file, there, a regular file of at most
 * MAX_DATASET_BYTES and, for format `examples`, one {"prompt", "target"} object a line. What is
 * wrong is reported at the literal, through `accept` (ValueChecker's, for a oneOf's attempts).
 */
export function checkDataFile(ctx: CheckContext, literal: StringLiteral, words: DataFileWords, format: DataFileType['format'], accept: Accept = ctx.accept): void {
  // An unterminated string is a syntax error already; the file it would name is not looked for.
  if (!/^"(?:[^"\\]|\\.)*"$/.test(literal.raw)) return;
  const folder = path.dirname(ctx.unit.path);
  const written = literal.value;
  if (!datasetInsideFolder(written, folder)) {
    accept('error', 'dataset-not-found', `'${written}' is outside the folder of this file; ${words.noun} paths stay inside it: copy the file there (or link to it from there)`, literal.range);
    return;
  }
  const file = path.resolve(folder, written);
  const read = ctx.model.dataset(file);
  if (read === undefined) return;
  if (read.kind === 'unreadable') {
    accept('error', 'dataset-not-found', `cannot read '${written}': ${read.reason} (looked for ${path.relative(folder, file)}); ${words.label} paths are relative to this file`, literal.range);
  } else if (read.kind === 'large') {
    if (read.bytes > MAX_DATASET_BYTES) {
      accept('error', 'invalid-dataset', `'${written}' is ${(read.bytes / MiB).toFixed(1)} MiB, more than the ${MAX_DATASET_BYTES / MiB} MiB rlx reads for a ${words.noun}; split it or keep a sample`, literal.range);
    }
  } else if (format === 'examples') {
    if (!read.parse.ok) {
      const { line, message } = read.parse.problem;
      accept('error', 'invalid-dataset', `${written}${line !== undefined ? ` line ${line}` : ''}: ${message}`, literal.range);
    }
    if (read.invalidUtf8Line !== undefined) accept('warning', 'invalid-dataset', invalidUtf8Message(written, read.invalidUtf8Line), literal.range);
  }
  if (format === 'transitions' && read.kind !== 'unreadable' && (read.kind !== 'large' || read.bytes <= MAX_DATASET_BYTES)) checkTransitionsHeader(ctx, literal, accept);
}
