// The syntax tree for every production of docs/language.md#grammar: shapes, precedence and
// associativity (printed as s-expressions so a test reads like the tree), literals, doc
// comments, and the exact ranges of nodes (marked ⟦like this⟧ in the source).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defaultParserErrorProvider } from '#chevrotain';
import { parse, type Declaration, type Expression, type Member, type Node, type Range, type SourceFile } from '../../dsl/index.js';
import { RlxGrammar } from '../../dsl/syntax/grammar.js';
import { stripMarkers } from '../helpers/source.js';

// Parsing skips Chevrotain's grammar validations (they cost every process ~12 ms): run them here.
test('the grammar passes Chevrotain\'s validations (no ambiguity, no left recursion)', () => {
  assert.doesNotThrow(() => new RlxGrammar(defaultParserErrorProvider, { validate: true }));
});

/** Parses a file that must have no syntax errors. */
function parseClean(text: string): SourceFile {
  const { file, errors } = parse(text);
  assert.deepEqual(errors, [], `unexpected syntax errors in:\n${text}`);
  return file;
}

/** An expression as an s-expression: `(+ a (* b c))`, calls as `f(a, k: b)`, lists as `[a b]`. */
function sx(e: Expression | undefined): string {
  if (!e) return '<missing>';
  switch (e.kind) {
    case 'Number': return String(e.value);
    case 'String': return JSON.stringify(e.value);
    case 'Boolean': return String(e.value);
    case 'None': return 'none';
    case 'Name': return e.parts.map((p) => p.text).join('.');
    case 'Call': return `${sx(e.callee)}(${e.args.map((a) => (a.name ? `${a.name.text}: ` : '') + sx(a.value)).join(', ')})`;
    case 'List': return `[${e.items.map(sx).join(' ')}]`;
    case 'Unary': return `(${e.operator} ${sx(e.operand)})`;
    case 'Binary': return `(${e.operator} ${sx(e.left)} ${sx(e.right)})`;
    case 'Paren': return `(paren ${sx(e.expression)})`;
  }
}

/** The value of `x: <text>` in an experiment body. */
function expr(text: string): Expression {
  const file = parseClean(`experiment E {\n  x: ${text}\n}\n`);
  const member = file.declarations[0].body!.members[0];
  assert.equal(member.kind, 'Property');
  return (member as Member & { kind: 'Property' }).value!;
}

function only<T>(items: T[]): T {
  assert.equal(items.length, 1);
  return items[0];
}

/** Exactly one marked range in `marked`; returns the parsed file and that range. */
function marked(source: string): { file: SourceFile; text: string; range: Range } {
  const { text, marks } = stripMarkers(source);
  return { file: parseClean(text), text, range: only(marks) };
}

function rangeOf(node: { range: Range } | undefined): Range | undefined {
  return node && { start: node.range.start, end: node.range.end };
}

