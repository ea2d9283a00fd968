// The semantic model over a set of files: which names exist where, what each name refers to,
// and each declaration's effective members after inheritance. Computed lazily and memoised;
// a Model is built per analysis and thrown away after (it is cheap).
import { GYMNASIUM_BASE, PYTHON_BASE, pythonClassTarget } from '../schema/python-env.js';
import { PYTHON_TEXT_BASE, pythonTextEnvSpec } from '../schema/python-text-env.js';
import type * as A from '../syntax/ast.js';
import { builtin, type BuiltinSpec, type EnvSpec } from '../schema/index.js';
import * as path from 'node:path';
import { moduleEnvSpec } from '../schema/env-module.js';
import { moduleAlgorithmSpec } from '../schema/learner-module.js';
import type { AlgorithmSpec } from '../schema/types.js';
import type { EnvModuleRead } from './env-module.js';
import { pythonEnvQuery, pythonEnvSpec, type PythonEnvQuery, type PythonEnvRead } from './python-env.js';
import { readModelFolder as readFolderOnDisk, type ModelFiles, type ModelFolderRead } from './model-folder.js';
import type { LmConfig } from '../../hf/config.js';
import type { DatasetRead, SourceUnit } from './workspace.js';
import { NameIndex } from '../name-index.js';

export interface DeclSymbol {
  name: string;
  decl: A.Declaration;
  unit: SourceUnit;
}

export type Target = { kind: 'decl'; symbol: DeclSymbol } | { kind: 'builtin'; spec: BuiltinSpec };

export interface Reference {
  unit: SourceUnit;
  range: A.Range;
  target: Target;
}

export type BaseResolution =
  | { kind: 'none' }
  /** `folder`: the path as written, for a built-in called with its folder (`pretrained("./models/x")`). */
  | { kind: 'builtin'; spec: BuiltinSpec; folder?: string }
  | { kind: 'decl'; symbol: DeclSymbol }
  /** `env X = module("./file.ts")`: user code; `path` as written, relative to the file. */
  | { kind: 'module'; path: string | undefined }
  /** `env X = gymnasium("CartPole-v1")`: a Gymnasium id, run by Python (schema/python-env.ts); user code too. */
  | { kind: 'module'; path: undefined; gymnasium: string }
  /**
   * `env X = python("./envs/reacher.py:Reacher")`: a Gymnasium Env class in a file, run by Python;
   * `path` is the file as written (read by Workspace.envModule, which lists its classes), undefined
   * when the argument is not `file.py:Class`; `written` the argument.
   */
  | { kind: 'module'; path: string | undefined; python: { written: string; className: string } }
  /**
   * `env X = python_text("./envs/shop.py:Shop")`: a text env class in a file, run by Python
   * (schema/python-text-env.ts); `path` and `written` as for python(...).
   */
  | { kind: 'module'; path: string | undefined; pythonText: { written: string; className: string } }
  /** The base name does not resolve or is of the wrong kind; a diagnostic says so. */
  | { kind: 'unresolved' };

/** The root of a gymnasium(...) or python(...) env (both run by Python, with the settings of schema/python-env.ts). */
export type PythonEnvRoot =
  | { kind: 'module'; path: undefined; gymnasium: string }
  | { kind: 'module'; path: string | undefined; python: { written: string; className: string } };

/** A chain's root when it is a gymnasium(...) or python(...) env; undefined otherwise. */
export function pythonEnvRoot(root: BaseResolution): PythonEnvRoot | undefined {
  return root.kind === 'module' && ('gymnasium' in root || 'python' in root) ? root : undefined;
}

/** The root of a python_text(...) env. */
export type PythonTextRoot = { kind: 'module'; path: string | undefined; pythonText: { written: string; className: string } };

/** A chain's root when it is a python_text(...) env; undefined otherwise. */
export function pythonTextRoot(root: BaseResolution): PythonTextRoot | undefined {
  return root.kind === 'module' && 'pythonText' in root ? root : undefined;
}

/** The names a python_text env's `info: [...]` declares, for `info.NAME` in reward terms (only the literal strings). */
export function declaredInfo(effective: EffectiveDeclaration): string[] {
  const value = effective.properties.get('info')?.node.value;
  return value?.kind === 'List' ? value.items.flatMap((item) => (item.kind === 'String' ? [item.value] : [])) : [];
}

/** How messages name a Python env's base: `gymnasium("CartPole-v1")`, `python("./env.py:Env")`. */
export function pythonEnvLabel(root: PythonEnvRoot): string {
  return 'gymnasium' in root ? `gymnasium("${root.gymnasium}")` : `python("${root.python.written}")`;
}

