// Checks of a declaration's base: `= Name`, `= module("./file.ts")`, `over Experiment`.
import { GYMNASIUM_BASE, GYMNASIUM_ID, PYTHON_BASE, PYTHON_IDENTIFIER, pythonClassTarget } from '../schema/python-env.js';
import { PYTHON_TEXT_BASE, PYTHON_TEXT_METHODS } from '../schema/python-text-env.js';
import { closestNames, didYouMean } from '../diagnostics.js';
import { builtinsOfKind, takesFolder } from '../schema/index.js';
import type { Argument, DeclKind, Identifier, Range } from '../syntax/ast.js';
import { declaredObservations, type DeclSymbol } from '../semantics/model.js';
import type { CheckContext } from './context.js';
import { checkFolderBase } from './pretrained.js';

const BUILTIN_BASED: DeclKind[] = ['env', 'policy', 'algorithm'];

/** The module's file exists, and what it declares (`export const spec`) can be read; reported at the path. */
function checkModuleFile(ctx: CheckContext, symbol: DeclSymbol, at: Range): void {
  const module = ctx.model.envModule(symbol);
  if (!module) return;
  const { read, written } = module;
  const learner = symbol.decl.declKind === 'algorithm';
  if (read.kind === 'missing') {
    ctx.accept('error', 'module-not-found', `cannot read '${written}' (looked for ${module.file}); module("...") paths are relative to this file`, at);
  } else if (read.kind === 'invalid') {
    ctx.accept('error', 'invalid-module-spec', `${written}:${read.line}: ${read.message} (${learner ? 'docs/learners.md#writing-a-learner-module' : 'docs/language.md#user-environments'})`, at);
  } else if (learner && read.kind !== 'learner') {
    ctx.accept('error', 'invalid-module-spec', read.kind === 'declared'
      ? `${written} declares an environment's spec (actions, observations), not a learner's; use it as \`env X = module("${written}")\`, or declare \`export const spec = { kind: 'text', settings: { ... } }\` (docs/learners.md#writing-a-learner-module)`
      : `${written} does not declare its settings: a learner module states them, and its kind, so the checker knows them without running it; add \`export const spec = { kind: 'text', settings: { ... } }\` (docs/learners.md#writing-a-learner-module)`, at);
  } else if (!learner && read.kind === 'learner') {
    ctx.accept('error', 'invalid-module-spec', `${written} declares a learner's spec (kind, settings), not an environment's; use it as \`algorithm X = module("${written}")\``, at);
  } else if (read.kind === 'undeclared') {
    ctx.accept('info', 'undeclared-module-spec',
      `${written} does not declare its names, so reward terms are checked against them only when training starts; ` +
        "add `export const spec = { observations: ['x', ...], actions: 'discrete', info: [...] }` to it (docs/language.md#user-environments)", at);
  }
}

/**
 * `gymnasium("CartPole-v1")`: an env, one id in quotes. The id itself is looked up by Python when
 * training starts, or earlier by a probe where the host runs one (semantics/python-env.ts): a
 * probe that failed is a warning here, since training would report the same.
 */
function checkGymnasiumBase(ctx: CheckContext, symbol: DeclSymbol, args: readonly Argument[], at: Range): void {
  const kind = symbol.decl.declKind;
  if (kind !== 'env') {
    ctx.accept('error', 'invalid-base', `gymnasium("...") makes an environment; ${article(kind)} ${kind} cannot come from it`, at);
    return;
  }
  const arg = args[0];
  if (args.length !== 1 || arg.name || arg.value?.kind !== 'String') {
    ctx.accept('error', 'wrong-arguments', 'gymnasium takes one registered Gymnasium id in quotes: gymnasium("CartPole-v1") (docs/python-envs.md)', at);
  } else if (!GYMNASIUM_ID.test(arg.value.value)) {
    ctx.accept('error', 'type-mismatch', `"${arg.value.value}" is not a Gymnasium id; ids look like "CartPole-v1" or "my_package/MyEnv-v0" (docs/python-envs.md)`, arg.value.range);
  } else {
    checkProbed(ctx, symbol, at);
  }
}