describe('parser: expressions', () => {
  test('precedence: or < and < not < comparison < sum < product < unary minus < ^', () => {
    assert.equal(sx(expr('a or b and not c == d + e * -f ^ g')), '(or a (and b (not (== c (+ d (* e (- (^ f g))))))))');
  });

  test('^ is right-associative and binds tighter than unary minus on its left', () => {
    assert.equal(sx(expr('a ^ b ^ c')), '(^ a (^ b c))');
    assert.equal(sx(expr('-a ^ b')), '(- (^ a b))');
    assert.equal(sx(expr('a ^ -b')), '(^ a (- b))');
    assert.equal(sx(expr('2 ^ -b ^ c')), '(^ 2 (- (^ b c)))');
  });

  test('the other binary operators are left-associative', () => {
    assert.equal(sx(expr('a - b - c')), '(- (- a b) c)');
    assert.equal(sx(expr('a / b * c')), '(* (/ a b) c)');
    assert.equal(sx(expr('a or b or c')), '(or (or a b) c)');
    assert.equal(sx(expr('a and b and c')), '(and (and a b) c)');
    assert.equal(sx(expr('a + b * c - d / e')), '(- (+ a (* b c)) (/ d e))');
  });

  test('every comparison operator', () => {
    for (const op of ['==', '!=', '<', '<=', '>', '>=']) assert.equal(sx(expr(`a ${op} b + 1`)), `(${op} a (+ b 1))`);
  });

  test('comparisons do not chain, and not/minus do not repeat (as the grammar says)', () => {
    for (const text of ['a < b < c', 'not not a', '- -a']) {
      assert.ok(parse(`experiment E { x: ${text} }`).errors.length > 0, `'${text}' should be a syntax error`);
    }
  });

  test('parentheses', () => {
    assert.equal(sx(expr('(a + b) * c')), '(* (paren (+ a b)) c)');
    assert.equal(sx(expr('not (a or b)')), '(not (paren (or a b)))');
    assert.equal(sx(expr('-(1)')), '(- (paren 1))');
  });

  test('primaries: numbers, strings, true, false, none', () => {
    assert.equal(sx(expr('[42, 0.99, 3e-4, "s", true, false, none]')), '[42 0.99 0.0003 "s" true false none]');
  });

  test('qualified names, keywords allowed as segments', () => {
    assert.deepEqual((expr('eval.mean_return') as Expression & { kind: 'Name' }).parts.map((p) => p.text), ['eval', 'mean_return']);
    assert.equal(sx(expr('env.size')), 'env.size');
    assert.equal(sx(expr('a.b.c')), 'a.b.c');
    assert.equal(sx(expr('algorithm.learning_rate * 2')), '(* algorithm.learning_rate 2)');
  });

  test('calls with positional and named arguments', () => {
    assert.equal(sx(expr('linear(1.0, 0.05, over: 0.3)')), 'linear(1, 0.05, over: 0.3)');
    assert.equal(sx(expr('f()')), 'f()');
    assert.equal(sx(expr('clip(abs(obs.x), -1, 1)')), 'clip(abs(obs.x), (- 1), 1)');
    assert.equal(sx(expr('a.b(x: 1)')), 'a.b(x: 1)');
    assert.equal(sx(expr('random(samples: 20)')), 'random(samples: 20)');
    // A keyword may name an argument too.
    assert.equal(sx(expr('f(env: 1)')), 'f(env: 1)');
  });

  test('lists, with and without a trailing comma, nested, empty', () => {
    assert.equal(sx(expr('[1, 2, 3]')), '[1 2 3]');
    assert.equal(sx(expr('[1, 2, 3,]')), '[1 2 3]');
    assert.equal(sx(expr('[\n    64,\n    64,\n  ]')), '[64 64]');
    assert.equal(sx(expr('[]')), '[]');
    assert.equal(sx(expr('[[1], [2, 3]]')), '[[1] [2 3]]');
    assert.equal(sx(expr('[1e-4, 3e-4, 1e-3]')), '[0.0001 0.0003 0.001]');
  });

  test('lists need commas between items, and one trailing comma at most', () => {
    for (const text of ['[64 64]', '[1,,2]', '[,]', '[1,,]']) {
      assert.ok(parse(`policy P = mlp { hidden: ${text} }`).errors.length > 0, `'${text}' should be a syntax error`);
    }
  });
});

