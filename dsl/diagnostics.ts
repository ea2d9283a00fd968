// Diagnostics: what the checker reports, with a stable code, an exact range and, where it
// helps, a fix (text edits) that an editor can offer as a quick fix.
import type { Range } from './syntax/ast.js';

export type Severity = 'error' | 'warning' | 'info';

/** Every code the front end can report; tests and docs list them from here. */
export const DIAGNOSTIC_CODES = {
  'syntax-error': 'The text does not follow the grammar.',
  'invalid-character': 'A character or number that cannot start any token.',
  'unknown-name': 'A name that no declaration or built-in has.',
  'wrong-kind': 'A name of another kind than the place needs (`policy: Pole`).',
  'duplicate-name': 'Two declarations with the same name in one scope, or a declaration named like a built-in (`PPO`, `abs`, `linear`).',
  'unknown-property': 'A property the declaration\'s base does not have.',
  'duplicate-property': 'The same property stated twice in one body.',
  'missing-property': 'A required property is not given (nor inherited).',
  'type-mismatch': 'A value of the wrong type.',
  'out-of-range': 'A number outside the valid range.',
  'suspicious-value': 'A valid but unusual value.',
  'invalid-base': 'A base that is not a built-in or declaration of the same kind.',
  'inheritance-cycle': 'Declarations that inherit from each other in a loop.',
  'import-cycle': 'Files that import each other in a loop.',
  'import-not-found': 'An import whose file cannot be read.',
  'module-not-found': 'A user env module (`module("./env.ts")`) or Python env file (`python("./env.py:Env")`) whose file cannot be read.',
  'dataset-not-found': 'A text task\'s dataset (`dataset("./data.jsonl")`) whose file cannot be read, or that lies outside the folder of the .rlx file.',
  'invalid-dataset': 'A dataset with a line that is not a prompt/target object, or over the size rlx reads (errors); bytes that are not UTF-8 (a warning).',
  'invalid-module-spec': 'A user env module whose `export const spec` rlx cannot read or that is not valid.',
  'undeclared-module-spec': 'A user env module that does not declare its names (`export const spec`), so reward terms are checked only when training starts.',
  'python-env-probe-failed': 'A gymnasium(...) env that `rlx check` or the editor (in a trusted workspace) could not make when it probed it, with Python\'s last line (a warning: `rlx train` would fail the same way); an error where the env was made and its spaces are ones rlx refuses (a Box of no numbers, or too many).',
  'image-observations': 'A Python env whose probe found image observations (a uint8 Box of 2 or 3 dimensions): an mlp policy takes the pixels flattened and unscaled; a cnn policy reads a whole observation of 3 dimensions as an image.',
  'model-not-found': 'A pretrained model folder (`pretrained("./models/x")`) that does not exist.',
  'invalid-model': 'A pretrained model folder whose config.json rlx cannot build from, or that lacks tokenizer.json or the weights.',
  'exceeds-memory': 'A run whose estimated memory (weights, gradients, optimiser state, KV cache, activations) passes the memory free on this machine.',
  'incompatible-env': 'An algorithm that cannot train on the environment (DQN on continuous actions).',
  'incompatible-policy': 'A policy the algorithm cannot train (a recurrent core, `core: gru(64)`, under DQN or SAC).',
  'incompatible-stages': 'Consecutive stages whose networks cannot pass from one to the next (PPO, then DQN).',
  'unknown-field': 'An expression name or field the paired environment does not have.',
  'unknown-function': 'A call of a function that does not exist.',
  'wrong-arguments': 'A call with the wrong number or names of arguments.',
  'invalid-regex': 'A regular expression that JavaScript cannot compile.',
  'conflicting-properties': 'Two properties that cannot be given together.',
  'not-implemented': 'A built-in or feature the language declares but the trainer does not run yet (a warning: `rlx train` would refuse it).',
  'internal-error': 'A bug in a check; please report it.',
} as const;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

