// parse(text) never throws: it returns a syntax tree (partial where the text is broken) and the
// syntax errors, each with a range. Later stages work on whatever tree came back.
import type { IParserErrorMessageProvider, IToken, TokenType } from 'chevrotain';
import { EOF as EOF_TOKEN, tokenLabel } from '#chevrotain';
import type * as A from './ast.js';
import { RlxGrammar } from './grammar.js';
import { CstToAst } from './cst-to-ast.js';
import { InvalidNumber, LBrace, LBracket, LParen, NumberLiteral, RBrace, RBracket, RParen, rlxLexer, UnterminatedString } from './tokens.js';

export interface SyntaxError {
  code: 'syntax-error' | 'invalid-character';
  message: string;
  range: A.Range;
  /**
   * Nesting too deep: the text left out of the tree (a 0 stands in for it). The checker reports
   * nothing inside it: what it would say of the stand-in ("found 0") was never written.
   */
  elided?: A.Range;
}

export interface ParseResult {
  file: A.SourceFile;
  errors: SyntaxError[];
}

function describe(token: IToken): string {
  if (token.tokenType === EOF_TOKEN) return 'the end of the file';
  return `'${token.image}'`;
}

function labels(types: TokenType[]): string {
  const names = [...new Set(types.map((t) => tokenLabel(t)))];
  if (names.length <= 1) return names[0] ?? 'something else';
  return names.slice(0, -1).join(', ') + ' or ' + names[names.length - 1];
}

// Messages in the user's terms: what was expected, what was found.
const messages: IParserErrorMessageProvider = {
  buildMismatchTokenMessage: ({ expected, actual }) => `expected ${tokenLabel(expected)} but found ${describe(actual)}`,
  buildNotAllInputParsedMessage: ({ firstRedundant }) => `unexpected ${describe(firstRedundant)}: expected a declaration (env, reward, policy, algorithm, experiment, sweep) or an import`,
  buildNoViableAltMessage: ({ expectedPathsPerAlt, actual, ruleName }) => {
    const first = expectedPathsPerAlt.flat().map((path) => path[0]).filter((t): t is TokenType => t !== undefined);
    const what = RULE_DESCRIPTIONS[ruleName] ?? labels(first);
    return `expected ${what} but found ${describe(actual[0])}`;
  },
  buildEarlyExitMessage: ({ expectedIterationPaths, actual }) => {
    const first = expectedIterationPaths.map((path) => path[0]).filter((t): t is TokenType => t !== undefined);
    return `expected ${labels(first)} but found ${describe(actual[0])}`;
  },
};

const RULE_DESCRIPTIONS: Record<string, string> = {
  unary: 'a value (number, string, name, list or call)',
  member: "a property ('name: value'), a block ('name { ... }'), 'term' or 'stage'",
  declaration: 'a declaration kind (env, reward, policy, algorithm, experiment, sweep)',
};

let grammar: RlxGrammar | undefined;

function sharedGrammar(): RlxGrammar {
  // Building a Chevrotain parser is costly (grammar analysis); one instance serves every parse.
  grammar ??= new RlxGrammar(messages);
  return grammar;
}

/**
 * Brackets open at once that the parser follows. The grammar, the tree and the checks recurse
 * once per level (and each level is several grammar rules deep), so a spec nested hundreds deep
 * would overflow the stack; no spec a person writes comes near this.
 */
export const MAX_NESTING = 100;

const OPENERS = new Set<TokenType>([LParen, LBracket, LBrace]);
const CLOSERS = new Set<TokenType>([RParen, RBracket, RBrace]);

/**
 * The tokens with every bracket nested deeper than MAX_NESTING replaced, up to its matching
 * closer, by a single 0, and an error there that says so; the rest of the file parses as usual.
 */
function limitNesting(tokens: IToken[], errors: SyntaxError[]): IToken[] {
  let depth = 0;
  for (const t of tokens) {
    if (OPENERS.has(t.tokenType) && ++depth > MAX_NESTING) break;
    if (CLOSERS.has(t.tokenType)) depth = Math.max(0, depth - 1);
  }
  if (depth <= MAX_NESTING) return tokens;
  const out: IToken[] = [];
  depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (OPENERS.has(t.tokenType) && depth + 1 > MAX_NESTING) {
      // Skip to the matching closer (or the end), counting brackets of every kind alike.
      let open = 0;
      let j = i;
      for (; j < tokens.length; j++) {
        if (OPENERS.has(tokens[j]!.tokenType)) open++;
        else if (CLOSERS.has(tokens[j]!.tokenType) && --open === 0) break;
      }
      const last = tokens[Math.min(j, tokens.length - 1)]!;
      errors.push({
        code: 'syntax-error',
        // The count is the user's brackets, the declaration's own braces included: this is the 101st.
        message: `nested too deeply: this bracket is the ${ordinal(MAX_NESTING + 1)} open at once (the declaration's own braces count), and rlx follows at most ${MAX_NESTING}; write the inner part as a separate term or declaration`,
        range: { start: t.startOffset, end: t.startOffset + t.image.length },
        elided: { start: t.startOffset, end: (last.endOffset ?? last.startOffset) + 1 },
      });
      // Chevrotain matches tokens by tokenTypeIdx, which createToken() sets on the type.
      out.push({ ...t, image: '0', tokenType: NumberLiteral, tokenTypeIdx: NumberLiteral.tokenTypeIdx!, endOffset: last.endOffset });
      i = j;
      continue;
    }
    if (OPENERS.has(t.tokenType)) depth++;
    if (CLOSERS.has(t.tokenType)) depth = Math.max(0, depth - 1);
    out.push(t);
  }
  return out;
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th';
  return `${n}${suffix}`;
}