describe('parser: literals', () => {
  test('numbers with count suffixes', () => {
    const cases: [string, number][] = [['500k', 500_000], ['1.5M', 1_500_000], ['200k', 200_000], ['2k', 2000], ['1M', 1e6], ['0.5k', 500], ['42', 42], ['0.99', 0.99], ['3e-4', 3e-4], ['2.5e-4', 2.5e-4], ['1E3', 1000], ['1e+2', 100]];
    for (const [raw, value] of cases) {
      const e = expr(raw);
      assert.ok(e.kind === 'Number', raw);
      assert.equal(e.value, value, raw);
      assert.equal(e.raw, raw);
    }
  });

  test('a number may not run into a name', () => {
    for (const raw of ['200kb', '1.5.3', '3x', '1e', '12_000']) {
      const { errors, file } = parse(`env A = CartPole { max_steps: ${raw} }`);
      assert.deepEqual(errors.map((e) => [e.code, e.range]), [['invalid-character', { start: 30, end: 30 + raw.length }]], raw);
      const prop = file.declarations[0].body!.members[0];
      assert.ok(prop.kind === 'Property' && prop.value === undefined, `no value for '${raw}', so no second error about it`);
    }
  });

  test('string escapes: \\" \\\\ \\n', () => {
    const e = expr(String.raw`"say \"hi\"\\n\n"`);
    assert.ok(e.kind === 'String');
    assert.equal(e.value, 'say "hi"\\n\n');
    assert.equal(e.raw, String.raw`"say \"hi\"\\n\n"`);
    assert.equal((expr('""') as Expression & { kind: 'String' }).value, '');
    assert.equal((expr('"^[0-9]+$"') as Expression & { kind: 'String' }).value, '^[0-9]+$');
  });

  test('comments are kept in order with their style', () => {
    const file = parseClean('// line\n/* block\n */\n/// doc\nenv A = CartPole {} // trailing\n');
    assert.deepEqual(file.comments.map((c) => [c.style, c.text]), [
      ['line', '// line'], ['block', '/* block\n */'], ['doc', '/// doc'], ['line', '// trailing'],
    ]);
  });
});

