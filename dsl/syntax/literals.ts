// Reading number and string literals (docs/language.md#files-comments-names), shared by the parser and the formatter.

const COUNT_SUFFIX: Record<string, number> = { k: 1e3, M: 1e6 };

/** `500k` -> 500000, `1.5M` -> 1500000, `3e-4` -> 0.0003. */
export function parseNumber(raw: string): number {
  const last = raw[raw.length - 1];
  const scale = COUNT_SUFFIX[last];
  if (scale !== undefined) return Number(raw.slice(0, -1)) * scale;
  return Number(raw);
}

/** Strips the quotes and resolves `\"`, `\\` and `\n`; other escapes keep the character after the backslash. */
export function unescapeString(raw: string): string {
  return raw.slice(1, -1).replace(/\\(.)/g, (_, ch: string) => (ch === 'n' ? '\n' : ch));
}
