// The text verifiers of reward terms (dsl/schema/expressions.ts declares them; their docs
// there are the contract): each reads the completion (or the prompt or target) and gives a
// number, 1/0 for the checks. Pure functions; text-level decisions are made once, here:
//
// - "characters" are Unicode code points: `length("😀")` is 1, the tokenizer's unit and the
//   unit of `max_tokens`, so `length(completion) <= max_tokens` always holds. A combining mark
//   is a character of its own (`length("e\u0301")` is 2), and no normalisation is applied:
//   "é" precomposed and "e" + U+0301 are different texts, as they are different token strings.
// - "whitespace" is what String.prototype.trim removes (Unicode White_Space and line breaks).
import { codePointLength } from '../../shared/code-points.js';
import { LinearRegex } from '../../shared/regex.js';

export { LinearRegex, PatternError } from '../../shared/regex.js';

/** 1 when the two strings are equal after trimming whitespace, else 0. */
export function exact(a: string, b: string): number {
  return a.trim() === b.trim() ? 1 : 0;
}

// Decimal numbers as people and models write them: optional sign, an optional "$", digits
// (thousands separated by commas in groups of three: "1,234,567"), an optional fraction, an
// optional exponent. Not hex, Infinity, other separators ("1_000", "1 000", "12,34"), units
// ("12%", "12 apples") or the empty string (all of which Number() would accept, misread or
// turn into 0). A comma is read as a thousands separator only in groups of exactly three
// digits, so "1,234" is 1234 (as in GSM8K's answers) and "1,23" is not a number.
const DECIMAL = /^[+-]?\$?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The number a text states (surrounding whitespace allowed), or null when it states none. */
export function parseNumber(text: string): number | null {
  const trimmed = text.trim();
  if (!DECIMAL.test(trimmed)) return null;
  const value = Number(trimmed.replace(/[$,]/g, ''));
  return Number.isFinite(value) ? value : null;
}

/** 1 when both strings parse as numbers within `tol` (absolute) of each other, else 0. */
export function numeric(a: string, b: string, tol: number): number {
  const x = parseNumber(a);
  const y = parseNumber(b);
  return x !== null && y !== null && Math.abs(x - y) <= tol ? 1 : 0;
}

/** 1 when `s` contains `text`, else 0 (every string contains the empty text). */
export function contains(s: string, text: string): number {
  return s.includes(text) ? 1 : 0;
}

/** Number of characters (code points) in `s`: the `length()` verifier. */
export const length = codePointLength;

/**
 * 1 when `s` matches the pattern, else 0. The pattern is compiled once, beforehand
 * (`LinearRegex.compile`, which refuses what cannot be matched in linear time), so a
 * verifier's cost is bounded by pattern size x text length whatever the pattern.
 */
export function regex(s: string, pattern: LinearRegex): number {
  return pattern.test(s) ? 1 : 0;
}

// The extractors: each reads the answer out of a longer text (a worked solution) and gives it
// as text, for a verifier to compare: `numeric(last_number(completion), target)`. Each gives ""
// when the text has no answer of its kind, which no verifier mistakes for one ("" is not a
// number; `exact("", target)` holds only for an empty target). Each runs in time linear in the
// text: a completion of any length costs one pass or two.

const isDigit = (unit: number) => unit >= 0x30 && unit <= 0x39;
// What makes a "-" before digits a hyphen or a subtraction rather than a sign: "5-3", "x-2", "(a)-1".
const JOINS_MINUS = /[\p{L}\p{N}_)\]}]/u;

/**
 * The last number the text states, written plainly: a "-" sign when it has one, its digits
 * without thousands separators, its fraction as written ("The total is $1,234.50." gives
 * "1234.50"); "" when the text states none. GSM8K-style: the final number of a worked solution.
 * A "-" counts as the sign unless it joins two words or numbers ("5-3" gives "3"); a period not
 * followed by a digit ends the sentence, not the number; "," separates thousands only in
 * groups of three ("1,234"; "1,2" is two numbers); an exponent is kept ("1.5e-3").
 */
