// Tokens of the rlx language (docs/language.md#files-comments-names). Whitespace and newlines are skipped:
// members are separated by newlines or commas, and the grammar never needs a newline to decide.
// Comments go to their own group so the formatter and hover can still see them.
import { createToken, Lexer, type TokenType } from '#chevrotain';

// Token categories let one CONSUME match a family of tokens without a rule (and a CST node) of
// its own: a name segment, a binary operator, a prefix operator.
/** Anything usable as a name segment: identifiers and the keywords allowed as names. */
export const NameLike = createToken({ name: 'NameLike', pattern: Lexer.NA, label: 'a name' });
export const BinaryOperator = createToken({ name: 'BinaryOperator', pattern: Lexer.NA, label: 'an operator' });
export const PrefixOperator = createToken({ name: 'PrefixOperator', pattern: Lexer.NA, label: "'-' or 'not'" });

export const Identifier = createToken({ name: 'Identifier', pattern: /[A-Za-z_][A-Za-z0-9_]*/, label: 'a name', categories: [NameLike] });

/** Every keyword of the language as written (`env`, `term`, `and`...): none can name a declaration. */
export const KEYWORDS: string[] = [];

function keyword(word: string, categories: TokenType[] = []): TokenType {
  KEYWORDS.push(word);
  return createToken({ name: `Kw_${word}`, pattern: new RegExp(`${word}(?![A-Za-z0-9_])`), longer_alt: Identifier, label: `'${word}'`, categories });
}

export const Import = keyword('import', [NameLike]);
export const Env = keyword('env', [NameLike]);
export const Reward = keyword('reward', [NameLike]);
export const Policy = keyword('policy', [NameLike]);
export const Algorithm = keyword('algorithm', [NameLike]);
export const Experiment = keyword('experiment', [NameLike]);
export const Sweep = keyword('sweep', [NameLike]);
export const Term = keyword('term', [NameLike]);
export const Stage = keyword('stage', [NameLike]);
export const Over = keyword('over', [NameLike]);
export const True = keyword('true');
export const False = keyword('false');
export const None = keyword('none');
export const And = keyword('and', [BinaryOperator]);
export const Or = keyword('or', [BinaryOperator]);
export const Not = keyword('not', [PrefixOperator]);

export const DECL_KEYWORDS = [Env, Reward, Policy, Algorithm, Experiment, Sweep];

// A count suffix (k, M) must not run into a following identifier: `200kb` is an error, not `200k b`.
export const NumberLiteral = createToken({
  name: 'Number',
  pattern: /(?:\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)[kM]?(?![A-Za-z0-9_.])/,
  label: 'a number',
});
export const StringLiteral = createToken({ name: 'String', pattern: /"(?:[^"\\\n\r]|\\.)*"/, label: 'a string' });
// Broken literals are tokens of their own, so that one mistake is one error: `200kb` is one bad
// number (not `200k` and a name `b`), and `"abc` runs to the end of its line as a string. They
// are categorised as numbers and strings, so the parser accepts them where those go; parse.ts
// reports them, and the AST leaves a bad number out (an unterminated string keeps its text).
export const InvalidNumber = createToken({ name: 'InvalidNumber', pattern: /\d[A-Za-z0-9_.]*/, categories: [NumberLiteral], label: 'a number' });
export const UnterminatedString = createToken({ name: 'UnterminatedString', pattern: /"(?:[^"\\\n\r]|\\.)*/, categories: [StringLiteral], label: 'a string' });

export const DocComment = createToken({ name: 'DocComment', pattern: /\/\/\/[^\n\r]*/, group: 'comments' });
export const LineComment = createToken({ name: 'LineComment', pattern: /\/\/[^\n\r]*/, group: 'comments' });
export const BlockComment = createToken({ name: 'BlockComment', pattern: /\/\*[\s\S]*?\*\//, group: 'comments', line_breaks: true });
export const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t\r\n\f\v\uFEFF]+/, group: Lexer.SKIPPED, line_breaks: true });

export const LBrace = createToken({ name: 'LBrace', pattern: '{', label: "'{'" });
export const RBrace = createToken({ name: 'RBrace', pattern: '}', label: "'}'" });
export const LParen = createToken({ name: 'LParen', pattern: '(', label: "'('" });
export const RParen = createToken({ name: 'RParen', pattern: ')', label: "')'" });
export const LBracket = createToken({ name: 'LBracket', pattern: '[', label: "'['" });
export const RBracket = createToken({ name: 'RBracket', pattern: ']', label: "']'" });
export const Comma = createToken({ name: 'Comma', pattern: ',', label: "','" });
export const Colon = createToken({ name: 'Colon', pattern: ':', label: "':'" });
export const Dot = createToken({ name: 'Dot', pattern: '.', label: "'.'" });
export const EqEq = createToken({ name: 'EqEq', pattern: '==', label: "'=='", categories: [BinaryOperator] });
export const NotEq = createToken({ name: 'NotEq', pattern: '!=', label: "'!='", categories: [BinaryOperator] });
export const LessEq = createToken({ name: 'LessEq', pattern: '<=', label: "'<='", categories: [BinaryOperator] });
export const GreaterEq = createToken({ name: 'GreaterEq', pattern: '>=', label: "'>='", categories: [BinaryOperator] });
export const Less = createToken({ name: 'Less', pattern: '<', label: "'<'", categories: [BinaryOperator] });
export const Greater = createToken({ name: 'Greater', pattern: '>', label: "'>'", categories: [BinaryOperator] });
export const Equals = createToken({ name: 'Equals', pattern: '=', label: "'='" });
export const Plus = createToken({ name: 'Plus', pattern: '+', label: "'+'", categories: [BinaryOperator] });
export const Minus = createToken({ name: 'Minus', pattern: '-', label: "'-'", categories: [BinaryOperator, PrefixOperator] });
export const Star = createToken({ name: 'Star', pattern: '*', label: "'*'", categories: [BinaryOperator] });
export const Slash = createToken({ name: 'Slash', pattern: '/', label: "'/'", categories: [BinaryOperator] });
export const Caret = createToken({ name: 'Caret', pattern: '^', label: "'^'", categories: [BinaryOperator] });

export const allTokens: TokenType[] = [
  NameLike,
  BinaryOperator,
  PrefixOperator,
  WhiteSpace,
  DocComment,
  LineComment,
  BlockComment,
  StringLiteral,
  UnterminatedString,
  NumberLiteral,
  InvalidNumber,
  Import, Env, Reward, Policy, Algorithm, Experiment, Sweep, Term, Stage, Over,
  True, False, None, And, Or, Not,
  Identifier,
  LBrace, RBrace, LParen, RParen, LBracket, RBracket, Comma, Colon, Dot,
  EqEq, NotEq, LessEq, GreaterEq, Less, Greater, Equals,
  Plus, Minus, Star, Slash, Caret,
];

export const rlxLexer = new Lexer(allTokens, { positionTracking: 'onlyOffset', ensureOptimizations: true });