/**
 * The observation names a gymnasium(...) or python(...) env declares (`observations: ["x", ...]`),
 * for `obs.NAME` in reward terms; undefined when it declares none (they are learnt when training starts).
 */
export function declaredObservations(effective: EffectiveDeclaration): string[] | undefined {
  if (!pythonEnvRoot(effective.root)) return undefined;
  const value = effective.properties.get('observations')?.node.value;
  if (value?.kind !== 'List' || value.items.length === 0) return undefined;
  const names = value.items.flatMap((item) => (item.kind === 'String' ? [item.value] : []));
  return names.length === value.items.length ? names : undefined;
}

export interface Effective<T> {
  node: T;
  owner: DeclSymbol;
}

/**
 * A path written in the root of a declaration's chain (`module("./env.ts")`,
 * `pretrained("./models/x")`), resolved: it is relative to the file of the declaration that
 * wrote it, the chain's last, wherever the declarations that inherit it live.
 */
export function writtenPath(effective: EffectiveDeclaration, written: string): string {
  const declaring = effective.chain[effective.chain.length - 1]!;
  return path.resolve(path.dirname(declaring.unit.path), written);
}

export interface EffectiveDeclaration {
  /** The declaration, then its user-declared bases, nearest first (stops at a cycle). */
  chain: DeclSymbol[];
  /** True when the chain loops back on itself. */
  cyclic: boolean;
  /** Where the chain ends: a built-in, user code, nothing, or an unresolved name. */
  root: BaseResolution;
  /** Properties by dotted path, the nearest declaration's statement winning. */
  properties: Map<string, Effective<A.Property>>;
  /** Block members by block name, then property name; blocks merge member by member. */
  blocks: Map<string, Map<string, Effective<A.Property>>>;
  /** `term` and `stage` members by name, in first-declared order; a redeclared name overrides. */
  named: Map<string, Effective<A.NamedMember>>;
}

export function propertyKey(p: A.Property): string {
  return p.path.map((s) => s.text).join('.');
}

/** An env whose chain ends in `module("./file.ts")`: the file, resolved, and what it declares. */
export interface EnvModuleUse {
  /** The path as written, relative to the file that declares the module base. */
  readonly written: string;
  /** Absolute. */
  readonly file: string;
  readonly read: EnvModuleRead;
}

/** A policy whose chain ends in `pretrained("./models/x")`: the folder, resolved, and what it holds. */
export interface ModelFolderUse {
  /** The path as written, relative to the file that declares the pretrained base. */
  readonly written: string;
  /** Absolute. */
  readonly dir: string;
  readonly read: ModelFolderRead;
}

/**
 * Told what a check reads through the model, so that its result can be reused while every read
 * would answer the same (check/reuse.ts). Reads it cannot follow make the result single-use.
 */
export interface ModelObserver {
  /** A name was looked up in a file, or its visible names listed: depends on the names (and kinds) visible there. */
  scope(unit: SourceUnit): void;
  /** A declaration was handed out: depends on its text. */
  symbol(symbol: DeclSymbol): void;
  /** A declaration's effective members were read: depends on its chain of bases and where it ends. */
  chain(symbol: DeclSymbol): void;
  /** A read the observer cannot follow (every file, every symbol). */
  opaque(): void;
}

export class Model {
  /** Set by the checker while it checks one declaration; undefined otherwise. */
  observer: ModelObserver | undefined;
  /** Declarations by name in each file (a name may be declared twice: that is a diagnostic). */
  private readonly ownSymbols = new Map<SourceUnit, Map<string, DeclSymbol[]>>();
  private readonly effectiveCache = new Map<DeclSymbol, EffectiveDeclaration>();
  private readonly symbolOfDecl = new Map<A.Declaration, DeclSymbol>();
  private readonly unitsByPath = new Map<string, SourceUnit>();
  readonly references: Reference[] = [];
  private readonly recorded = new Set<string>();
  private readonly nameIndexes = new Map<SourceUnit, Map<string, NameIndex>>();