/** What a probe of the env found wrong (a host probes only where it may run Python): it failed, or it has another number of observations than the declaration names. */
function checkProbed(ctx: CheckContext, symbol: DeclSymbol, at: Range): void {
  const python = ctx.model.pythonEnv(symbol);
  const read = python?.read;
  if (!python || read === undefined || read === 'pending') return;
  if (read.kind === 'failed' && read.refused) {
    ctx.accept('error', 'python-env-probe-failed', `\`rlx train\` would refuse ${python.label}: ${read.message}`, at);
    return;
  }
  if (read.kind === 'failed') {
    ctx.accept('warning', 'python-env-probe-failed', `probing ${python.label} failed, so its observation names and action kind are not checked; training would fail the same way: ${read.message}`, at);
    return;
  }
  if (read.image) {
    const { key, shape } = read.image;
    // A cnn policy reads a whole observation of [C, H, W] or [H, W, C] pixels; an mlp takes them as they are.
    const cnnReads = key === '' && shape.length === 3;
    const advice = cnnReads
      ? 'use a cnn policy (`policy Eyes = cnn { encoder: impala }`), which reads it as an image scaled to [0, 1]'
      : 'a cnn policy reads only a whole observation of 3 dimensions; expect little learning from pixels: wrap the env to observe features, or at least scale them to [0, 1]';
    ctx.accept('warning', 'image-observations', `${python.label} observes an image${key ? ` (key '${key}')` : ''}: uint8 pixels of shape ${shape.join('x')}, which an mlp policy takes flattened and unscaled (0-255); ${advice}`, at);
  }
  const declared = declaredObservations(ctx.model.effective(symbol));
  const count = read.observationNames.length;
  if (declared && declared.length !== count) {
    const stated = ctx.model.effective(symbol).properties.get('observations');
    const where = stated?.owner === symbol ? stated.node.path[0].range : at;
    ctx.accept('error', 'type-mismatch', `observations names ${declared.length} number${declared.length === 1 ? '' : 's'}, but ${python.label} observes ${count} (as probed: ${read.observationNames.join(', ')}); name each of them, in order`, where);
  }
}

/**
 * `python("./envs/reacher.py:Reacher")`: an env, a .py file relative to this file and the
 * Gymnasium Env class it defines. The file must exist; a class it does not seem to define is a
 * warning (read from its text: the checker never runs Python).
 */
function checkPythonBase(ctx: CheckContext, symbol: DeclSymbol, args: readonly Argument[], at: Range): void {
  const kind = symbol.decl.declKind;
  if (kind !== 'env') {
    ctx.accept('error', 'invalid-base', `python("...") makes an environment; ${article(kind)} ${kind} cannot come from it`, at);
    return;
  }
  const arg = args[0];
  if (args.length !== 1 || arg.name || arg.value?.kind !== 'String') {
    ctx.accept('error', 'wrong-arguments', 'python takes one file and class in quotes: python("./envs/my_env.py:MyEnv") (docs/python-envs.md)', at);
    return;
  }
  const written = arg.value.value;
  const target = pythonClassTarget(written);
  if (!target || !target.file.endsWith('.py')) {
    ctx.accept('error', 'type-mismatch', `"${written}" is not a file and a class: write python("./envs/my_env.py:MyEnv"), a .py file relative to this file, a colon, and the Gymnasium Env class it defines (docs/python-envs.md)`, arg.value.range);
    return;
  }
  if (!PYTHON_IDENTIFIER.test(target.className)) {
    ctx.accept('error', 'type-mismatch', `'${target.className}' is not a Python class name; write the class after the colon: python("${target.file}:MyEnv")`, arg.value.range);
    return;
  }
  const module = ctx.model.envModule(symbol);
  if (!module) return;
  if (module.read.kind === 'missing') {
    ctx.accept('error', 'module-not-found', `cannot read '${target.file}' (looked for ${module.file}); python("...") paths are relative to this file`, arg.value.range);
  } else if (module.read.kind === 'python' && !module.read.names.includes(target.className)) {
    ctx.accept('warning', 'unknown-name', `${target.file} does not seem to define ${target.className} (no \`class ${target.className}\` in it); training will fail if Python cannot find it there`, arg.value.range);
  } else {
    checkProbed(ctx, symbol, at);
  }
}

/**
 * `python_text("./envs/shop.py:Shop")`: a text env, a .py file relative to this file and the
 * class it defines, with reset() and step(). The file must exist; a class it does not seem to
 * define, or one without those methods, is a warning (read from its text: the checker never runs
 * Python, and a name made otherwise is not seen); training refuses the same, naming them.
 */
