// The rlx syntax tree: plain data, one tree per file, every node with its source range.
// It knows nothing of the checker, LSP, VS Code or the trainer (rust-analyzer's syntax layer
// is the model). Ranges are UTF-16 offsets into the file text, like JavaScript strings and LSP.

export interface Range {
  /** Offset of the first character. */
  start: number;
  /** Offset just past the last character. */
  end: number;
}

export const DECLARATION_KINDS = ['env', 'reward', 'policy', 'algorithm', 'experiment', 'sweep'] as const;
export type DeclKind = (typeof DECLARATION_KINDS)[number];

export interface Identifier {
  kind: 'Identifier';
  text: string;
  range: Range;
}

export interface Comment {
  kind: 'Comment';
  /** `line` is `// ...`, `block` is `/* ... *\/`, `doc` is `/// ...`. */
  style: 'line' | 'block' | 'doc';
  text: string;
  range: Range;
}

export interface SourceFile {
  kind: 'File';
  imports: Import[];
  declarations: Declaration[];
  /** Every comment in the file in source order, doc comments included (the formatter keeps them all). */
  comments: Comment[];
  range: Range;
}

export interface Import {
  kind: 'Import';
  path: StringLiteral | undefined;
  range: Range;
}

export interface Declaration {
  kind: 'Declaration';
  declKind: DeclKind;
  keywordRange: Range;
  name: Identifier | undefined;
  /** `= Base`: a built-in or another declaration of the same kind, maybe with arguments. */
  base: BaseRef | undefined;
  /** `sweep X over Experiment`. */
  over: QualifiedName | undefined;
  body: Body | undefined;
  /** Text of the `///` comments directly above the declaration, markers stripped. */
  doc: string | undefined;
  range: Range;
}

/** `Name`, `Name(args)`, or `module("./file.ts")` (a call of the name `module`). */
export interface BaseRef {
  kind: 'BaseRef';
  name: QualifiedName;
  args: Argument[] | undefined;
  range: Range;
}

export interface Body {
  kind: 'Body';
  members: Member[];
  /** False when the closing brace is missing (recovered by the parser). */
  closed: boolean;
  range: Range;
}

export type Member = Property | Block | NamedMember;

/** `path.to.prop: value` */
export interface Property {
  kind: 'Property';
  path: Identifier[];
  value: Expression | undefined;
  range: Range;
}

/** `eval { ... }`, `curriculum { ... }`, `goals { ... }` */
export interface Block {
  kind: 'Block';
  name: Identifier;
  body: Body;
  range: Range;
}

/** `term name = expr` or `stage name = Base { ... }` */
export interface NamedMember {
  kind: 'Named';
  memberKind: 'term' | 'stage';
  keywordRange: Range;
  name: Identifier | undefined;
  /** Set for `= expr`. */
  value: Expression | undefined;
  /** Set for `= Base { ... }`. */
  base: BaseRef | undefined;
  body: Body | undefined;
  range: Range;
}

export type Expression =
  | NumberLiteral
  | StringLiteral
  | BooleanLiteral
  | NoneLiteral
  | QualifiedName
  | Call
  | ListExpression
  | UnaryExpression
  | BinaryExpression
  | ParenExpression;

export interface NumberLiteral {
  kind: 'Number';
  /** The value with any `k`/`M` suffix applied. */
  value: number;
  /** The text as written, e.g. `2.5e-4` or `500k`. */
  raw: string;
  range: Range;
}

export interface StringLiteral {
  kind: 'String';
  /** Unescaped value. */
  value: string;
  raw: string;
  range: Range;
}

export interface BooleanLiteral {
  kind: 'Boolean';
  value: boolean;
  range: Range;
}

export interface NoneLiteral {
  kind: 'None';
  range: Range;
}

/** `a` or `a.b.c` */
export interface QualifiedName {
  kind: 'Name';
  parts: Identifier[];
  range: Range;
}

export interface Call {
  kind: 'Call';
  callee: QualifiedName;
  args: Argument[];
  range: Range;
}

export interface Argument {
  kind: 'Argument';
  name: Identifier | undefined;
  value: Expression | undefined;
  range: Range;
}

export interface ListExpression {
  kind: 'List';
  items: Expression[];
  range: Range;
}

export type UnaryOperator = '-' | 'not';
export interface UnaryExpression {
  kind: 'Unary';
  operator: UnaryOperator;
  operand: Expression | undefined;
  range: Range;
}

export type BinaryOperator = 'or' | 'and' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/' | '^';
export interface BinaryExpression {
  kind: 'Binary';
  operator: BinaryOperator;
  left: Expression;
  right: Expression | undefined;
  range: Range;
}

export interface ParenExpression {
  kind: 'Paren';
  expression: Expression | undefined;
  range: Range;
}

export type Node =
  | SourceFile
  | Import
  | Declaration
  | BaseRef
  | Body
  | Member
  | Expression
  | Argument
  | Identifier;

export function nameText(name: QualifiedName): string {
  return name.parts.map((p) => p.text).join('.');
}