  constructor(
    readonly units: SourceUnit[],
    /** What the env module at an absolute path declares (Workspace.envModule); unknown without it. */
    private readonly readEnvModule: (file: string) => EnvModuleRead = () => ({ kind: 'undeclared' }),
    /** What a pretrained model folder at an absolute path holds (model-folder.ts; cached there). */
    private readonly readModelFolder: (dir: string) => ModelFolderRead = readFolderOnDisk,
    /** What the dataset at an absolute path holds (Workspace.dataset); unknown (undefined) without it. */
    private readonly readDataset: (file: string) => DatasetRead | undefined = () => undefined,
    /**
     * What `rlx train` would refuse in a complete model folder's files, and what its chat
     * template reads (model-folder.ts readModelFiles); the command line reads them, the editor
     * does not (undefined).
     */
    readonly modelFiles?: (dir: string, config: LmConfig) => ModelFiles,
    /** What a probe learnt of a gymnasium(...) env (python-env.ts); unknown without it. */
    private readonly readPythonEnv: (query: PythonEnvQuery) => PythonEnvRead = () => undefined,
  ) {
    for (const unit of units) {
      this.unitsByPath.set(unit.path, unit);
      const table = new Map<string, DeclSymbol[]>();
      for (const decl of unit.parse.file.declarations) {
        if (!decl.name) continue;
        const symbol: DeclSymbol = { name: decl.name.text, decl, unit };
        this.symbolOfDecl.set(decl, symbol);
        const list = table.get(symbol.name);
        if (list) list.push(symbol);
        else table.set(symbol.name, [symbol]);
      }
      this.ownSymbols.set(unit, table);
    }
  }

  unitByPath(filePath: string): SourceUnit | undefined {
    this.observer?.opaque();
    return this.unitsByPath.get(filePath);
  }

  symbolOf(decl: A.Declaration): DeclSymbol | undefined {
    const symbol = this.symbolOfDecl.get(decl);
    if (symbol) this.observer?.symbol(symbol);
    return symbol;
  }

  /** Declarations in the file itself, by name. */
  declaredIn(unit: SourceUnit): Map<string, DeclSymbol[]> {
    this.observer?.opaque();
    return this.table(unit);
  }

  private table(unit: SourceUnit): Map<string, DeclSymbol[]> {
    return this.ownSymbols.get(unit) ?? new Map();
  }

  /** Every user symbol visible in a file: its own declarations, then those of files it imports. */
  visibleSymbols(unit: SourceUnit): DeclSymbol[] {
    // Checks read the names and kinds of these only (for "did you mean"): the scope covers both.
    this.observer?.scope(unit);
    const out: DeclSymbol[] = [];
    for (const list of this.table(unit).values()) out.push(list[0]);
    for (const imp of unit.imports) {
      const imported = imp.path ? this.unitsByPath.get(imp.path) : undefined;
      if (!imported || imported === unit) continue;
      for (const list of this.table(imported).values()) out.push(list[0]);
    }
    return out;
  }

  /**
   * visibleSymbols(unit) of one kind, with `builtins` (the built-ins of that kind, or none),
   * indexed for "did you mean" (name-index.ts): built once per file and kind, so that a file of
   * many unknown names does not list and compare every declaration for each of them.
   */
  nameIndex(unit: SourceUnit, kind: A.DeclKind, builtins: readonly string[]): NameIndex {
    this.observer?.scope(unit);
    const key = `${kind}\u0000${builtins.join(',')}`;
    let byKind = this.nameIndexes.get(unit);
    if (!byKind) this.nameIndexes.set(unit, (byKind = new Map()));
    let index = byKind.get(key);
    if (!index) {
      const names = this.visibleSymbols(unit).filter((s) => s.decl.declKind === kind).map((s) => s.name);
      byKind.set(key, (index = new NameIndex([...names, ...builtins])));
    }
    return index;
  }

  /** What a plain name means in a file: own declarations first, then imports, then built-ins. */
  lookup(unit: SourceUnit, name: string): Target | undefined {
    this.observer?.scope(unit);
    const found = this.lookupSymbol(unit, name);
    if (found) {
      this.observer?.symbol(found);
      return { kind: 'decl', symbol: found };
    }
    const spec = builtin(name);
    return spec ? { kind: 'builtin', spec } : undefined;
  }

  private lookupSymbol(unit: SourceUnit, name: string): DeclSymbol | undefined {
    const own = this.table(unit).get(name);
    if (own) return own[0];
    for (const imp of unit.imports) {
      const imported = imp.path ? this.unitsByPath.get(imp.path) : undefined;
      const found = imported && imported !== unit ? this.table(imported).get(name) : undefined;
      if (found) return found[0];
    }
    return undefined;
  }

