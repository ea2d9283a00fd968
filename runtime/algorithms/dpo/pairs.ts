// Preference pairs from DPO's `data` file, in TRL's formats (its "preference" dataset type):
//   {"prompt": "12+34=", "chosen": "46", "rejected": "47"}                   standard, explicit prompt
//   {"prompt": [{"role": "user", ...}], "chosen": [{"role": "assistant", ...}], "rejected": [...]}
//                                                                           conversational
//   {"chosen": "...", "rejected": "..."} or message lists written out whole  implicit prompt: the
//     common start of the two is the prompt (TRL's extract_prompt, strings and lists alike)
// A conversational answer is one assistant message. Each pair becomes two examples of the env's
// (../../text/task.ts TextExample): the prompt with the chosen answer as its target, then with
// the rejected one, so the env writes their rows as it writes demonstrations (its chat template,
// or the character layout). Whatever a line gets wrong is an InputError naming the file and line.
import { messagesText, type DatasetMessage } from '../../../dsl/schema/dataset.js';
import { InputError } from '../../../shared/input-error.js';
import type { TextExample } from '../../text/task.js';

export class PreferencePairsError extends InputError {
  override name = 'PreferencePairsError';
}

export interface PreferencePair {
  readonly chosen: TextExample;
  readonly rejected: TextExample;
  /** The pair's 1-based line in the file. */
  readonly line: number;
}

const SHAPE = 'each line must be one JSON object like {"prompt": "12+34=", "chosen": "46", "rejected": "47"} (or TRL\'s conversational form)';

type Side = string | DatasetMessage[];

type Problem = { readonly problem: string };
const isProblem = (x: unknown): x is Problem => typeof x === 'object' && x !== null && 'problem' in x;

/** A field as a string or a list of messages, or why it is neither. */
function sideOf(value: unknown, field: string): Side | Problem {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return { problem: `"${field}" must be a string or a list of {"role", "content"} messages, got ${value === null ? 'null' : typeof value}` };
  const messages: DatasetMessage[] = [];
  for (const [k, m] of value.entries()) {
    const { role, content } = (typeof m === 'object' && m !== null ? m : {}) as Record<string, unknown>;
    if (typeof role !== 'string' || typeof content !== 'string') return { problem: `"${field}" item ${k + 1} needs a "role" and a "content" that are strings` };
    messages.push({ role, content });
  }
  if (messages.length === 0) return { problem: `"${field}" is an empty list` };
  return messages;
}

/** TRL's extract_prompt: the common start of chosen and rejected (a space before where they part stays with the answers). */
function splitImplicit(chosen: Side, rejected: Side): { prompt: Side; chosen: Side; rejected: Side } | string {
  if (typeof chosen !== typeof rejected) return '"chosen" and "rejected" must both be strings or both message lists';
  const same = (a: string | DatasetMessage, b: string | DatasetMessage) => (typeof a === 'string' ? a === b : typeof b !== 'string' && a.role === b.role && a.content === b.content);
  let idx = 0;
  const length = Math.min(chosen.length, rejected.length);
  while (idx < length && same(chosen[idx]!, rejected[idx]!)) idx++;
  if (typeof chosen === 'string' && idx > 0 && idx < length && chosen[idx - 1] === ' ') idx--;
  if (idx === 0) return 'no "prompt", and "chosen" and "rejected" have no common start to take as one';
  if (idx === chosen.length || idx === rejected.length) return 'no "prompt", and one of "chosen" and "rejected" is the start of the other: nothing is left as its answer';
  return { prompt: chosen.slice(0, idx) as Side, chosen: chosen.slice(idx) as Side, rejected: rejected.slice(idx) as Side };
}

/** An answer's text: a string, or one assistant message. */
function answerOf(side: Side, field: string): string | Problem {
  if (typeof side === 'string') return side;
  if (side.length !== 1 || side[0]!.role !== 'assistant') return { problem: `"${field}" must be one assistant message (the answer), got ${side.length} message(s)${side.length === 1 ? ` of role "${side[0]!.role}"` : ''}` };
  return side[0]!.content;
}

/** The pair of a parsed line, or what is wrong with it. */
function pairOf(record: Record<string, unknown>): { prompt: Side; chosen: string; rejected: string } | string {
  for (const field of ['chosen', 'rejected']) if (!Object.hasOwn(record, field)) return `no "${field}" field`;
  const chosen = sideOf(record.chosen, 'chosen');
  if (isProblem(chosen)) return chosen.problem;
  const rejected = sideOf(record.rejected, 'rejected');
  if (isProblem(rejected)) return rejected.problem;
  let sides: { prompt: Side; chosen: Side; rejected: Side };
  if (Object.hasOwn(record, 'prompt')) {
    const prompt = sideOf(record.prompt, 'prompt');
    if (isProblem(prompt)) return prompt.problem;
    sides = { prompt, chosen, rejected };
  } else {
    const split = splitImplicit(chosen, rejected);
    if (typeof split === 'string') return split;
    sides = split;
  }
  const c = answerOf(sides.chosen, 'chosen');
  if (isProblem(c)) return c.problem;
  const r = answerOf(sides.rejected, 'rejected');
  if (isProblem(r)) return r.problem;
  return { prompt: sides.prompt, chosen: c, rejected: r };
}

/** Every pair of the file's text; `file` names it in errors. */
export function parsePairs(text: string, file: string): PreferencePair[] {
  const pairs: PreferencePair[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  lines.forEach((raw, index) => {
    if (raw.trim() === '') return;
    const line = index + 1;
    let record: unknown;
    try {
      record = JSON.parse(raw);
    } catch {
      throw new PreferencePairsError(`${file} line ${line}: not JSON; ${SHAPE}`);
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new PreferencePairsError(`${file} line ${line}: ${SHAPE}`);
    const pair = pairOf(record as Record<string, unknown>);
    if (typeof pair === 'string') throw new PreferencePairsError(`${file} line ${line}: ${pair}; ${SHAPE}`);
    const row = record as Record<string, unknown>;
    // A conversational prompt reaches a chat model as messages; its text is what the held-out split reads.
    const prompt = typeof pair.prompt === 'string' ? { prompt: pair.prompt } : { prompt: messagesText(pair.prompt), messages: pair.prompt };
    pairs.push({ chosen: { ...prompt, target: pair.chosen, row, line }, rejected: { ...prompt, target: pair.rejected, row, line }, line });
  });
  if (pairs.length === 0) throw new PreferencePairsError(`${file}: no preference pairs in it; ${SHAPE}`);
  return pairs;
}