describe('parser: declarations and members', () => {
  test('a file of imports and declarations of every kind', () => {
    const file = parseClean(`import "./envs.rlx"
import "../shared/policies.rlx"
env Pole = CartPole { max_steps: 500 }
reward Upright { term alive = 1.0 }
policy Actor = mlp { hidden: [64, 64] }
algorithm Tuned = PPO { clip: 0.2 }
experiment Balance { env: Pole }
sweep LrScan over Balance { algorithm.learning_rate: [1e-4, 3e-4] }
`);
    assert.deepEqual(file.imports.map((i) => i.path?.value), ['./envs.rlx', '../shared/policies.rlx']);
    assert.deepEqual(file.declarations.map((d) => [d.declKind, d.name?.text]), [
      ['env', 'Pole'], ['reward', 'Upright'], ['policy', 'Actor'], ['algorithm', 'Tuned'], ['experiment', 'Balance'], ['sweep', 'LrScan'],
    ]);
  });

  test('a declaration may have no base and no body', () => {
    const [a, b, c] = parseClean('experiment A\nreward B {}\nexperiment C = A\n').declarations;
    assert.deepEqual([a.name?.text, a.base, a.body], ['A', undefined, undefined]);
    assert.deepEqual([b.base, b.body?.members], [undefined, []]);
    assert.deepEqual([c.base?.name.parts.map((p) => p.text), c.body], [['A'], undefined]);
  });

  test('bases: a name, a qualified name, a call, module("./x.ts")', () => {
    const [a, b, c, d] = parseClean('env A = CartPole {}\nenv B = gym.CartPole {}\nenv C = CartPole(1, k: 2) {}\nenv D = module("./my_env.ts") { size: 3 }\n').declarations;
    assert.equal(sx(a.base!.name), 'CartPole');
    assert.equal(a.base!.args, undefined, 'no parentheses: no argument list');
    assert.equal(sx(b.base!.name), 'gym.CartPole');
    assert.deepEqual(c.base!.args!.map((x) => [x.name?.text, sx(x.value)]), [[undefined, '1'], ['k', '2']]);
    assert.equal(sx(d.base!.name), 'module');
    assert.deepEqual(d.base!.args!.map((x) => sx(x.value)), ['"./my_env.ts"']);
    assert.equal(d.body!.members.length, 1);
  });

  test('sweep X over Y', () => {
    const sweep = only(parseClean('sweep LrScan over Balance {\n  seeds: [1, 2, 3]\n}\n').declarations);
    assert.equal(sweep.declKind, 'sweep');
    assert.equal(sx(sweep.over), 'Balance');
    assert.equal(sweep.base, undefined);
  });

  test('members: properties, dotted paths, blocks, terms, stages; commas or newlines between them', () => {
    const e = only(parseClean(`experiment E {
  env: Pole, policy: Actor
  algorithm.learning_rate: [1e-4, 3e-4]
  eval { every: 10k, episodes: 10 }
  curriculum {
    param: env.size
  }
  stage warmup = SFT { updates: 2k, data: demos }
  stage main   = Grpo { budget: 50k }
}
`).declarations);
    const members = e.body!.members;
    assert.deepEqual(members.map((m) => m.kind), ['Property', 'Property', 'Property', 'Block', 'Block', 'Named', 'Named']);
    const [env, , sweepPath, evalBlock, curriculum, warmup, main] = members;
    assert.ok(env.kind === 'Property' && sweepPath.kind === 'Property');
    assert.deepEqual(env.path.map((p) => p.text), ['env']);
    assert.equal(sx(env.value), 'Pole');
    assert.deepEqual(sweepPath.path.map((p) => p.text), ['algorithm', 'learning_rate']);
    assert.ok(evalBlock.kind === 'Block' && curriculum.kind === 'Block');
    assert.equal(evalBlock.name.text, 'eval');
    assert.deepEqual(evalBlock.body.members.map((m) => m.kind === 'Property' && [m.path[0].text, sx(m.value)]), [['every', '10000'], ['episodes', '10']]);
    assert.equal(sx((curriculum.body.members[0] as Member & { kind: 'Property' }).value), 'env.size');
    assert.ok(warmup.kind === 'Named' && main.kind === 'Named');
    assert.deepEqual([warmup.memberKind, warmup.name?.text, sx(warmup.base?.name), warmup.value], ['stage', 'warmup', 'SFT', undefined]);
    assert.deepEqual(warmup.body!.members.map((m) => m.kind === 'Property' && [m.path[0].text, sx(m.value)]), [['updates', '2000'], ['data', 'demos']]);
    assert.deepEqual([main.memberKind, main.name?.text, sx(main.base?.name)], ['stage', 'main', 'Grpo']);
    assert.deepEqual(main.body!.members.map((m) => m.kind === 'Property' && [m.path[0].text, sx(m.value)]), [['budget', '50000']]);
  });

  test('term NAME = expression', () => {
    const reward = only(parseClean('reward Upright {\n  term alive  = 1.0\n  term centre = -0.05 * abs(obs.x)\n  replace_env_reward: true\n}\n').declarations);
    const [alive, centre, replace] = reward.body!.members;
    assert.ok(alive.kind === 'Named' && centre.kind === 'Named' && replace.kind === 'Property');
    assert.deepEqual([alive.memberKind, alive.name?.text, sx(alive.value), alive.base, alive.body], ['term', 'alive', '1', undefined, undefined]);
    assert.equal(sx(centre.value), '(* (- 0.05) abs(obs.x))');
    assert.equal(sx(replace.value), 'true');
  });

  test('keywords as property names and name segments', () => {
    const e = only(parseClean('experiment E {\n  env: Pole\n  policy: Actor\n  algorithm: Tuned\n  reward: R\n  stage: 1\n  term: 2\n  over: 3\n  import: 4\n  curriculum { param: env.size }\n}\n').declarations);
    const names = e.body!.members.map((m) => (m.kind === 'Property' ? m.path.map((p) => p.text).join('.') : m.kind));
    assert.deepEqual(names, ['env', 'policy', 'algorithm', 'reward', 'stage', 'term', 'over', 'import', 'Block']);
  });

  test('sweep paths may start with a keyword', () => {
    const sweep = only(parseClean('sweep S over B { env.max_steps: [100, 200], policy.hidden: [[32], [64]] }').declarations);
    assert.deepEqual(sweep.body!.members.map((m) => m.kind === 'Property' && m.path.map((p) => p.text)), [['env', 'max_steps'], ['policy', 'hidden']]);
  });
});