export function parse(text: string): ParseResult {
  try {
    return parseUnsafe(text);
  } catch (err) {
    // A bug of ours must not take the editor down: report it where the user can see it.
    return {
      file: { kind: 'File', imports: [], declarations: [], comments: [], range: { start: 0, end: text.length } },
      errors: [{ code: 'syntax-error', message: `internal parser error: ${(err as Error).message}`, range: { start: 0, end: 0 } }],
    };
  }
}

function parseUnsafe(text: string): ParseResult {
  const lexed = rlxLexer.tokenize(text);
  const errors: SyntaxError[] = lexed.errors.map((e) => ({
    code: 'invalid-character',
    message: invalidCharacterMessage(text, e.offset, e.length),
    range: { start: e.offset, end: e.offset + e.length },
  }));
  for (const t of lexed.tokens) {
    if (t.tokenType === InvalidNumber || t.tokenType === UnterminatedString) {
      errors.push({ code: 'invalid-character', message: invalidCharacterMessage(text, t.startOffset, t.image.length), range: { start: t.startOffset, end: t.startOffset + t.image.length } });
    }
  }

  const comments: A.Comment[] = (lexed.groups.comments ?? []).map((t) => ({
    kind: 'Comment',
    style: t.image.startsWith('///') ? 'doc' : t.image.startsWith('/*') ? 'block' : 'line',
    text: t.image,
    range: { start: t.startOffset, end: t.startOffset + t.image.length },
  }));

  const parser = sharedGrammar();
  parser.input = limitNesting(lexed.tokens, errors);
  const cst = parser.file();
  for (const e of parser.errors) {
    const t = e.token;
    const start = Number.isFinite(t.startOffset) && t.tokenType !== EOF_TOKEN ? t.startOffset : errorOffsetAtEnd(e, text);
    const end = t.tokenType === EOF_TOKEN || !Number.isFinite(t.startOffset) ? start : start + t.image.length;
    errors.push({ code: 'syntax-error', message: e.message, range: { start, end } });
  }
  const converter = new CstToAst(text);
  const file = converter.file(cst, comments);
  for (const range of converter.strayRuns(cst)) {
    const found = text.slice(range.start, Math.min(range.end, range.start + 20));
    errors.push({ code: 'syntax-error', message: `unexpected '${found}': expected a declaration (env, reward, policy, algorithm, experiment, sweep) or an import`, range });
  }
  for (const e of converter.errors) errors.push({ code: 'syntax-error', ...e });
  errors.sort((a, b) => a.range.start - b.range.start);
  return { file, errors: dedupe(errors) };
}

/** Where to put an error reported at the end of input: just after the last real token. */
function errorOffsetAtEnd(e: { previousToken?: IToken } | object, text: string): number {
  const prev = (e as { previousToken?: IToken }).previousToken;
  if (prev && Number.isFinite(prev.startOffset)) return prev.startOffset + prev.image.length;
  return text.length;
}

function invalidCharacterMessage(text: string, offset: number, length: number): string {
  const bad = text.slice(offset, offset + length);
  if (/^\d/.test(bad)) return `invalid number '${shown(bad)}': a number may end in 'k' or 'M' and must not run into a name`;
  if (bad.startsWith('"')) return 'unterminated string: add the closing \'"\' on the same line';
  return bad.length === 1 ? `unexpected character '${shown(bad)}'` : `unexpected characters '${shown(bad)}' (${bad.length.toLocaleString('en-US')} of them)`;
}

/** Characters shown in a message: at most SHOWN_CHARACTERS of them, control characters as \uXXXX (a file of 500k NULs is one short line). */
const SHOWN_CHARACTERS = 20;

function shown(bad: string): string {
  const head = [...bad.slice(0, SHOWN_CHARACTERS)].map((c) => (/[\u0000-\u001f\u007f-\u009f]/.test(c) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c)).join('');
  return bad.length > SHOWN_CHARACTERS ? `${head}…` : head;
}

/** Recovery can report the same spot twice; keep the first message for each start offset. */
function dedupe(errors: SyntaxError[]): SyntaxError[] {
  const seen = new Set<number>();
  return errors.filter((e) => (seen.has(e.range.start) ? false : (seen.add(e.range.start), true)));
}