  /** The first declaration of `name` in the file itself, or the `ordinal`th (not observed: for check/reuse.ts). */
  declarationNamed(unit: SourceUnit, name: string, ordinal = 0): DeclSymbol | undefined {
    return this.table(unit).get(name)?.[ordinal];
  }

  /** The unit at a path (not observed: for check/reuse.ts). */
  unitAt(filePath: string): SourceUnit | undefined {
    return this.unitsByPath.get(filePath);
  }

  /** Resolves a name node and remembers the reference for navigation (go to definition, rename). */
  resolve(unit: SourceUnit, name: A.Identifier): Target | undefined {
    const target = this.lookup(unit, name.text);
    if (target) this.record(unit, name.range, target);
    return target;
  }

  record(unit: SourceUnit, range: A.Range, target: Target): void {
    const key = `${unit.path}:${range.start}`;
    if (this.recorded.has(key)) return;
    this.recorded.add(key);
    this.references.push({ unit, range, target });
  }

  /** The declaration's own base, one step (not followed further); `remember`: record the reference for navigation. */
  base(symbol: DeclSymbol, remember = true): BaseResolution {
    const { decl } = symbol;
    const base = decl.base;
    if (!base) return { kind: 'none' };
    const parts = base.name.parts;
    if (parts.length === 1 && parts[0].text === 'module' && base.args !== undefined) {
      const arg = base.args[0]?.value;
      return { kind: 'module', path: arg?.kind === 'String' ? arg.value : undefined };
    }
    if (parts.length === 1 && parts[0].text === GYMNASIUM_BASE && base.args !== undefined && decl.declKind === 'env') {
      const arg = base.args[0]?.value;
      return { kind: 'module', path: undefined, gymnasium: arg?.kind === 'String' ? arg.value : '' };
    }
    if (parts.length === 1 && parts[0].text === PYTHON_TEXT_BASE && base.args !== undefined && decl.declKind === 'env') {
      const arg = base.args[0]?.value;
      const written = arg?.kind === 'String' ? arg.value : '';
      const target = pythonClassTarget(written);
      return { kind: 'module', path: target?.file.endsWith('.py') ? target.file : undefined, pythonText: { written, className: target?.className ?? '' } };
    }
    if (parts.length === 1 && parts[0].text === PYTHON_BASE && base.args !== undefined && decl.declKind === 'env') {
      const arg = base.args[0]?.value;
      const written = arg?.kind === 'String' ? arg.value : '';
      const target = pythonClassTarget(written);
      return { kind: 'module', path: target?.file.endsWith('.py') ? target.file : undefined, python: { written, className: target?.className ?? '' } };
    }
    if (parts.length !== 1) return { kind: 'unresolved' };
    const target = remember ? this.resolve(symbol.unit, parts[0]) : this.lookup(symbol.unit, parts[0].text);
    if (!target) return { kind: 'unresolved' };
    if (target.kind === 'builtin') {
      if (target.spec.declKind !== decl.declKind) return { kind: 'unresolved' };
      if (target.spec.declKind === 'policy' && target.spec.folder && base.args !== undefined) {
        const arg = base.args[0]?.value;
        return { kind: 'builtin', spec: target.spec, folder: arg?.kind === 'String' ? arg.value : undefined };
      }
      return { kind: 'builtin', spec: target.spec };
    }
    return target.symbol.decl.declKind === decl.declKind ? { kind: 'decl', symbol: target.symbol } : { kind: 'unresolved' };
  }

  /**
   * The declaration with its inherited members merged in. Memoised along the chain: each
   * declaration's members are merged once onto its base's (already merged) members, so a chain
   * of n declarations costs O(n) merges, not O(n^2), and is walked without recursion.
   */
  effective(symbol: DeclSymbol): EffectiveDeclaration {
    this.observer?.chain(symbol);
    const cached = this.effectiveCache.get(symbol);
    if (cached) return cached;
    // Walk up to a declaration already merged, the root, or a cycle.
    const path: DeclSymbol[] = [];
    const onPath = new Map<DeclSymbol, number>();
    let next: EffectiveDeclaration | undefined;
    let root: BaseResolution = { kind: 'none' };
    let cycleAt = -1;
    for (let current = symbol; ;) {
      const done = this.effectiveCache.get(current);
      if (done) {
        next = done;
        break;
      }
      const seen = onPath.get(current);
      if (seen !== undefined) {
        cycleAt = seen;
        break;
      }
      onPath.set(current, path.length);
      path.push(current);
      const base = this.base(current);
      if (base.kind !== 'decl') {
        root = base;
        break;
      }
      current = base.symbol;
    }
    let end = path.length;
    if (cycleAt >= 0) {
      // Each member of a cycle: its chain goes once round the loop (a diagnostic reports it).
      const loop = path.slice(cycleAt);
      loop.forEach((member, i) => this.effectiveCache.set(member, mergeChain([...loop.slice(i), ...loop.slice(0, i)], true, { kind: 'unresolved' })));
      next = this.effectiveCache.get(path[cycleAt]);
      end = cycleAt;
    }
    for (let i = end - 1; i >= 0; i--) {
      next = next ? mergeOnto(next, path[i]) : mergeChain([path[i]], false, root);
      this.effectiveCache.set(path[i], next);
    }
    return this.effectiveCache.get(symbol)!;
  }

