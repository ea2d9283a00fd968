// The file format of `task: dataset("./file.jsonl")`, read the same way by the checker (which
// reports a bad line at the path in the spec) and the trainer (runtime/text/dataset.ts): one
// JSON object a line, `{"prompt": "12+34=", "target": "46"}` (or TRL's conversational rows), every
// field kept for reward terms (`row.NAME`) and Python reward functions. Pure: the
// callers read the bytes, with their own checks on what the file is.
//
// Messages name the line and what is wrong but never quote the file: a path may point at a file
// the spec's author should not see the contents of (`dataset("/etc/shadow")` in a stranger's spec).
import * as path from 'node:path';

/** The largest dataset read (documented in docs/language.md#texttask): a JavaScript string holds at most ~512 MiB of text. */
export const MAX_DATASET_BYTES = 512 * 2 ** 20;

export const DATASET_SHAPE = 'each line must be one JSON object like {"prompt": "12+34=", "target": "46"}';

/** A message of a conversational row (TRL's format): who says it and what. */
export interface DatasetMessage {
  readonly role: string;
  readonly content: string;
}

export interface DatasetExample {
  /** The prompt as text: a conversational prompt's messages, their contents one a line. */
  readonly prompt: string;
  readonly target: string;
  /** A conversational prompt (`prompt` as a list of messages, or `messages` up to its last, the assistant's): a chat model reads it through its template. */
  readonly messages?: readonly DatasetMessage[];
  /** Every field of the line as written (`row.NAME` in reward terms, Python reward functions' keyword arguments). */
  readonly row: Readonly<Record<string, unknown>>;
  /** The line's 1-based number in the file, for errors about this row. */
  readonly line: number;
}

/** What a column's values are in a dataset's first rows (the checker types `row.NAME` by it). */
export type ColumnType = 'string' | 'number' | 'bool' | 'list' | 'object' | 'null' | 'mixed';

/** How many rows the checker reads a dataset's columns from. */
export const COLUMN_ROWS = 100;

/** What is wrong with a dataset: `line` is 1-based, absent for the file as a whole. */
export interface DatasetProblem {
  readonly line?: number;
  readonly message: string;
}

export type DatasetParse =
  | { readonly ok: true; readonly examples: DatasetExample[]; readonly columns: ReadonlyMap<string, ColumnType> }
  | { readonly ok: false; readonly problem: DatasetProblem };

/** A JSON value's kind in words, without its contents. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'string' ? 'a string' : typeof value === 'number' ? 'a number' : typeof value === 'boolean' ? 'true/false' : 'an object';
}

function columnType(value: unknown): ColumnType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  return typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'bool' : 'object';
}

/** The messages of a conversational field, or why they are not (TRL's `[{"role": ..., "content": ...}]`). */
function messagesOf(value: readonly unknown[], field: string): DatasetMessage[] | string {
  const messages: DatasetMessage[] = [];
  for (const [k, message] of value.entries()) {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return `"${field}" item ${k + 1} is ${kindOf(message)}; a conversation is a list of {"role": "user", "content": "..."} messages`;
    const { role, content } = message as Record<string, unknown>;
    if (typeof role !== 'string' || typeof content !== 'string') return `"${field}" item ${k + 1} needs a "role" and a "content" that are strings`;
    messages.push({ role, content });
  }
  if (messages.length === 0) return `"${field}" is an empty list; a conversation needs at least one message`;
  return messages;
}

/** A conversational prompt as text (what a character-level policy reads, what the held-out split hashes): each message's content, one a line. */
export function messagesText(messages: readonly DatasetMessage[]): string {
  return messages.map((m) => m.content).join('\n');
}

/** A row's prompt, target and conversation, or why it has none; TRL's formats besides rlx's own. */
function exampleOf(record: Record<string, unknown>): { prompt: string; target: string; messages?: DatasetMessage[] } | string {
  if (!Object.hasOwn(record, 'prompt') && Array.isArray(record.messages)) {
    // TRL's conversational language modelling: the last message is the assistant's answer.
    const messages = messagesOf(record.messages, 'messages');
    if (typeof messages === 'string') return messages;
    const last = messages[messages.length - 1]!;
    if (last.role !== 'assistant' || messages.length < 2) return '"messages" must end with the assistant\'s answer after at least one other message (the target)';
    const prompt = messages.slice(0, -1);
    return { prompt: messagesText(prompt), target: last.content, messages: prompt };
  }
  if (!Object.hasOwn(record, 'prompt')) return `no "prompt" field`;
  let prompt: string;
  let messages: DatasetMessage[] | undefined;
  if (Array.isArray(record.prompt)) {
    const read = messagesOf(record.prompt, 'prompt');
    if (typeof read === 'string') return read;
    messages = read;
    prompt = messagesText(read);
  } else if (typeof record.prompt === 'string') {
    prompt = record.prompt;
  } else {
    return `"prompt" must be a string, got ${kindOf(record.prompt)}`;
  }
  // TRL's prompt-completion rows name the answer `completion` (text, or the assistant's messages).
  const field = Object.hasOwn(record, 'target') || !Object.hasOwn(record, 'completion') ? 'target' : 'completion';
  const answer = record[field];
  let target: string;
  if (!Object.hasOwn(record, field)) return `no "target" field`;
  if (typeof answer === 'string') target = answer;
  else if (field === 'completion' && Array.isArray(answer)) {
    const read = messagesOf(answer, 'completion');
    if (typeof read === 'string') return read;
    target = messagesText(read);
  } else return `"${field}" must be a string, got ${kindOf(answer)}`;
  return { prompt, target, ...(messages ? { messages } : {}) };
}

