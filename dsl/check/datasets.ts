// `task: dataset("./file.jsonl")`: the file is there, inside the spec's folder, readable, not too
// large, and each line is a prompt/target object; reported at the path, as module-not-found is
// for env modules. rlx train refuses the same files (runtime/text/dataset.ts).
import * as path from 'node:path';
import { datasetInsideFolder, invalidUtf8Message, MAX_DATASET_BYTES } from '../schema/dataset.js';
import type { Call, StringLiteral } from '../syntax/ast.js';
import type { DeclSymbol } from '../semantics/model.js';
import type { CheckContext } from './context.js';

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

/**
 * A JSONL file of {"prompt", "target"} lines that a path literal of this file names (a task's
 * `dataset("...")`, GRPO's `sft_data`; `what` names it in messages): reported at the literal.
 */
export function checkDatasetFile(ctx: CheckContext, literal: StringLiteral, what: string): void {
  const folder = path.dirname(ctx.unit.path);
  const written = literal.value;
  if (!datasetInsideFolder(written, folder)) {
    ctx.accept('error', 'dataset-not-found', `'${written}' is outside the folder of this file; dataset paths stay inside it: copy the file there (or link to it from there)`, literal.range);
    return;
  }
  const file = path.resolve(folder, written);
  const read = ctx.model.dataset(file);
  if (read === undefined) return;
  if (read.kind === 'unreadable') {
    ctx.accept('error', 'dataset-not-found', `cannot read '${written}': ${read.reason} (looked for ${path.relative(folder, file)}); ${what} paths are relative to this file`, literal.range);
  } else if (read.kind === 'large') {
    if (read.bytes > MAX_DATASET_BYTES) {
      ctx.accept('error', 'invalid-dataset', `'${written}' is ${(read.bytes / MiB).toFixed(1)} MiB, more than the ${MAX_DATASET_BYTES / MiB} MiB rlx reads for a dataset; split it or keep a sample`, literal.range);
    }
  } else {
    if (!read.parse.ok) {
      const { line, message } = read.parse.problem;
      ctx.accept('error', 'invalid-dataset', `${written}${line !== undefined ? ` line ${line}` : ''}: ${message}`, literal.range);
    }
    if (read.invalidUtf8Line !== undefined) ctx.accept('warning', 'invalid-dataset', invalidUtf8Message(written, read.invalidUtf8Line), literal.range);
  }
}