  /**
   * The built-in at the root of a declaration's chain, if any. An algorithm whose chain ends in a
   * learner module that declares its spec has one too: the spec made from it (moduleAlgorithmSpec),
   * so its settings are checked, completed and compiled like a built-in's.
   */
  rootBuiltin(symbol: DeclSymbol): BuiltinSpec | undefined {
    const root = this.effective(symbol).root;
    if (root.kind === 'module' && symbol.decl.declKind === 'algorithm') return this.learnerModule(symbol)?.spec;
    return root.kind === 'builtin' ? root.spec : undefined;
  }

  /** For an algorithm that is user code (`module("./learner.ts")`, maybe through other algorithms): its file, what it declares, and its spec when declared. */
  learnerModule(symbol: DeclSymbol): (EnvModuleUse & { readonly spec?: AlgorithmSpec }) | undefined {
    const use = this.envModule(symbol);
    if (!use) return undefined;
    if (use.read.kind !== 'learner') return use;
    let spec = learnerSpecs.get(use.read.spec)?.get(use.written);
    if (!spec) {
      spec = moduleAlgorithmSpec(use.read.spec, use.written);
      const byPath = learnerSpecs.get(use.read.spec) ?? new Map<string, AlgorithmSpec>();
      byPath.set(use.written, spec);
      learnerSpecs.set(use.read.spec, byPath);
    }
    return { ...use, spec };
  }

  /** What a Python file at an absolute path defines (a reward's `python("./file.py:function")`), read without running it. */
  pythonFile(file: string): EnvModuleRead {
    return this.readEnvModule(file);
  }

  /** For an env that is user code (`module("./file.ts")`, maybe through other envs): its file and what it declares. */
  envModule(symbol: DeclSymbol): EnvModuleUse | undefined {
    const effective = this.effective(symbol);
    if (effective.root.kind !== 'module' || effective.root.path === undefined) return undefined;
    const file = writtenPath(effective, effective.root.path);
    return { written: effective.root.path, file, read: this.readEnvModule(file) };
  }

  /** For an env whose chain ends in `gymnasium("Id")`: the id, the probe's query and what is known of it (python-env.ts). */
  pythonEnv(symbol: DeclSymbol): { label: string; query: PythonEnvQuery | undefined; read: PythonEnvRead } | undefined {
    const effective = this.effective(symbol);
    const root = pythonEnvRoot(effective.root);
    if (!root) return undefined;
    let query: PythonEnvQuery | undefined;
    if ('gymnasium' in root) query = root.gymnasium === '' ? undefined : pythonEnvQuery({ id: root.gymnasium }, effective);
    else if (root.path !== undefined && root.python.className !== '') query = pythonEnvQuery({ file: writtenPath(effective, root.path), className: root.python.className }, effective);
    return { label: pythonEnvLabel(root), query, read: query ? this.readPythonEnv(query) : undefined };
  }

  /** For a policy whose chain ends in `pretrained("./models/x")`: the folder, resolved, and what it holds. */
  modelFolder(symbol: DeclSymbol): ModelFolderUse | undefined {
    const effective = this.effective(symbol);
    if (effective.root.kind !== 'builtin' || effective.root.folder === undefined) return undefined;
    const dir = writtenPath(effective, effective.root.folder);
    return { written: effective.root.folder, dir, read: this.readModelFolder(dir) };
  }

  /** The dataset file at an absolute path, as the workspace read it; undefined where the model has no files (the editor's quick model). */
  dataset(file: string): DatasetRead | undefined {
    return this.readDataset(file);
  }

