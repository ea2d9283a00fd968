// `task: dataset("./file.jsonl")`: a user's own prompts and targets, one JSON object per line
// (`{"prompt": "12+34=", "target": "46"}`; other fields are ignored). The path is relative to
// the folder of the .rlx file. Prompts are split into training and held-out by the fixed hash
// of split.ts. Every problem with the file is an error naming the file and the line.
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Rng } from '../random.js';
import { InputError } from '../input-error.js';
import { byHash, HELD_OUT_LIMIT, heldOutPrompts } from './split.js';
import type { TextExample, TextTask } from './task.js';
import { alphabetOf } from './tokenizer.js';
import { length } from './verifiers.js';

/** A dataset file that cannot be used; the message names the file, and the line where there is one. */
export class DatasetError extends InputError {
  override name = 'DatasetError';
}

const SHAPE = 'each line must be one JSON object like {"prompt": "12+34=", "target": "46"}';

/** The examples of a JSONL text; `file` names it in errors. Blank lines are skipped. */
export function parseDataset(text: string, file: string): TextExample[] {
  const examples: TextExample[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${file} line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new DatasetError(`${where}: not valid JSON (${(err as Error).message}); ${SHAPE}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new DatasetError(`${where}: expected an object with "prompt" and "target", got ${Array.isArray(value) ? 'a list' : JSON.stringify(value)}; ${SHAPE}`);
    }
    const record = value as Record<string, unknown>;
    for (const field of ['prompt', 'target']) {
      if (!Object.hasOwn(record, field)) throw new DatasetError(`${where}: no "${field}" field; ${SHAPE}`);
      if (typeof record[field] !== 'string') throw new DatasetError(`${where}: "${field}" must be a string, got ${JSON.stringify(record[field])}; ${SHAPE}`);
    }
    examples.push({ prompt: record.prompt as string, target: record.target as string });
  });
  return examples;
}

/** Reads `file` (relative to `baseDir`, the .rlx file's folder) and parses it. */
export function loadDataset(file: string, baseDir: string): TextExample[] {
  const resolved = path.resolve(baseDir, file);
  let text: string;
  try {
    text = fs.readFileSync(resolved, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder, not a file' : (err as Error).message;
    throw new DatasetError(`dataset ${JSON.stringify(file)}: cannot read ${resolved}: ${why} (the path is relative to the folder of the .rlx file, ${baseDir})`);
  }
  return parseDataset(text, file);
}

/** The text task of a dataset's examples; `file` names it in its description and errors, `resolved` is where it was read. */
export function datasetTask(examples: readonly TextExample[], file: string, resolved?: string): TextTask {
  if (examples.length === 0) throw new DatasetError(`${file}: no examples (the file is empty or blank); ${SHAPE}`);
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
    isHeldOut: (prompt) => heldOutSet.has(prompt),
    sample: (rng: Rng) => training[rng.int(training.length)],
    heldOut: () => heldOut,
    ...(resolved !== undefined ? { source: { file: resolved } } : {}),
  };
}
