// The grammar of docs/language.md#grammar as a Chevrotain CST parser with error recovery.
// The concrete tree it builds is turned into the typed AST by cst-to-ast.ts; nothing else
// should look at CST nodes.
import { CstParser, Lexer, tokenMatcher, type CstNode, type IParserErrorMessageProvider, type TokenType } from '#chevrotain';
import * as T from './tokens.js';

/** Tokens that cannot start anything at the top level; the parser skips them one by one. */
const STRAY_TOKENS = T.allTokens.filter((t) => t !== T.Import && !T.DECL_KEYWORDS.includes(t) && t.GROUP === undefined
  && t.PATTERN !== Lexer.NA // categories, not tokens
  // These match the number and string alternatives through their categories already.
  && t !== T.InvalidNumber && t !== T.UnterminatedString);

const CLOSERS = [T.RBracket, T.RParen, T.RBrace];

/**
 * Tokens that cannot start a member, skipped one by one inside a body, so that after a broken
 * property (`learning_rate: : 1e-3`) the next members still parse and are checked. Without them
 * in the body's follow set, Chevrotain's re-sync climbed to the file (whose strays take every
 * token) and dropped the rest of the body. Not '{': a stray one would pair with the body's '}'.
 */
const MEMBER_TOKENS = [T.Comma, T.LBrace, T.RBrace, T.Identifier, T.Term, T.Stage, T.Over]; // names: T.NameLike's members
const BODY_STRAY_TOKENS = STRAY_TOKENS.filter((t) => !MEMBER_TOKENS.includes(t));

export class RlxGrammar extends CstParser {
  /**
   * `validate` runs Chevrotain's grammar validations (ambiguities, left recursion): the tests
   * do (test/dsl/parser.test.ts); every process that parses would pay ~12 ms for them.
   */
  constructor(errorMessageProvider: IParserErrorMessageProvider, options: { validate?: boolean } = {}) {
    super(T.allTokens, { recoveryEnabled: true, nodeLocationTracking: 'none', maxLookahead: 3, errorMessageProvider, skipValidations: !options.validate });
    this.performSelfAnalysis();
  }

  // Before a closing bracket, single-token deletion beats insertion: in `[,]` or `f(a b)` the
  // stray token is the mistake. Chevrotain tries insertion first, which there invents the
  // closing token and leaves the stray one to cause a second error further out. (Elsewhere
  // insertion stays first: in `env = CartPole`, the missing name is the mistake, not the `=`.)
  protected override canTokenTypeBeInsertedInRecovery(tokType: TokenType): boolean {
    return !(CLOSERS.includes(tokType) && tokenMatcher(this.LA(2), tokType));
  }

  file = this.RULE('file', () => {
    this.MANY(() => {
      this.OR([
        { ALT: () => this.SUBRULE(this.importDecl) },
        { ALT: () => this.SUBRULE(this.declaration) },
        { ALT: () => this.SUBRULE(this.stray) },
      ]);
    });
  });

  // Anything else at the top level is skipped so that the declarations after it still parse.
  stray = this.RULE('stray', () => {
    this.OR(STRAY_TOKENS.map((tok) => ({ ALT: () => this.CONSUME(tok, { LABEL: 'token' }) })));
  });

  importDecl = this.RULE('importDecl', () => {
    this.CONSUME(T.Import);
    this.CONSUME(T.StringLiteral);
  });

  declaration = this.RULE('declaration', () => {
    this.OR(T.DECL_KEYWORDS.map((tok) => ({ ALT: () => this.CONSUME(tok, { LABEL: 'declKeyword' }) })));
    this.CONSUME(T.Identifier, { LABEL: 'name' });
    this.OPTION(() => {
      this.OR2([
        { ALT: () => { this.CONSUME(T.Equals); this.SUBRULE(this.baseRef); } },
        { ALT: () => { this.CONSUME(T.Over); this.SUBRULE(this.qualifiedName, { LABEL: 'over' }); } },
      ]);
    });
    this.OPTION2(() => this.SUBRULE(this.body));
  });

  baseRef = this.RULE('baseRef', () => {
    this.SUBRULE(this.qualifiedName);
    this.OPTION(() => this.SUBRULE(this.callArgs));
  });

  body = this.RULE('body', () => {
    this.CONSUME(T.LBrace);
    this.MANY({
      // `policy Actor ...` inside a body is the next declaration after a missing '}', not a
      // property named `policy`: stop here and let the missing brace be reported.
      GATE: () => !(T.DECL_KEYWORDS.includes(this.LA(1).tokenType) && this.LA(2).tokenType === T.Identifier),
      DEF: () => {
        this.OR([
          { ALT: () => this.SUBRULE(this.member) },
          { ALT: () => this.CONSUME(T.Comma) },
          { ALT: () => this.SUBRULE(this.bodyStray) },
        ]);
      },
    });
    this.CONSUME(T.RBrace);
  });

  bodyStray = this.RULE('bodyStray', () => {
    this.OR(BODY_STRAY_TOKENS.map((tok) => ({ ALT: () => this.CONSUME(tok, { LABEL: 'token' }) })));
  });

  member = this.RULE('member', () => {
    this.OR([
      { ALT: () => this.SUBRULE(this.named) },
      { GATE: () => this.LA(2).tokenType === T.LBrace, ALT: () => this.SUBRULE(this.block) },
      { ALT: () => this.SUBRULE(this.property) },
    ]);
  });