describe('parser: doc comments', () => {
  function docs(text: string): Record<string, string | undefined> {
    return Object.fromEntries(parseClean(text).declarations.map((d: Declaration) => [d.name!.text, d.doc]));
  }

  test('/// lines directly above a declaration are its documentation', () => {
    assert.deepEqual(docs('/// Goal-reaching with hindsight.\n///   indented stays indented\nalgorithm Her = DQN {}\n'), { Her: 'Goal-reaching with hindsight.\n  indented stays indented' });
  });

  test('not across a blank line, not from a plain comment, not from inside another declaration', () => {
    assert.deepEqual(docs('/// detached\n\nenv A = CartPole {}\n// plain\nenv B = CartPole {}\nenv C = CartPole {\n  /// inside\n}\nenv D = CartPole {}\n'), { A: undefined, B: undefined, C: undefined, D: undefined });
  });

  test('only the /// lines after the last plain comment count', () => {
    assert.deepEqual(docs('/// one\n// two\n/// three\nenv A = CartPole {}\n'), { A: 'three' });
  });

  test('each declaration gets its own', () => {
    assert.deepEqual(docs('/// first\nenv A = CartPole {}\n/// second\nenv B = CartPole {}\n'), { A: 'first', B: 'second' });
  });
});

describe('parser: exact ranges', () => {
  function declaration(source: string): { decl: Declaration; range: Range; text: string } {
    const { file, range, text } = marked(source);
    return { decl: only(file.declarations), range, text };
  }

  test('a declaration runs from its keyword to its closing brace, doc comment excluded', () => {
    const { decl, range } = declaration('/// doc\n⟦algorithm Tuned = PPO {\n  clip: 0.2\n}⟧\n');
    assert.deepEqual(decl.range, range);
  });

  test('keyword, name, base, body', () => {
    const text = 'algorithm Tuned = PPO { clip: 0.2 }';
    const decl = only(parseClean(text).declarations);
    assert.deepEqual(decl.keywordRange, { start: 0, end: 9 });
    assert.deepEqual(rangeOf(decl.name), { start: 10, end: 15 });
    assert.deepEqual(rangeOf(decl.base), { start: 18, end: 21 });
    assert.deepEqual(rangeOf(decl.body), { start: 22, end: 35 });
  });

  test('a base with arguments covers the parentheses', () => {
    const { decl, range } = declaration('env M = ⟦module("./m.ts")⟧ { }');
    assert.deepEqual(rangeOf(decl.base), range);
  });

  test('over', () => {
    const { decl, range } = declaration('sweep S over ⟦Balance⟧ { }');
    assert.deepEqual(rangeOf(decl.over), range);
  });

  test('a property covers its path and value', () => {
    const { decl, range } = declaration('experiment E {\n  ⟦algorithm.learning_rate: [1e-4, 3e-4]⟧\n}');
    assert.deepEqual(rangeOf(decl.body!.members[0]), range);
  });

  test('a block covers its name and body', () => {
    const { decl, range } = declaration('experiment E {\n  ⟦eval { every: 1k }⟧\n}');
    assert.deepEqual(rangeOf(decl.body!.members[0]), range);
  });

  test('a term covers the keyword to the end of its expression', () => {
    const { decl, range } = declaration('reward R {\n  ⟦term tilt = -0.1 * abs(next_obs.theta)⟧\n}');
    const term = decl.body!.members[0];
    assert.deepEqual(rangeOf(term), range);
    assert.ok(term.kind === 'Named');
    assert.deepEqual(term.keywordRange, { start: range.start, end: range.start + 4 });
  });

  test('a stage covers the keyword to its closing brace', () => {
    const { decl, range } = declaration('experiment E {\n  ⟦stage main = Grpo { budget: 50k }⟧\n}');
    assert.deepEqual(rangeOf(decl.body!.members[0]), range);
  });

  function valueRange(source: string, pick: (e: Expression) => Node | undefined = (e) => e): void {
    const { decl, range, text } = declaration(source);
    const prop = decl.body!.members[0];
    assert.ok(prop.kind === 'Property');
    const node = pick(prop.value!);
    assert.deepEqual(rangeOf(node as { range: Range }), range, `range of ${JSON.stringify(text.slice(range.start, range.end))}`);
  }

  test('expression nodes', () => {
    valueRange('experiment E { x: ⟦a + b * c⟧ }');
    valueRange('experiment E { x: a + ⟦b * c⟧ }', (e) => (e.kind === 'Binary' ? e.right : undefined));
    valueRange('experiment E { x: ⟦-f ^ g⟧ }');
    valueRange('experiment E { x: -⟦f ^ g⟧ }', (e) => (e.kind === 'Unary' ? e.operand : undefined));
    valueRange('experiment E { x: ⟦not a⟧ }');
    valueRange('experiment E { x: ⟦(a or b)⟧ }');
    valueRange('experiment E { x: ⟦linear(1, 0, over: 0.5)⟧ }');
    valueRange('experiment E { x: linear(1, 0, ⟦over: 0.5⟧) }', (e) => (e.kind === 'Call' ? e.args[2] : undefined));
    valueRange('experiment E { x: ⟦eval.mean_return⟧ >= 1 }', (e) => (e.kind === 'Binary' ? e.left : undefined));
    valueRange('experiment E { x: ⟦[1, 2, ]⟧ }');
    valueRange('experiment E { x: ⟦"a \\"b\\""⟧ }');
    valueRange('experiment E { x: ⟦1.5M⟧ }');
    valueRange('experiment E { x: ⟦none⟧ }');
  });

  test('identifiers in a qualified name', () => {
    const { decl, text } = declaration('experiment E { x: ⟦env.size⟧ }');
    const value = (decl.body!.members[0] as Member & { kind: 'Property' }).value;
    assert.ok(value?.kind === 'Name');
    assert.deepEqual(value.parts.map((p) => text.slice(p.range.start, p.range.end)), ['env', 'size']);
  });

  test('an import covers the keyword and the path', () => {
    const { file, range } = marked('⟦import "./a.rlx"⟧\nenv A = CartPole {}');
    assert.deepEqual(rangeOf(file.imports[0]), range);
  });

  test('ranges count UTF-16 code units, like JavaScript strings and LSP', () => {
    const { file, range } = marked('/// π ≈ 3.14 🥧\n⟦env A = CartPole {}⟧');
    assert.deepEqual(file.declarations[0].range, range);
    assert.equal(file.declarations[0].doc, 'π ≈ 3.14 🥧');
  });

  test('the file covers the whole text', () => {
    const text = '\n\nenv A = CartPole {}\n\n// end\n';
    assert.deepEqual(parseClean(text).range, { start: 0, end: text.length });
  });
});

