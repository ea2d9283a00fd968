// The `regex(s, "pattern")` verifier's matcher: JavaScript pattern syntax, matched in time
// linear in the text, whatever the pattern.
//
// Why not `new RegExp(pattern).test(s)`: V8's engine backtracks, so a pattern such as
// `(a+)+$` takes exponential time on "aaaa...b", and JavaScript cannot stop a running regex
// (no timeout; a worker or vm timeout would make a reward depend on the machine's speed). A
// reward is evaluated on every completion a policy writes, from a plan that may come from
// anywhere, so its cost must be bounded by construction. This is the RE2 / Thompson approach:
// the pattern is compiled once into an NFA of at most MAX_INSTRUCTIONS instructions and run
// over the text as a set of simultaneous threads (a Pike VM without captures): cost at most
// O(instructions x characters), never exponential.
//
// Semantics are those of `new RegExp(pattern, 'u').test(s)`: characters are code points (so
// `.` matches one emoji), `^`/`$` are the ends of the text, `\b` uses ASCII word characters.
// Every single-character atom (`.`, `[...]`, `\d`, `\p{L}`, `\u{1F600}`, ...) is tested by a
// native RegExp on one character, which cannot backtrack, so classes and escapes mean exactly
// what they mean in JavaScript. Backreferences and lookaround have no linear-time matcher;
// patterns using them are refused when the reward is compiled, with a message saying so.

import { InputError } from './input-error.js';

/** Most NFA instructions a pattern may compile to (counted repetition copies its body). */
export const MAX_INSTRUCTIONS = 4096;

/** A pattern the verifier cannot use; the message says why and what to write instead. */
export class PatternError extends InputError {
  override name = 'PatternError';
}

type CharTest = (cp: number) => boolean;
type Assertion = '^' | '$' | 'b' | 'B';

type Node =
  | { readonly t: 'char'; readonly test: CharTest }
  | { readonly t: 'assert'; readonly kind: Assertion }
  | { readonly t: 'seq'; readonly items: readonly Node[] }
  | { readonly t: 'alt'; readonly options: readonly Node[] }
  | { readonly t: 'repeat'; readonly body: Node; readonly min: number; readonly max: number };

type Instruction =
  | { op: 'char'; test: CharTest; next: number }
  | { op: 'split'; a: number; b: number }
  | { op: 'jmp'; to: number }
  | { op: 'assert'; kind: Assertion; next: number }
  | { op: 'match' };

/** A compiled pattern; `test(s)` costs O(size x s.length). */
export class LinearRegex {
  private readonly marks: Int32Array;
  private generation = 0;

  private constructor(
    readonly source: string,
    private readonly program: readonly Instruction[],
  ) {
    this.marks = new Int32Array(program.length);
  }

  /** Compiles `pattern` (JavaScript syntax, as with the `u` flag); throws PatternError. */
  static compile(pattern: string): LinearRegex {
    try {
      new RegExp(pattern, 'u'); // JavaScript's own syntax check; compiling never backtracks
    } catch (err) {
      throw new PatternError(`invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message.replace(/^Invalid regular expression: \/.*\/u?: /, '')}`);
    }
    const ast = new Parser(pattern).parse();
    return new LinearRegex(pattern, new Emitter(pattern).program(ast));
  }

  /** Number of NFA instructions: the per-character cost bound. */
  get size(): number {
    return this.program.length;
  }

  /** Whether the pattern matches anywhere in `text` (RegExp.prototype.test). */
  test(text: string): boolean {
    let waiting: number[] = [];
    let prev = -1;
    for (let i = 0; ; ) {
      const next = i < text.length ? text.codePointAt(i)! : -1;
      // The threads waiting here, plus one starting here (0: an unanchored search).
      waiting.push(0);
      const reading: number[] = [];
      if (this.closure(waiting, prev, next, reading)) return true;
      if (next < 0) return false;
      waiting = [];
      for (const pc of reading) {
        const ins = this.program[pc] as Extract<Instruction, { op: 'char' }>;
        if (ins.test(next)) waiting.push(ins.next);
      }
      prev = next;
      i += next > 0xffff ? 2 : 1;
    }
  }

