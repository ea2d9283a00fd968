// A value written as Python writes it on a command line (`--chat-var enable_thinking=False`,
// `tools=[{'type': 'function', ...}]`): the spellings transformers' users bring from
// apply_chat_template's keyword arguments. JSON's are the same but for True/False/None,
// single quotes, tuples and trailing commas, so one small reader takes both.

/** The deepest list or dict nesting read; past it the text is not taken as a literal. */
const MAX_DEPTH = 64;

class NotALiteral extends Error {}

/** The value `text` writes as a Python (or JSON) literal, or undefined where it is none. */
export function pythonLiteral(text: string): unknown {
  const reader = new Reader(text);
  try {
    const value = reader.value(0);
    reader.skip();
    return reader.atEnd() ? value : undefined;
  } catch (err) {
    if (err instanceof NotALiteral) return undefined;
    throw err;
  }
}

const WORDS: Record<string, unknown> = { True: true, False: false, None: null, true: true, false: false, null: null };
const CLOSE: Record<string, string> = { '[': ']', '(': ')', '{': '}' };

class Reader {
  private at = 0;

  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.at === this.text.length;
  }

  skip(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at]!)) this.at++;
  }

  value(depth: number): unknown {
    this.skip();
    const c = this.text[this.at];
    if (c === '"' || c === "'") return this.string(c);
    if (c === '[' || c === '(' || c === '{') {
      if (depth >= MAX_DEPTH) throw new NotALiteral();
      return c === '{' ? this.dict(depth) : this.list(CLOSE[c]!, depth);
    }
    const word = /^(?:[A-Za-z_]\w*|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)/.exec(this.text.slice(this.at))?.[0];
    if (word === undefined) throw new NotALiteral();
    this.at += word.length;
    if (word in WORDS) return WORDS[word];
    const number = Number(word);
    if (!Number.isFinite(number)) throw new NotALiteral();
    return number;
  }

  private items(close: string, item: () => void): void {
    this.at++;
    for (;;) {
      this.skip();
      if (this.text[this.at] === close) break;
      item();
      this.skip();
      if (this.text[this.at] === ',') this.at++;
      else if (this.text[this.at] !== close) throw new NotALiteral();
    }
    this.at++;
  }

  private list(close: string, depth: number): unknown[] {
    const out: unknown[] = [];
    this.items(close, () => out.push(this.value(depth + 1)));
    return out;
  }

  private dict(depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.items('}', () => {
      const key = this.value(depth + 1);
      if (typeof key !== 'string') throw new NotALiteral();
      this.skip();
      if (this.text[this.at] !== ':') throw new NotALiteral();
      this.at++;
      // Defined, not assigned: a key "__proto__" stays a key.
      Object.defineProperty(out, key, { value: this.value(depth + 1), enumerable: true, writable: true, configurable: true });
    });
    return out;
  }

  private string(quote: string): string {
    let out = '';
    for (this.at++; this.at < this.text.length; this.at++) {
      const c = this.text[this.at]!;
      if (c === quote) {
        this.at++;
        return out;
      }
      if (c === '\\') {
        const next = this.text[++this.at];
        out += next === 'n' ? '\n' : next === 't' ? '\t' : next ?? '';
      } else {
        out += c;
      }
    }
    throw new NotALiteral();
  }
}