export interface TextEdit {
  range: Range;
  newText: string;
}

export interface Fix {
  title: string;
  /** Edits within the diagnostic's own file. */
  edits: TextEdit[];
}

export interface RelatedInformation {
  file: string;
  range: Range;
  message: string;
}

export interface Diagnostic {
  file: string;
  range: Range;
  severity: Severity;
  code: DiagnosticCode;
  message: string;
  fixes?: Fix[];
  related?: RelatedInformation[];
}

/** Up to three names close to `name` (edit distance), best first: for "did you mean". */
export function closestNames(name: string, candidates: Iterable<string>, max = 3): string[] {
  const lower = name.toLowerCase();
  const scored: { candidate: string; distance: number }[] = [];
  for (const candidate of candidates) {
    const other = candidate.toLowerCase();
    const limit = acceptedDistance(name.length, candidate.length);
    // A name this one begins is kept at its distance, the letters it lacks (lower.length >= 3).
    if (lower.length >= 3 && other.startsWith(lower)) {
      scored.push({ candidate, distance: other.length - lower.length });
      continue;
    }
    const { distance } = boundedEditDistance(lower, other, limit);
    if (distance <= limit) scored.push({ candidate, distance });
  }
  scored.sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate));
  // Only the best matches: a clear typo fix should not come with distant alternatives.
  const best = scored[0]?.distance;
  return [...new Set(scored.filter((s) => s.distance === best).map((s) => s.candidate))].slice(0, max);
}

/** The largest edit distance at which a candidate still counts as close: a third of the longer name. */
export function acceptedDistance(nameLength: number, candidateLength: number): number {
  return Math.max(1, Math.floor(Math.max(nameLength, candidateLength) / 3));
}

/** Damerau-Levenshtein distance (optimal string alignment): a swap of two letters costs 1. */
export function editDistance(a: string, b: string): number {
  return boundedEditDistance(a, b, Infinity).distance;
}

/**
 * editDistance(a, b) when it is at most `cutoff`; otherwise some number above `cutoff`, found
 * as soon as a whole row of the table exceeds it (or the lengths alone differ by more). `cells`:
 * how many table cells it filled, the work a caller may budget (name-index.ts).
 */
export function boundedEditDistance(a: string, b: string, cutoff: number): { distance: number; cells: number } {
  if (Math.abs(a.length - b.length) > cutoff) return { distance: cutoff + 1, cells: 0 };
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array(rows * cols);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  let cells = 0;
  for (let i = 1; i < rows; i++) {
    let rowMin = d[i * cols];
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[(i - 1) * cols + j] + 1, d[i * cols + j - 1] + 1, d[(i - 1) * cols + j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[(i - 2) * cols + j - 2] + 1);
      d[i * cols + j] = best;
      if (best < rowMin) rowMin = best;
    }
    cells += cols - 1;
    // A swap reaches back two rows: stop only when this row and the one before both exceed the cutoff.
    if (rowMin > cutoff && (i === 1 || rowMinOf(d, i - 1, cols) > cutoff)) return { distance: cutoff + 1, cells };
  }
  return { distance: d[rows * cols - 1], cells };
}

function rowMinOf(d: number[], i: number, cols: number): number {
  let min = Infinity;
  for (let j = 0; j < cols; j++) min = Math.min(min, d[i * cols + j]);
  return min;
}

export function didYouMean(name: string, candidates: Iterable<string>): string {
  const close = closestNames(name, candidates);
  if (close.length === 0) return '';
  return close.length === 1 ? `; did you mean '${close[0]}'?` : `; did you mean ${close.map((c) => `'${c}'`).join(', ')}?`;
}

/** Ends a message with the hint and the valid names: "...; did you mean 'x'? Valid properties: a, b". */
export function validList(hint: string, what: string, valid: string[]): string {
  if (valid.length === 0) return hint;
  return `${hint}${hint ? ' ' : '. '}Valid ${what}: ${valid.join(', ')}`;
}
