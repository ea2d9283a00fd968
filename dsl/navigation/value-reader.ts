// Reading a value token by token while it is being typed: which brackets are open (with the
// callee of each call and the argument being written), whether an operand or an operator comes
// next, and the dotted name just read (a qualifier like `obs.`). prefix.ts feeds it the tokens
// of a property's value or a term's expression.

/** An open `(` or `[` around the cursor. */
export interface OpenBracket {
  bracket: '(' | '[';
  /** The dotted name before `(`: `linear`, `future`, `abs`. */
  callee: string[] | undefined;
  /** Arguments (or items) before the current one. */
  index: number;
  /** `over: |`: the name of the argument being written. */
  named: string | undefined;
  /** Names of the named arguments already written. */
  given: string[];
  /** Right after `(` or `,`: an argument name may be typed here. */
  atStart: boolean;
}

export interface Token {
  /** The lexer's token type name: `Identifier`, `Kw_env`, `LParen`, ... */
  type: string;
  text: string;
  start: number;
  end: number;
}

export const DECL_KEYWORDS = new Set(['Kw_env', 'Kw_reward', 'Kw_policy', 'Kw_algorithm', 'Kw_experiment', 'Kw_sweep']);
/** Tokens that may be a name: identifiers and the keywords the grammar lets stand as names (`env: Pole`). */
export const NAME_LIKE = new Set(['Identifier', ...DECL_KEYWORDS, 'Kw_term', 'Kw_stage', 'Kw_over', 'Kw_import']);
export const LITERALS = new Set(['Number', 'InvalidNumber', 'String', 'UnterminatedString', 'Kw_true', 'Kw_false', 'Kw_none']);
const OPERATORS = new Set(['EqEq', 'NotEq', 'LessEq', 'GreaterEq', 'Less', 'Greater', 'Plus', 'Minus', 'Star', 'Slash', 'Caret', 'Kw_and', 'Kw_or', 'Kw_not']);

export interface ValueReading {
  open: OpenBracket[];
  /** An operand is expected next (after `:`, an operator, `(`, `,`). */
  operand: boolean;
  /** The dotted name just read, if the last operand was a name. */
  name: string[] | undefined;
  afterDot: boolean;
  /** Nothing of the value written yet. */
  empty: boolean;
}

export function newValue(): ValueReading {
  return { open: [], operand: true, name: undefined, afterDot: false, empty: true };
}

/** One token of a value; 'ended' when the token starts the next member, 'brace' for `{` after a value. */
export function readValueToken(e: ValueReading, t: Token): 'consumed' | 'ended' | 'brace' {
  const top = e.open[e.open.length - 1];
  if (top && t.type !== 'Colon') top.atStart = false;
  e.empty = false;
  if (NAME_LIKE.has(t.type)) {
    if (e.afterDot && e.name) e.name.push(t.text);
    else if (!e.operand && !top) return 'ended';
    else e.name = [t.text];
    e.operand = false;
    e.afterDot = false;
    return 'consumed';
  }
  if (LITERALS.has(t.type)) {
    if (!e.operand && !top) return 'ended';
    Object.assign(e, { operand: false, name: undefined, afterDot: false });
    return 'consumed';
  }
  switch (t.type) {
    case 'Dot': e.afterDot = e.name !== undefined; return 'consumed';
    case 'LParen': case 'LBracket':
      e.open.push({ bracket: t.type === 'LParen' ? '(' : '[', callee: t.type === 'LParen' ? e.name : undefined, index: 0, named: undefined, given: [], atStart: true });
      Object.assign(e, { operand: true, name: undefined, afterDot: false });
      return 'consumed';
    case 'Comma':
      if (!top) return 'ended';
      Object.assign(top, { index: top.index + 1, named: undefined, atStart: true });
      Object.assign(e, { operand: true, name: undefined, afterDot: false });
      return 'consumed';
    case 'RParen': case 'RBracket':
      e.open.pop();
      Object.assign(e, { operand: false, name: undefined, afterDot: false });
      return 'consumed';
    case 'Colon':
      if (top?.bracket === '(' && e.name?.length === 1) {
        top.named = e.name[0];
        top.given.push(e.name[0]);
        Object.assign(e, { operand: true, name: undefined });
      }
      return 'consumed';
    case 'LBrace': return top ? 'consumed' : 'brace';
    case 'RBrace': return 'ended';
    default:
      if (OPERATORS.has(t.type)) Object.assign(e, { operand: true, name: undefined, afterDot: false });
      return 'consumed';
  }
}

