// Reading number and string literals (docs/language.md#files-comments-names), shared by the parser and the formatter,
// and writing numbers back the way a user would (messages, fixes, hover, completion).

const COUNT_SUFFIX: Record<string, number> = { k: 1e3, M: 1e6 };

/** `500k` -> 500000, `1.5M` -> 1500000, `3e-4` -> 0.0003. */
export function parseNumber(raw: string): number {
  const last = raw[raw.length - 1];
  const scale = COUNT_SUFFIX[last];
  if (scale !== undefined) return Number(raw.slice(0, -1)) * scale;
  return Number(raw);
}

/** The inverse of parseNumber for people: a number as rlx would write it: `2.5e-4`, `0.99`, `10k`, `1M`. */
export function formatNumber(value: number): string {
  const size = Math.abs(value);
  if (Number.isInteger(value) && size >= 1e3) {
    if (size >= 1e9) return value.toExponential().replace('e+', 'e');
    if (value % 1e6 === 0) return `${value / 1e6}M`;
    if (value % 1e3 === 0) return `${value / 1e3}k`;
    return String(value);
  }
  if (value !== 0 && size < 1e-3) return value.toExponential();
  return String(value);
}

/** Strips the quotes and resolves `\"`, `\\` and `\n`; other escapes keep the character after the backslash. */
export function unescapeString(raw: string): string {
  return raw.slice(1, -1).replace(/\\(.)/g, (_, ch: string) => (ch === 'n' ? '\n' : ch));
}