/**
 * The examples of a dataset's text, or its first problem. Lines end with \n, \r\n or a lone \r
 * (old Mac files); blank lines are skipped; a byte-order mark may open the file.
 */
export function parseDatasetText(text: string): DatasetParse {
  const examples: DatasetExample[] = [];
  const columns = new Map<string, ColumnType>();
  const lines = text.split(/\r\n|\r|\n/);
  for (let index = 0; index < lines.length; index++) {
    let line = lines[index];
    if (index === 0 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    if (line.trim() === '') continue;
    const at = (message: string): DatasetParse => ({ ok: false, problem: { line: index + 1, message } });
    if (line.charCodeAt(0) === 0xfeff) return at(`starts with a byte-order mark (U+FEFF), as where two files were joined together; remove it`);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      // V8's message quotes the text; only the position is kept.
      const position = /position (\d+)/.exec((err as Error).message)?.[1];
      return at(`not valid JSON${position !== undefined ? ` (at character ${Number(position) + 1})` : ''}; ${DATASET_SHAPE}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return at(`expected an object with "prompt" and "target", got ${kindOf(value)}; ${DATASET_SHAPE}`);
    const record = value as Record<string, unknown>;
    const example = exampleOf(record);
    if (typeof example === 'string') return at(`${example}; ${DATASET_SHAPE}`);
    if (examples.length < COLUMN_ROWS) {
      for (const [name, field] of Object.entries(record)) {
        const type = columnType(field);
        const known = columns.get(name);
        columns.set(name, known === undefined || known === type ? type : 'mixed');
      }
    }
    examples.push({ ...example, row: record, line: index + 1 });
  }
  if (examples.length === 0) return { ok: false, problem: { message: `no examples (the file is empty or blank); ${DATASET_SHAPE}` } };
  return { ok: true, examples, columns };
}

export interface DecodedText {
  readonly text: string;
  /** The 1-based line of the first bytes that are not UTF-8 (each such byte reads as U+FFFD). */
  readonly invalidUtf8Line?: number;
}

const strict = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder('utf-8');

/** A file's bytes as text; where they are not UTF-8, which line that is (a caller says so once). */
export function decodeDataset(bytes: Uint8Array): DecodedText {
  try {
    return { text: strict.decode(bytes) };
  } catch {
    const bad = firstInvalidUtf8(bytes);
    let line = 1;
    for (let i = 0; i < bad; i++) if (bytes[i] === 0x0a || (bytes[i] === 0x0d && bytes[i + 1] !== 0x0a)) line++;
    return { text: lenient.decode(bytes), invalidUtf8Line: line };
  }
}

/** Offset of the first byte that starts no valid UTF-8 sequence (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    const length = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (length === 0) return i;
    // The second byte's range depends on the lead (E0, ED, F0 and F4 narrow it).
    const [low, high] = b === 0xe0 ? [0xa0, 0xbf] : b === 0xed ? [0x80, 0x9f] : b === 0xf0 ? [0x90, 0xbf] : b === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
    if (i + 1 >= bytes.length || bytes[i + 1] < low || bytes[i + 1] > high) return i;
    for (let k = 2; k < length; k++) if (i + k >= bytes.length || (bytes[i + k] & 0xc0) !== 0x80) return i;
    i += length;
  }
  return bytes.length;
}

/**
 * Why a file of examples (a `file` setting of format `examples`: SFT's data, GRPO's sft_data)
 * cannot be trained on with an env other than a TextTask, whose prompt and answer layout its rows
 * take: the checker reports it at the value, the trainer refuses with it (runtime/algorithms/text/demos.ts).
 */
export function examplesNeedTextTask(learner: string, setting: string, file: string): string {
  return `${learner} ${setting} ${JSON.stringify(file)}: a file of {"prompt", "target"} demonstrations needs a TextTask env (its tokens and layout); for this env use ${setting}: demos`;
}

/** The warning for text that was not all UTF-8; `file` as the spec writes it. */
export function invalidUtf8Message(file: string, line: number): string {
  return `${file} line ${line}: bytes that are not UTF-8 text, read as U+FFFD (�); save the file as UTF-8`;
}

/**
 * Whether `file` (as a spec writes it) stays inside `baseDir`, the spec's folder: a spec from
 * elsewhere must not read (and report on) any file its user can read. Decided on the path as
 * written; a symbolic link inside the folder may point out of it (the user made it).
 */
export function datasetInsideFolder(file: string, baseDir: string): boolean {
  const rel = path.relative(path.resolve(baseDir), path.resolve(baseDir, file));
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}