export function lastNumber(s: string): string {
  let last = '';
  let i = 0;
  while (i < s.length) {
    const leadingDot = s.charCodeAt(i) === 0x2e && isDigit(s.charCodeAt(i + 1)) && !isDigit(s.charCodeAt(i - 1));
    if (!isDigit(s.charCodeAt(i)) && !leadingDot) {
      i++;
      continue;
    }
    const start = i;
    while (isDigit(s.charCodeAt(i))) i++;
    let digits = s.slice(start, i) || '0';
    // Thousands groups: "," then exactly three digits, after a first group of one to three.
    if (i - start >= 1 && i - start <= 3) {
      while (s.charCodeAt(i) === 0x2c && isDigit(s.charCodeAt(i + 1)) && isDigit(s.charCodeAt(i + 2)) && isDigit(s.charCodeAt(i + 3)) && !isDigit(s.charCodeAt(i + 4))) {
        digits += s.slice(i + 1, i + 4);
        i += 4;
      }
    }
    let fraction = '';
    if (s.charCodeAt(i) === 0x2e && isDigit(s.charCodeAt(i + 1))) {
      const dot = i++;
      while (isDigit(s.charCodeAt(i))) i++;
      fraction = s.slice(dot, i);
    }
    let exponent = '';
    const sign = s[i + 1] === '-' || s[i + 1] === '+' ? 1 : 0;
    if ((s[i] === 'e' || s[i] === 'E') && isDigit(s.charCodeAt(i + 1 + sign))) {
      const e = i;
      i += 1 + sign;
      while (isDigit(s.charCodeAt(i))) i++;
      exponent = s.slice(e, i);
    }
    last = (isNegative(s, start) ? '-' : '') + digits + fraction + exponent;
  }
  return last;
}

/** Whether the number starting at `start` has a minus sign ("-5", "-$5", "= -5", "\u22125"). */
function isNegative(s: string, start: number): boolean {
  let p = start - 1;
  if (s[p] === '$') p--;
  if (s[p] !== '-' && s[p] !== '\u2212') return false;
  return p === 0 || !JOINS_MINUS.test(s[p - 1]);
}

const BOX_COMMANDS = ['\\boxed', '\\fbox'];

/**
 * The content of the last `\boxed{...}` (or `\fbox{...}`) of the text, trimmed, read to its
 * balanced closing brace: `\boxed{\frac{1}{2}}` gives "\frac{1}{2}", and escaped braces
 * (`\{`, `\}`) are not counted. "" when there is none, or when the last one is not closed
 * (a completion cut off inside its answer earns nothing from an earlier box).
 */
export function boxed(s: string): string {
  // Backwards from the end, one backslash at a time: the last command that opens a brace.
  for (let i = s.lastIndexOf('\\'); i >= 0; i = i === 0 ? -1 : s.lastIndexOf('\\', i - 1)) {
    const command = BOX_COMMANDS.find((c) => s.startsWith(c, i));
    if (command === undefined) continue;
    let open = i + command.length;
    if (/[A-Za-z]/.test(s.charAt(open))) continue; // \boxedx is another command
    while (s[open] === ' ') open++;
    if (s[open] !== '{') continue;
    return closedContent(s, open)?.trim() ?? '';
  }
  return '';
}

/** The text between the brace at `open` and its balanced closing brace, or undefined when it has none. */
function closedContent(s: string, open: number): string | undefined {
  let depth = 0;
  for (let k = open; k < s.length; k++) {
    const ch = s[k];
    if (ch === '\\') k++; // an escaped character, brace or not, is content
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return s.slice(open + 1, k);
  }
  return undefined;
}

/**
 * The content of the last complete `<tag>…</tag>` of the text, trimmed: `tagged(s, "answer")`
 * reads `<answer> 42 </answer>` as "42". "" when there is none; an opening tag never closed (a
 * completion cut off) does not count. Tags are matched exactly: case-sensitive, no attributes.
 */
export function tagged(s: string, tag: string): string {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  const lastClose = s.lastIndexOf(close);
  if (lastClose < open.length) return '';
  const start = s.lastIndexOf(open, lastClose - open.length);
  if (start < 0) return '';
  // The first close after that opening: "<a><a>x</a></a>" gives "x".
  const end = s.indexOf(close, start + open.length);
  return s.slice(start + open.length, end).trim();
}