  /** Follows jumps, splits and assertions from `starts` (each instruction once); collects char steps into `out`; true on a match. */
  private closure(starts: readonly number[], prev: number, next: number, out: number[]): boolean {
    const generation = ++this.generation;
    const stack = starts.slice();
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (this.marks[pc] === generation) continue;
      this.marks[pc] = generation;
      const ins = this.program[pc];
      switch (ins.op) {
        case 'match':
          return true;
        case 'char':
          out.push(pc);
          break;
        case 'jmp':
          stack.push(ins.to);
          break;
        case 'split':
          stack.push(ins.b, ins.a);
          break;
        case 'assert':
          if (holds(ins.kind, prev, next)) stack.push(ins.next);
          break;
      }
    }
    return false;
  }
}

const isWordChar = (cp: number) => (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122) || cp === 95;

function holds(kind: Assertion, prev: number, next: number): boolean {
  switch (kind) {
    case '^':
      return prev < 0;
    case '$':
      return next < 0;
    case 'b':
      return isWordChar(prev) !== isWordChar(next);
    case 'B':
      return isWordChar(prev) === isWordChar(next);
  }
}

/** A single-character atom, tested by JavaScript's own engine on one character (no backtracking possible). */
function nativeCharTest(atom: string): CharTest {
  const re = new RegExp(`^(?:${atom})$`, 'u');
  const cache = new Map<number, boolean>(); // bounded: a text may hold many distinct characters
  return (cp) => {
    const hit = cache.get(cp);
    if (hit !== undefined) return hit;
    const result = re.test(String.fromCodePoint(cp));
    if (cache.size < 1024) cache.set(cp, result);
    return result;
  };
}

/**
 * A recursive-descent parser for patterns JavaScript has already accepted (so it only has to
 * find where each atom ends, and refuse what a linear matcher cannot do).
 */
class Parser {
  private i = 0;

  constructor(private readonly p: string) {}

  parse(): Node {
    const node = this.alternation();
    // Unreachable for a pattern RegExp accepted: a stray `)` is a syntax error there.
    if (this.i < this.p.length) throw new PatternError(`regular expression ${JSON.stringify(this.p)}: unexpected "${this.p[this.i]}" at ${this.i}`);
    return node;
  }

  private refuse(what: string): never {
    throw new PatternError(
      `regular expression ${JSON.stringify(this.p)}: ${what} (at character ${this.i + 1}) cannot be matched in linear time, so verifiers do not allow it; rewrite the pattern without it`,
    );
  }

  private alternation(): Node {
    const options = [this.sequence()];
    while (this.p[this.i] === '|') {
      this.i++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0] : { t: 'alt', options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') items.push(this.quantified(this.atom()));
    return items.length === 1 ? items[0] : { t: 'seq', items };
  }

  private quantified(body: Node): Node {
    const rest = this.p.slice(this.i);
    const m = /^(?:([*+?])|\{(\d+)(?:(,)(\d*))?\})/.exec(rest);
    if (!m) return body;
    this.i += m[0].length;
    if (this.p[this.i] === '?') this.i++; // lazy: the same set of matches for test()
    let min: number;
    let max: number;
    if (m[1]) [min, max] = m[1] === '*' ? [0, Infinity] : m[1] === '+' ? [1, Infinity] : [0, 1];
    else {
      min = Number(m[2]);
      max = m[3] ? (m[4] ? Number(m[4]) : Infinity) : min;
    }
    if (min > MAX_INSTRUCTIONS || (max !== Infinity && max > MAX_INSTRUCTIONS)) {
      throw new PatternError(`regular expression ${JSON.stringify(this.p)}: repetition ${m[0]} is too large (at most ${MAX_INSTRUCTIONS})`);
    }
    return { t: 'repeat', body, min, max };
  }

  private atom(): Node {
    const p = this.p;
    const c = p[this.i];
    switch (c) {
      case '(':
        return this.group();
      case '^':
      case '$':
        this.i++;
        return { t: 'assert', kind: c };
      case '.':
        this.i++;
        return { t: 'char', test: nativeCharTest('.') };
      case '[':
        return this.charClass();
      case '\\':
        return this.escape();
    }
    const cp = p.codePointAt(this.i)!;
    this.i += cp > 0xffff ? 2 : 1;
    return { t: 'char', test: (x) => x === cp };
  }

  private group(): Node {
    const p = this.p;
    if (p.startsWith('(?=', this.i) || p.startsWith('(?!', this.i)) this.refuse('lookahead');
    if (p.startsWith('(?<=', this.i) || p.startsWith('(?<!', this.i)) this.refuse('lookbehind');
    if (p.startsWith('(?:', this.i)) this.i += 3;
    else if (p.startsWith('(?<', this.i)) this.i = p.indexOf('>', this.i) + 1; // a named group groups
    else this.i += 1;
    const inner = this.alternation();
    this.i++; // ')'
    return inner;
  }

  private charClass(): Node {
    const start = this.i;
    let j = this.i + 1;
    while (this.p[j] !== ']') j += this.p[j] === '\\' ? 2 : 1;
    this.i = j + 1;
    return { t: 'char', test: nativeCharTest(this.p.slice(start, this.i)) };
  }

  private escape(): Node {
    const p = this.p;
    const start = this.i;
    const c = p[this.i + 1];
    if (c === 'b' || c === 'B') {
      this.i += 2;
      return { t: 'assert', kind: c };
    }
    if (/[1-9]/.test(c)) this.refuse(`the backreference \\${c}`);
    if (c === 'k') this.refuse('a named backreference (\\k<...>)');
    let end = this.i + 2;
    if (c === 'p' || c === 'P') end = p.indexOf('}', this.i) + 1;
    else if (c === 'x') end += 2;
    else if (c === 'c') end += 1;
    else if (c === 'u') end = p[end] === '{' ? p.indexOf('}', end) + 1 : surrogatePairEnd(p, end + 4);
    this.i = end;
    return { t: 'char', test: nativeCharTest(p.slice(start, end)) };
  }
}

/** With `u`, `\uD83D\uDE00` is one character (a surrogate pair written as two escapes): where the pair's escape ends. */
function surrogatePairEnd(p: string, end: number): number {
  const high = parseInt(p.slice(end - 4, end), 16);
  const low = /^\\u([0-9a-fA-F]{4})/.exec(p.slice(end));
  const isPair = high >= 0xd800 && high <= 0xdbff && low !== null && parseInt(low[1], 16) >= 0xdc00 && parseInt(low[1], 16) <= 0xdfff;
  return isPair ? end + 6 : end;
}

/** Thompson's construction: the AST as instructions for the simulation in LinearRegex.test. */
class Emitter {
  private readonly code: Instruction[] = [];

