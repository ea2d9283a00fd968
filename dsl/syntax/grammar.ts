// The grammar of LANGUAGE.md section 3 as a Chevrotain CST parser with error recovery.
// The concrete tree it builds is turned into the typed AST by cst-to-ast.ts; nothing else
// should look at CST nodes.
import { CstParser, tokenMatcher, type CstNode, type IParserErrorMessageProvider, type TokenType } from 'chevrotain';
import * as T from './tokens.js';

/** Tokens that cannot start anything at the top level; the parser skips them one by one. */
const STRAY_TOKENS = T.allTokens.filter((t) => t !== T.Import && !T.DECL_KEYWORDS.includes(t) && t.GROUP === undefined
  // These match the number and string alternatives through their categories already.
  && t !== T.InvalidNumber && t !== T.UnterminatedString);

const CLOSERS = [T.RBracket, T.RParen, T.RBrace];

export class RlxGrammar extends CstParser {
  constructor(errorMessageProvider: IParserErrorMessageProvider) {
    super(T.allTokens, { recoveryEnabled: true, nodeLocationTracking: 'none', maxLookahead: 3, errorMessageProvider });
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
        ]);
      },
    });
    this.CONSUME(T.RBrace);
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
    this.SUBRULE(this.nameSegment);
    this.MANY(() => {
      this.CONSUME(T.Dot);
      this.SUBRULE2(this.nameSegment);
    });
    this.CONSUME(T.Colon);
    this.SUBRULE(this.expression);
  });

  // Keywords may be names (`env: Pole`, `param: env.size`), except where they start the next
  // declaration: `env A = ` followed by `env B = ...` is a missing base, not a base named `env`.
  nameSegment = this.RULE('nameSegment', () => {
    this.OR([T.Identifier, ...T.NAME_KEYWORDS].map((tok: TokenType) => ({
      GATE: T.DECL_KEYWORDS.includes(tok) ? () => this.LA(2).tokenType !== T.Identifier : undefined,
      ALT: () => this.CONSUME(tok, { LABEL: 'segment' }),
    })));
  });

  qualifiedName = this.RULE('qualifiedName', () => {
    this.SUBRULE(this.nameSegment);
    this.MANY(() => {
      this.CONSUME(T.Dot);
      this.SUBRULE2(this.nameSegment);
    });
  });

  expression = this.RULE('expression', () => {
    this.SUBRULE(this.andExpr, { LABEL: 'operand' });
    this.MANY(() => {
      this.CONSUME(T.Or, { LABEL: 'operator' });
      this.SUBRULE2(this.andExpr, { LABEL: 'operand' });
    });
  });

  andExpr = this.RULE('andExpr', () => {
    this.SUBRULE(this.notExpr, { LABEL: 'operand' });
    this.MANY(() => {
      this.CONSUME(T.And, { LABEL: 'operator' });
      this.SUBRULE2(this.notExpr, { LABEL: 'operand' });
    });
  });

  notExpr = this.RULE('notExpr', () => {
    this.OPTION(() => this.CONSUME(T.Not, { LABEL: 'operator' }));
    this.SUBRULE(this.cmpExpr, { LABEL: 'operand' });
  });

  cmpExpr = this.RULE('cmpExpr', () => {
    this.SUBRULE(this.sumExpr, { LABEL: 'operand' });
    this.OPTION(() => {
      this.OR([T.EqEq, T.NotEq, T.LessEq, T.GreaterEq, T.Less, T.Greater].map((tok) => ({
        ALT: () => this.CONSUME(tok, { LABEL: 'operator' }),
      })));
      this.SUBRULE2(this.sumExpr, { LABEL: 'operand' });
    });
  });

  sumExpr = this.RULE('sumExpr', () => {
    this.SUBRULE(this.prodExpr, { LABEL: 'operand' });
    this.MANY(() => {
      this.OR([
        { ALT: () => this.CONSUME(T.Plus, { LABEL: 'operator' }) },
        { ALT: () => this.CONSUME(T.Minus, { LABEL: 'operator' }) },
      ]);
      this.SUBRULE2(this.prodExpr, { LABEL: 'operand' });
    });
  });

  prodExpr = this.RULE('prodExpr', () => {
    this.SUBRULE(this.unaryExpr, { LABEL: 'operand' });
    this.MANY(() => {
      this.OR([
        { ALT: () => this.CONSUME(T.Star, { LABEL: 'operator' }) },
        { ALT: () => this.CONSUME(T.Slash, { LABEL: 'operator' }) },
      ]);
      this.SUBRULE2(this.unaryExpr, { LABEL: 'operand' });
    });
  });

  unaryExpr = this.RULE('unaryExpr', () => {
    this.OPTION(() => this.CONSUME(T.Minus, { LABEL: 'operator' }));
    this.SUBRULE(this.powExpr, { LABEL: 'operand' });
  });

  powExpr = this.RULE('powExpr', () => {
    this.SUBRULE(this.primary, { LABEL: 'operand' });
    this.OPTION(() => {
      this.CONSUME(T.Caret, { LABEL: 'operator' });
      this.SUBRULE(this.unaryExpr, { LABEL: 'exponent' });
    });
  });

  primary = this.RULE('primary', () => {
    this.OR([
      { ALT: () => this.CONSUME(T.NumberLiteral) },
      { ALT: () => this.CONSUME(T.StringLiteral) },
      { ALT: () => this.CONSUME(T.True) },
      { ALT: () => this.CONSUME(T.False) },
      { ALT: () => this.CONSUME(T.None) },
      { ALT: () => this.SUBRULE(this.nameOrCall) },
      { ALT: () => this.SUBRULE(this.list) },
      { ALT: () => this.SUBRULE(this.paren) },
    ]);
  });

  nameOrCall = this.RULE('nameOrCall', () => {
    this.SUBRULE(this.qualifiedName);
    this.OPTION(() => this.SUBRULE(this.callArgs));
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
        this.SUBRULE(this.nameSegment, { LABEL: 'argName' });
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