  /** What an env target offers reward terms and algorithms: a built-in's spec, or the spec its module declares. */
  envSpec(target: Target | undefined): EnvSpec | undefined {
    if (!target) return undefined;
    const spec = target.kind === 'builtin' ? target.spec : this.rootBuiltin(target.symbol);
    if (spec) return spec.declKind === 'env' ? spec : undefined;
    if (target.kind !== 'decl') return undefined;
    const effective = this.effective(target.symbol);
    const text = pythonTextRoot(effective.root);
    if (text) return pythonTextEnvSpec(text.pythonText.written, declaredInfo(effective));
    const python = this.pythonEnv(target.symbol);
    if (python) {
      if (python.read === undefined || python.read === 'pending' || python.read.kind !== 'facts') return undefined;
      // Names the declaration gives (`observations: [...]`) replace the env's own when they are as many.
      const declared = declaredObservations(this.effective(target.symbol));
      const facts = declared && declared.length === python.read.observationNames.length ? { ...python.read, observationNames: declared } : python.read;
      return pythonEnvSpec(facts, python.label);
    }
    const module = this.envModule(target.symbol);
    return module?.read.kind === 'declared' ? moduleEnvSpec(module.read.spec, module.written) : undefined;
  }

  /** What a reference-valued property (`env: Pole`) names, through inheritance; resolved in the file that states it. */
  referencedTarget(symbol: DeclSymbol, property: string): Target | undefined {
    const stated = this.effective(symbol).properties.get(property);
    const value = stated?.node.value;
    if (!stated || value?.kind !== 'Name' || value.parts.length !== 1) return undefined;
    return this.lookup(stated.owner.unit, value.parts[0].text);
  }

  /** All declarations of all units, in file order. */
  *allSymbols(): Generator<DeclSymbol> {
    this.observer?.opaque();
    for (const unit of this.units) {
      for (const decl of unit.parse.file.declarations) {
        const symbol = this.symbolOfDecl.get(decl);
        if (symbol) yield symbol;
      }
    }
  }
}

/** The algorithm spec made from each learner module's read spec, per path as written: one object while the module's text is the same. */
const learnerSpecs = new WeakMap<object, Map<string, AlgorithmSpec>>();

/** Merges a chain's members, farthest base first, so that nearer declarations override. */
function mergeChain(chain: DeclSymbol[], cyclic: boolean, root: BaseResolution): EffectiveDeclaration {
  const result: EffectiveDeclaration = { chain, cyclic, root, properties: new Map(), blocks: new Map(), named: new Map() };
  for (const owner of [...chain].reverse()) addOwnMembers(result, owner);
  return result;
}

/** A declaration's own members merged onto its base's effective members (the base is not changed). */
function mergeOnto(base: EffectiveDeclaration, owner: DeclSymbol): EffectiveDeclaration {
  const result: EffectiveDeclaration = {
    get chain() {
      return listChain(result);
    },
    cyclic: base.cyclic,
    root: base.root,
    properties: new Map(base.properties),
    blocks: new Map([...base.blocks].map(([name, members]) => [name, new Map(members)])),
    named: new Map(base.named),
  };
  links.set(result, { owner, base });
  addOwnMembers(result, owner);
  return result;
}

/**
 * The chain is listed only when asked for (hover, a cycle's message), walking the links without
 * recursion: copying it at every link would make a long chain quadratic again.
 */
const links = new WeakMap<EffectiveDeclaration, { owner: DeclSymbol; base: EffectiveDeclaration; chain?: DeclSymbol[] }>();

function listChain(effective: EffectiveDeclaration): DeclSymbol[] {
  const first = links.get(effective)!;
  if (first.chain) return first.chain;
  const owners: DeclSymbol[] = [];
  let at = effective;
  for (let link = links.get(at); link && !link.chain; link = links.get(at)) {
    owners.push(link.owner);
    at = link.base;
  }
  const rest = links.get(at)?.chain ?? at.chain; // a listed link, or the plain array of mergeChain
  first.chain = [...owners, ...rest];
  return first.chain;
}

function addOwnMembers(result: EffectiveDeclaration, owner: DeclSymbol): void {
  for (const member of owner.decl.body?.members ?? []) {
    if (member.kind === 'Property') {
      result.properties.set(propertyKey(member), { node: member, owner });
    } else if (member.kind === 'Block') {
      const block = result.blocks.get(member.name.text) ?? new Map<string, Effective<A.Property>>();
      for (const inner of member.body.members) {
        if (inner.kind === 'Property') block.set(propertyKey(inner), { node: inner, owner });
      }
      result.blocks.set(member.name.text, block);
    } else if (member.name) {
      result.named.set(member.name.text, { node: member, owner });
    }
  }
}
