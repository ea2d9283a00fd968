// The text verifiers of reward terms (dsl/schema/expressions.ts declares them; their docs
// there are the contract): each reads the completion (or the prompt or target) and gives a
// number, 1/0 for the checks. Pure functions; text-level decisions are made once, here:
//
// - "characters" are Unicode code points: `length("😀")` is 1, the tokenizer's unit and the
//   unit of `max_tokens`, so `length(completion) <= max_tokens` always holds. A combining mark
//   is a character of its own (`length("e\u0301")` is 2), and no normalisation is applied:
//   "é" precomposed and "e" + U+0301 are different texts, as they are different token strings.
// - "whitespace" is what String.prototype.trim removes (Unicode White_Space and line breaks).
import { LinearRegex } from './regex.js';

export { LinearRegex, PatternError } from './regex.js';

/** 1 when the two strings are equal after trimming whitespace, else 0. */
export function exact(a: string, b: string): number {
  return a.trim() === b.trim() ? 1 : 0;
}

// Decimal numbers as people and models write them: optional sign, digits with an optional
// fraction, optional exponent. Not hex, Infinity, digit separators, or the empty string
// (all of which Number() would accept or turn into 0).
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The number a text states (surrounding whitespace allowed), or null when it states none. */
export function parseNumber(text: string): number | null {
  const trimmed = text.trim();
  if (!DECIMAL.test(trimmed)) return null;
  const value = Number(trimmed);
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

/** Number of characters (code points) in `s`. */
export function length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) {
    const unit = s.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < s.length) {
      const low = s.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) i++;
    }
  }
  return n;
}

/**
 * 1 when `s` matches the pattern, else 0. The pattern is compiled once, beforehand
 * (`LinearRegex.compile`, which refuses what cannot be matched in linear time), so a
 * verifier's cost is bounded by pattern size x text length whatever the pattern.
 */
export function regex(s: string, pattern: LinearRegex): number {
  return pattern.test(s) ? 1 : 0;
}