  constructor(private readonly pattern: string) {}

  program(ast: Node): Instruction[] {
    this.emit(ast);
    this.push({ op: 'match' });
    return this.code;
  }

  private push(ins: Instruction): number {
    if (this.code.length >= MAX_INSTRUCTIONS) {
      throw new PatternError(`regular expression ${JSON.stringify(this.pattern)} is too large for a verifier (over ${MAX_INSTRUCTIONS} steps once repetitions are expanded); use smaller counts in {n,m}`);
    }
    this.code.push(ins);
    return this.code.length - 1;
  }

  private emit(node: Node): void {
    const code = this.code;
    switch (node.t) {
      case 'char':
        this.push({ op: 'char', test: node.test, next: code.length + 1 });
        return;
      case 'assert':
        this.push({ op: 'assert', kind: node.kind, next: code.length + 1 });
        return;
      case 'seq':
        for (const item of node.items) this.emit(item);
        return;
      case 'alt': {
        // split L1, next; L1: option; jmp end; next: split ... ; the last option falls through.
        const jumps: Extract<Instruction, { op: 'jmp' }>[] = [];
        node.options.forEach((option, k) => {
          if (k === node.options.length - 1) return this.emit(option);
          const split = { op: 'split', a: 0, b: 0 } as Extract<Instruction, { op: 'split' }>;
          split.a = this.push(split) + 1;
          this.emit(option);
          const jump = { op: 'jmp', to: 0 } as Extract<Instruction, { op: 'jmp' }>;
          this.push(jump);
          jumps.push(jump);
          split.b = code.length;
        });
        for (const jump of jumps) jump.to = code.length;
        return;
      }
      case 'repeat': {
        for (let k = 0; k < node.min; k++) this.emit(node.body);
        if (node.max === Infinity) {
          // loop: split body, out; body; jmp loop
          const split = { op: 'split', a: 0, b: 0 } as Extract<Instruction, { op: 'split' }>;
          const loop = this.push(split);
          split.a = loop + 1;
          this.emit(node.body);
          this.push({ op: 'jmp', to: loop });
          split.b = code.length;
          return;
        }
        // Optional copies, each reachable only through the one before: x{1,3} = x(x(x)?)?
        const splits: Extract<Instruction, { op: 'split' }>[] = [];
        for (let k = node.min; k < node.max; k++) {
          const split = { op: 'split', a: 0, b: 0 } as Extract<Instruction, { op: 'split' }>;
          split.a = this.push(split) + 1;
          splits.push(split);
          this.emit(node.body);
        }
        for (const split of splits) split.b = code.length;
        return;
      }
    }
  }
}