function checkPythonTextBase(ctx: CheckContext, symbol: DeclSymbol, args: readonly Argument[], at: Range): void {
  const kind = symbol.decl.declKind;
  if (kind !== 'env') {
    ctx.accept('error', 'invalid-base', `python_text("...") makes a text environment; ${article(kind)} ${kind} cannot come from it`, at);
    return;
  }
  const arg = args[0];
  if (args.length !== 1 || arg.name || arg.value?.kind !== 'String') {
    ctx.accept('error', 'wrong-arguments', 'python_text takes one file and class in quotes: python_text("./envs/shop.py:Shop") (docs/agents.md)', at);
    return;
  }
  const written = arg.value.value;
  const target = pythonClassTarget(written);
  if (!target || !target.file.endsWith('.py')) {
    ctx.accept('error', 'type-mismatch', `"${written}" is not a file and a class: write python_text("./envs/shop.py:Shop"), a .py file relative to this file, a colon, and the text env class it defines (docs/agents.md)`, arg.value.range);
    return;
  }
  if (!PYTHON_IDENTIFIER.test(target.className)) {
    ctx.accept('error', 'type-mismatch', `'${target.className}' is not a Python class name; write the class after the colon: python_text("${target.file}:Shop")`, arg.value.range);
    return;
  }
  const module = ctx.model.envModule(symbol);
  if (!module) return;
  if (module.read.kind === 'missing') {
    ctx.accept('error', 'module-not-found', `cannot read '${target.file}' (looked for ${module.file}); python_text("...") paths are relative to this file`, arg.value.range);
  } else if (module.read.kind === 'python' && !module.read.names.includes(target.className)) {
    ctx.accept('warning', 'unknown-name', `${target.file} does not seem to define ${target.className} (no \`class ${target.className}\` in it); training will fail if Python cannot find it there`, arg.value.range);
  } else if (module.read.kind === 'python') {
    const own = module.read.methods?.[target.className];
    const missing = own ? PYTHON_TEXT_METHODS.filter((m) => !own.includes(m)) : [];
    if (missing.length > 0) {
      ctx.accept('warning', 'unknown-name', `${target.className} in ${target.file} has no method ${missing.join(' or ')}; a Python text env has reset(seed=None, options=None) -> (observation, info) and step(action: str) -> (observation, reward, terminated, truncated, info) (docs/agents.md); training will refuse it`, arg.value.range);
    }
  }
}

function article(kind: string): string {
  return /^[aeiou]/.test(kind) ? 'an' : 'a';
}

