// `task: dataset("./file.jsonl")`: a user's own prompts and targets, one JSON object per line
// (`{"prompt": "12+34=", "target": "46"}`, or TRL's conversational rows; every field is kept for
// reward terms, `row.NAME`, and Python reward functions; dsl/schema/dataset.ts reads
// the format, for the checker too). The path is relative to the folder of the .rlx file and
// stays inside it. Prompts are split into training and held-out by the fixed hash of split.ts.
// Every problem with the file is an error naming the file and the line, never quoting it.
import * as path from 'node:path';

import { DATASET_SHAPE, datasetInsideFolder, decodeDataset, invalidUtf8Message, MAX_DATASET_BYTES, parseDatasetText } from '../../dsl/schema/dataset.js';
import type { Rng } from '../../shared/random.js';
import { InputError } from '../../shared/input-error.js';
import { InputFileError, readInputFile } from '../../shared/input-files.js';
import { byHash, HELD_OUT_LIMIT, heldOutPrompts } from './split.js';
import type { TextExample, TextTask } from './task.js';
import { alphabetOf } from '../policies/transformer/char-tokenizer.js';
import { length } from '../rewards/verifiers.js';

export { MAX_DATASET_BYTES };

/** A dataset file that cannot be used; the message names the file, and the line where there is one. */
export class DatasetError extends InputError {
  override name = 'DatasetError';
}

/** The examples of a JSONL text; `file` names it in errors. Blank lines are skipped. */
export function parseDataset(text: string, file: string): TextExample[] {
  const parsed = parseDatasetText(text);
  if (!parsed.ok) throw new DatasetError(`${file}${parsed.problem.line !== undefined ? ` line ${parsed.problem.line}` : ''}: ${parsed.problem.message}`);
  return parsed.examples;
}

/** A dataset's examples, and what the user should hear about it once (bytes that are not UTF-8). */
export interface LoadedDataset {
  readonly examples: TextExample[];
  readonly warnings: string[];
}

/** Why `file` (as the spec writes it) may not be read from `baseDir`, or undefined (dsl/schema/dataset.ts datasetInsideFolder). */
export function datasetOutsideReason(file: string, baseDir: string): string | undefined {
  if (datasetInsideFolder(file, baseDir)) return undefined;
  return `dataset ${JSON.stringify(file)} is outside the folder of the .rlx file (${baseDir}); dataset paths stay inside it: copy the file there (or link to it from there)`;
}

/**
 * Reads `file` (relative to `baseDir`, the .rlx file's folder; `inside: false` for a run's own
 * copy) and parses it: a regular file of at most MAX_DATASET_BYTES, else a DatasetError.
 */
export function loadDataset(file: string, baseDir: string, options: { inside?: boolean } = {}): LoadedDataset {
  const outside = options.inside === false ? undefined : datasetOutsideReason(file, baseDir);
  if (outside !== undefined) throw new DatasetError(outside);
  const resolved = path.resolve(baseDir, file);
  let bytes: Buffer;
  try {
    bytes = readInputFile(resolved, { what: `dataset ${JSON.stringify(file)}`, maxBytes: MAX_DATASET_BYTES });
  } catch (err) {
    if (!(err instanceof InputFileError)) throw err;
    throw new DatasetError(`${err.message} (the path is relative to the folder of the .rlx file, ${baseDir}; at most ${MAX_DATASET_BYTES / 2 ** 20} MiB)`, { cause: err });
  }
  return datasetOfBytes(bytes, file);
}

/** A dataset's examples from the file's bytes; `file` names it in errors (a DatasetError naming the line). */
export function datasetOfBytes(bytes: Uint8Array, file: string): LoadedDataset {
  const { text, invalidUtf8Line } = decodeDataset(bytes);
  return { examples: parseDataset(text, file), warnings: invalidUtf8Line !== undefined ? [invalidUtf8Message(file, invalidUtf8Line)] : [] };
}

/** The text task of a dataset's examples; `file` names it in its description and errors, `resolved` is where it was read. */
export function datasetTask(examples: readonly TextExample[], file: string, resolved?: string, warnings: readonly string[] = []): TextTask {
  if (examples.length === 0) throw new DatasetError(`${file}: no examples (the file is empty or blank); ${DATASET_SHAPE}`);
  const heldOutSet = heldOutPrompts(examples.map((e) => e.prompt));
  if (!heldOutSet) {
    throw new DatasetError(`${file}: every example has the same prompt; a dataset needs at least 2 different prompts, so that some can be held out for evaluation`);
  }
  const training = examples.filter((e) => !heldOutSet.has(e.prompt));
  const heldOut = Object.freeze(examples.filter((e) => heldOutSet.has(e.prompt)).sort((a, b) => byHash(a.prompt, b.prompt)).slice(0, HELD_OUT_LIMIT));
  const longest = (texts: string[]) => texts.reduce((most, t) => Math.max(most, length(t)), 0);
  return {
    description: `dataset(${JSON.stringify(file)})`,
    alphabet: alphabetOf(examples.flatMap((e) => [e.prompt, e.target])),
    maxPromptLength: longest(examples.map((e) => e.prompt)),
    maxTargetLength: longest(examples.map((e) => e.target)),
    targets: () => [...new Set(examples.map((e) => e.target))].sort((a, b) => length(b) - length(a)),
    isHeldOut: (prompt) => heldOutSet.has(prompt),
    sample: (rng: Rng) => training[rng.int(training.length)],
    heldOut: () => heldOut,
    rows: { file },
    ...(resolved !== undefined ? { source: { file: resolved } } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}