  named = this.RULE('named', () => {
    this.OR([
      { ALT: () => this.CONSUME(T.Term, { LABEL: 'namedKeyword' }) },
      { ALT: () => this.CONSUME(T.Stage, { LABEL: 'namedKeyword' }) },
    ]);
    this.CONSUME(T.Identifier, { LABEL: 'name' });
    this.CONSUME(T.Equals);
    this.SUBRULE(this.expression);
    this.OPTION(() => this.SUBRULE(this.body));
  });

  block = this.RULE('block', () => {
    this.CONSUME(T.Identifier, { LABEL: 'name' });
    this.SUBRULE(this.body);
  });

  property = this.RULE('property', () => {
    this.CONSUME(T.NameLike, { LABEL: 'segment' });
    this.MANY(() => {
      this.CONSUME(T.Dot);
      this.CONSUME2(T.NameLike, { LABEL: 'segment' });
    });
    this.CONSUME(T.Colon);
    this.SUBRULE(this.expression);
    // `algorithm: PPO { gamma: 0.9 }` is no property (a value takes no body), but parsed as one
    // so that the error says what to write and the members after it still parse (cst-to-ast.ts).
    this.OPTION(() => this.SUBRULE(this.body, { LABEL: 'inlineBody' }));
  });

  /** `env B` after a missing base: the start of the next declaration, not a name `env`. */
  private startsDeclaration(): boolean {
    return T.DECL_KEYWORDS.includes(this.LA(1).tokenType) && this.LA(2).tokenType === T.Identifier;
  }

  // Keywords may be names (`env: Pole`, `param: env.size`), except where they start the next
  // declaration: `env A = ` followed by `env B = ...` is a missing base, not a base named `env`.
  qualifiedName = this.RULE('qualifiedName', () => {
    this.OR([{ GATE: () => !this.startsDeclaration(), ALT: () => this.CONSUME(T.NameLike, { LABEL: 'segment' }) }]);
    this.MANY(() => {
      this.CONSUME(T.Dot);
      this.CONSUME2(T.NameLike, { LABEL: 'segment' });
    });
  });

  // Expressions are flat here: operands (`unary`) and binary operators in source order. The
  // converter builds the tree by precedence (cst-to-ast.ts). One rule per precedence level
  // would cost a dozen nested CST nodes per leaf, and the parser's time went to allocating them.
  expression = this.RULE('expression', () => {
    this.SUBRULE(this.unary, { LABEL: 'operand' });
    this.MANY(() => {
      this.CONSUME(T.BinaryOperator, { LABEL: 'operator' });
      this.SUBRULE2(this.unary, { LABEL: 'operand' });
    });
  });

  /** Prefix operators, then one atom: a literal, a name or call, a list, a parenthesised expression. */
  unary = this.RULE('unary', () => {
    this.MANY(() => this.CONSUME(T.PrefixOperator, { LABEL: 'prefix' }));
    this.OR([
      { ALT: () => this.CONSUME(T.NumberLiteral) },
      { ALT: () => this.CONSUME(T.StringLiteral) },
      { ALT: () => this.CONSUME(T.True) },
      { ALT: () => this.CONSUME(T.False) },
      { ALT: () => this.CONSUME(T.None) },
      {
        GATE: () => !this.startsDeclaration(),
        ALT: () => {
          this.CONSUME(T.NameLike, { LABEL: 'segment' });
          this.MANY2(() => {
            this.CONSUME(T.Dot);
            this.CONSUME2(T.NameLike, { LABEL: 'segment' });
          });
          this.OPTION(() => this.SUBRULE(this.callArgs));
        },
      },
      { ALT: () => this.SUBRULE(this.list) },
      { ALT: () => this.SUBRULE(this.paren) },
    ]);
  });

  callArgs = this.RULE('callArgs', () => {
    this.CONSUME(T.LParen);
    this.MANY_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.argument) });
    this.CONSUME(T.RParen);
  });

  argument = this.RULE('argument', () => {
    this.OPTION({
      GATE: () => this.LA(2).tokenType === T.Colon,
      DEF: () => {
        this.CONSUME(T.NameLike, { LABEL: 'argName' });
        this.CONSUME(T.Colon);
      },
    });
    this.SUBRULE(this.expression);
  });

  // List = "[" [ Expr { "," Expr } [ "," ] ] "]": items need commas between them (`[64 64]` is
  // an error, not two items), and only one trailing comma is allowed.
  list = this.RULE('list', () => {
    this.CONSUME(T.LBracket);
    this.OPTION(() => {
      this.SUBRULE(this.expression, { LABEL: 'item' });
      this.MANY({
        GATE: () => this.LA(2).tokenType !== T.RBracket,
        DEF: () => {
          this.CONSUME(T.Comma);
          this.SUBRULE2(this.expression, { LABEL: 'item' });
        },
      });
      this.OPTION2(() => this.CONSUME2(T.Comma));
    });
    this.CONSUME(T.RBracket);
  });

  paren = this.RULE('paren', () => {
    this.CONSUME(T.LParen);
    this.SUBRULE(this.expression);
    this.CONSUME(T.RParen);
  });
}

export type { CstNode };