export function checkBase(ctx: CheckContext, symbol: DeclSymbol): void {
  const { decl } = symbol;
  const kind = decl.declKind;
  const nameRange = decl.name?.range ?? decl.keywordRange;

  if (kind === 'sweep') {
    if (decl.base) ctx.accept('error', 'invalid-base', 'a sweep is written `sweep Name over Experiment { ... }`', decl.base.range);
    if (!decl.over) ctx.accept('error', 'missing-property', `sweep ${decl.name?.text ?? ''} needs the experiment it varies: \`sweep ${decl.name?.text ?? 'Name'} over Experiment { ... }\``, nameRange);
    else if (decl.over.parts.length > 0) checkReferenceTo(ctx, decl.over.parts[0], 'experiment', 'a sweep'); // no parts: a syntax error says so
    return;
  }
  if (decl.over) {
    ctx.accept('error', 'invalid-base', `'over' is for sweeps; ${article(kind)} ${kind} inherits with '= Base'`, decl.over.range);
  }
  const base = decl.base;
  if (!base) {
    if (BUILTIN_BASED.includes(kind)) {
      const options = builtinsOfKind(kind).map((b) => (takesFolder(b) ? `${b.name}("./models/NAME")` : b.name)).join(', ');
      ctx.accept('error', 'invalid-base', `${article(kind)} ${kind} needs a base: ${options}${kind === 'env' ? ', module("./file.ts"), gymnasium("CartPole-v1"), python("./env.py:MyEnv"), python_text("./env.py:MyTextEnv")' : kind === 'algorithm' ? ', module("./file.ts")' : ''} or another ${kind}, as in \`${kind} ${decl.name?.text ?? 'Name'} = ${builtinsOfKind(kind)[0].name} { }\``, nameRange);
    }
    return;
  }
  const parts = base.name.parts;
  if (parts.length === 0) return; // `env X = {`: the syntax error at the missing name says it all
  if (parts.length === 1 && parts[0].text === 'module' && base.args !== undefined) {
    if (kind !== 'env' && kind !== 'algorithm') {
      ctx.accept('error', 'invalid-base', `only environments and algorithms can come from user code with module(...); ${article(kind)} ${kind} cannot`, base.range);
      return;
    }
    const arg = base.args[0];
    if (base.args.length !== 1 || arg.name || arg.value?.kind !== 'String') {
      ctx.accept('error', 'wrong-arguments', `module takes one file path in quotes: module("./${kind === 'algorithm' ? 'my_learner' : 'my_env'}.ts")`, base.range);
    } else if (!/\.(ts|js|mjs|cjs)$/.test(arg.value.value)) {
      const python = kind === 'env' && arg.value.value.endsWith('.py') ? `; a Gymnasium env class in Python is written python("${arg.value.value}:ClassName")` : '';
      ctx.accept('error', 'type-mismatch', `module("${arg.value.value}") must name a .ts or .js file${python}`, arg.value.range);
    } else {
      checkModuleFile(ctx, symbol, arg.value.range);
    }
    return;
  }
  if (parts.length === 1 && parts[0].text === PYTHON_BASE && base.args !== undefined) {
    checkPythonBase(ctx, symbol, base.args, base.range);
    return;
  }
  if (parts.length === 1 && parts[0].text === PYTHON_TEXT_BASE && base.args !== undefined) {
    checkPythonTextBase(ctx, symbol, base.args, base.range);
    return;
  }
  if (parts.length === 1 && parts[0].text === GYMNASIUM_BASE && base.args !== undefined) {
    checkGymnasiumBase(ctx, symbol, base.args, base.range);
    return;
  }
  if (checkFolderBase(ctx, symbol)) return;
  if (parts.length !== 1) {
    ctx.accept('error', 'invalid-base', 'a base is a single name', base.name.range);
    return;
  }
  if (base.args !== undefined) {
    ctx.accept('error', 'wrong-arguments', `a base takes no arguments; set parameters in the body: ${kind} ${decl.name?.text ?? 'Name'} = ${parts[0].text} { ... }`, base.range);
  }
  const ok = checkReferenceTo(ctx, parts[0], kind, `${article(kind)} ${kind}'s base`);
  if (!ok) return;
  const target = ctx.model.lookup(symbol.unit, parts[0].text);
  if (target?.kind === 'builtin' && !BUILTIN_BASED.includes(kind)) {
    ctx.accept('error', 'invalid-base', `${article(kind)} ${kind} inherits only from another ${kind}`, parts[0].range);
    return;
  }
  const effective = ctx.model.effective(symbol);
  if (effective.cyclic) {
    // Reported on the members of the loop only: `C = A` with A and B inheriting from each other
    // is not itself in a cycle, and the loop is already reported at A and at B.
    const last = ctx.model.base(effective.chain[effective.chain.length - 1]);
    if (last.kind === 'decl' && last.symbol === symbol) {
      const loop = [...effective.chain.map((s) => s.name), symbol.name];
      ctx.accept('error', 'inheritance-cycle', `inheritance cycle: ${loop.join(' -> ')}`, parts[0].range);
    }
  }
}

/** Reports an unknown or wrong-kind name; true when the name is of the right kind. */
export function checkReferenceTo(ctx: CheckContext, ident: Identifier, kind: DeclKind, what: string): boolean {
  const target = ctx.model.resolve(ctx.unit, ident);
  if (!target) {
    const builtins = BUILTIN_BASED.includes(kind) ? builtinsOfKind(kind).map((b) => b.name) : [];
    const close = ctx.model.nameIndex(ctx.unit, kind, builtins).closest(ident.text);
    ctx.accept('error', 'unknown-name', `unknown ${kind} '${ident.text}'${didYouMean(ident.text, close)}`, ident.range,
      { fixes: close.map((c) => ({ title: `Change to '${c}'`, edits: [{ range: ident.range, newText: c }] })) });
    return false;
  }
  const actual = target.kind === 'decl' ? target.symbol.decl.declKind : target.spec.declKind;
  if (actual !== kind) {
    ctx.accept('error', 'wrong-kind', `'${ident.text}' is ${article(actual)} ${actual}, but ${what} must be ${article(kind)} ${kind}`, ident.range);
    return false;
  }
  return true;
}