describe('parse never throws', () => {
  test('on empty, blank and odd inputs', () => {
    for (const text of ['', ' ', '\n', '{', '}', '"', '/*', '///', '\u0000', 'env', 'env A =', 'import', '((((', '[[[[', '\uFEFFenv A = CartPole {}', 'é']) {
      const { file, errors } = parse(text);
      assert.equal(file.kind, 'File');
      for (const e of errors) assert.ok(e.range.start >= 0 && e.range.start <= e.range.end && e.range.end <= text.length, JSON.stringify(text));
    }
  });
});

describe('operator misuse the EBNF rules out', () => {
  const errorsOf = (src: string) => parse(src).errors.map((e) => `${src.slice(e.range.start, e.range.end)}: ${e.message}`);

  test('a second comparison in a row is an error at its operator', () => {
    assert.deepEqual(errorsOf('experiment E { stop: a < b <= c }'), ["<=: comparisons do not chain: write 'a < b and b < c' instead of 'a < b < c'"]);
    assert.deepEqual(errorsOf('experiment E { stop: (a < b) == c }'), [], 'parentheses make it one comparison');
  });

  test("'not' only where a condition may start, and no doubled prefixes", () => {
    assert.deepEqual(errorsOf('experiment E { stop: a * not b }'), ["not: 'not' cannot stand here; put the negated condition in parentheses"]);
    assert.deepEqual(errorsOf('experiment E { stop: a and not b }'), []);
    assert.deepEqual(errorsOf('experiment E { x: --a }'), ["-: '-' cannot be followed by another '-'"]);
    assert.deepEqual(errorsOf('experiment E { x: not not a }'), ["not: 'not' cannot be followed by another 'not'"]);
    assert.deepEqual(errorsOf('experiment E { x: 2 ^ -1 }'), [], 'a negated exponent is fine');
  });
});
