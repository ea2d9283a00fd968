// Semantic tokens: colour by meaning, not by shape. Names take their meaning from the shared
// classification (dsl/navigation/occurrences.ts); everything else from the lexer. The mapping:
//   declarations and references by kind   see shared/kinds.ts (env class, policy struct,
//                                          algorithm type, reward function, experiment namespace,
//                                          sweep macro); `declaration` on the declaring name,
//                                          `defaultLibrary` on built-ins (PPO, CartPole, mlp)
//   properties, block names, obs fields    property (fields `readonly`)
//   term and stage names                   variable + declaration
//   options (tanh, future, auto)           enumMember + defaultLibrary
//   functions, schedules, module           function + defaultLibrary
//   argument names (over:, k:)             parameter
//   reward names (obs, action), metrics    variable + defaultLibrary + readonly
//   keywords, true/false/none, and/or/not  keyword
//   numbers (with k/M suffixes), strings   number, string
//   operators                              operator
//   comments                               comment (`///` doc comments: + documentation)
// Names that resolve to nothing get no token: the editor's grammar colours them.
import type { SemanticTokens, SemanticTokensLegend } from 'vscode-languageserver';
import { rlxLexer } from '../../dsl/syntax/tokens.js';
import type { DocumentContext } from '../context.js';
import { KIND_STYLES } from './shared/kinds.js';
import { fileOccurrences, type Meaning } from '../../dsl/navigation/occurrences.js';

const TYPES = ['namespace', 'type', 'class', 'struct', 'function', 'macro', 'variable', 'parameter', 'property', 'enumMember', 'keyword', 'comment', 'string', 'number', 'operator'] as const;
const MODIFIERS = ['declaration', 'defaultLibrary', 'documentation', 'readonly'] as const;
type TokenType = (typeof TYPES)[number];
type Modifier = (typeof MODIFIERS)[number];

export const SEMANTIC_TOKENS_LEGEND: SemanticTokensLegend = { tokenTypes: [...TYPES], tokenModifiers: [...MODIFIERS] };

interface Style {
  type: TokenType;
  modifiers?: Modifier[];
}

function styleOf(meaning: Meaning): Style | undefined {
  switch (meaning.kind) {
    case 'declaration': return { type: KIND_STYLES[meaning.symbol.decl.declKind].token, modifiers: ['declaration'] };
    case 'reference': {
      const target = meaning.target;
      if (!target) return undefined;
      if (target.kind === 'builtin') return { type: KIND_STYLES[target.spec.declKind].token, modifiers: ['defaultLibrary'] };
      return { type: KIND_STYLES[target.symbol.decl.declKind].token };
    }
    case 'property': case 'block': return { type: 'property' };
    case 'field': return { type: 'property', modifiers: ['readonly'] };
    case 'member': return { type: 'variable', modifiers: ['declaration'] };
    case 'option': return { type: 'enumMember', modifiers: ['defaultLibrary'] };
    case 'call': case 'module': return { type: 'function', modifiers: ['defaultLibrary'] };
    case 'argument': return { type: 'parameter' };
    case 'reward-name': case 'metric': return { type: 'variable', modifiers: ['defaultLibrary', 'readonly'] };
    case 'import': return undefined; // the string token covers it
  }
}

/** Lexer token kinds that are coloured by their shape alone. */
function lexicalStyle(tokenName: string): Style | undefined {
  if (tokenName.startsWith('Kw_')) return { type: 'keyword' };
  if (tokenName === 'Number' || tokenName === 'InvalidNumber') return { type: 'number' };
  if (tokenName === 'String' || tokenName === 'UnterminatedString') return { type: 'string' };
  if (/^(EqEq|NotEq|LessEq|GreaterEq|Less|Greater|Equals|Plus|Minus|Star|Slash|Caret)$/.test(tokenName)) return { type: 'operator' };
  return undefined;
}

export function semanticTokens(doc: DocumentContext): SemanticTokens {
  const text = doc.unit.text;
  const styled: { start: number; end: number; style: Style }[] = [];
  const byStart = new Map(fileOccurrences(doc.analysis.model, doc.unit).map((o) => [o.range.start, o]));
  const lexed = rlxLexer.tokenize(text);
  for (const token of lexed.tokens) {
    const start = token.startOffset;
    const occurrence = byStart.get(start);
    const style = occurrence ? styleOf(occurrence.meaning) ?? lexicalStyle(token.tokenType.name) : lexicalStyle(token.tokenType.name);
    if (style) styled.push({ start, end: start + token.image.length, style });
  }
  for (const comment of lexed.groups.comments ?? []) {
    const isDoc = comment.image.startsWith('///');
    styled.push({ start: comment.startOffset, end: comment.startOffset + comment.image.length, style: { type: 'comment', modifiers: isDoc ? ['documentation'] : [] } });
  }
  styled.sort((a, b) => a.start - b.start);
  return { data: encode(doc, styled) };
}

/** Relative encoding of the LSP spec; a token spanning lines (a block comment) becomes one per line. */
function encode(doc: DocumentContext, styled: { start: number; end: number; style: Style }[]): number[] {
  const data: number[] = [];
  let prevLine = 0;
  let prevChar = 0;
  const push = (line: number, char: number, length: number, style: Style) => {
    if (length <= 0) return;
    const modifiers = (style.modifiers ?? []).reduce((bits, m) => bits | (1 << MODIFIERS.indexOf(m)), 0);
    data.push(line - prevLine, line === prevLine ? char - prevChar : char, length, TYPES.indexOf(style.type), modifiers);
    prevLine = line;
    prevChar = char;
  };
  for (const { start, end, style } of styled) {
    const from = doc.lines.position(start);
    const to = doc.lines.position(end);
    if (from.line === to.line) {
      push(from.line, from.character, to.character - from.character, style);
      continue;
    }
    for (let line = from.line; line <= to.line; line++) {
      const lineStart = line === from.line ? start : doc.lines.offset({ line, character: 0 });
      const lineEnd = line === to.line ? end : doc.lines.offset({ line: line + 1, character: 0 }) - 1;
      const text = doc.unit.text.slice(lineStart, lineEnd).replace(/\r$/, '');
      push(line, line === from.line ? from.character : 0, text.length, style);
    }
  }
  return data;
}
