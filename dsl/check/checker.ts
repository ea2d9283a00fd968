// Runs every check over a set of files. Checks are small functions registered per scope (a
// file, or a declaration of some kind), like Langium's validation registry; a check that throws
// becomes an `internal-error` diagnostic on the declaration instead of a crash.
import type { Diagnostic } from '../diagnostics.js';
import type { DeclKind, Range } from '../syntax/ast.js';
import { Model, type DeclSymbol } from '../semantics/model.js';
import type { EnvModuleRead } from '../semantics/env-module.js';
import { pythonEnvKey, type PythonEnvFactsProvider, type PythonEnvQuery, type PythonEnvRead } from '../semantics/python-env.js';
import { readModelFiles, readModelFolder, type ModelFolderRead } from '../semantics/model-folder.js';
import type { DatasetRead, SourceUnit, Workspace } from '../semantics/workspace.js';
import { checkBase } from './bases.js';
import { checkConsistency } from './consistency.js';
import { checkDatasets } from './datasets.js';
import { collectingAccept, type Accept, type CheckContext, type HiddenDiagnostics } from './context.js';
import { checkExperiment } from './experiments.js';
import { checkDuplicateNames, checkImports } from './files.js';
import { checkMembers } from './members.js';
import { Recording, ReuseSession, type CheckCache, type ExternalReads } from './reuse.js';
import { checkPretrainedExperiment, checkPretrainedPolicy } from './pretrained.js';
import { checkSftData } from './sft-data.js';
import { checkMicroBatch } from './micro-batch.js';
import { checkPythonEnvSettings } from './python-env-settings.js';
import { checkSupport } from './support.js';
import { checkSweep } from './sweeps.js';

type FileCheck = (ctx: CheckContext) => void;
type DeclarationCheck = (ctx: CheckContext, symbol: DeclSymbol) => void;

const FILE_CHECKS: FileCheck[] = [checkImports, checkDuplicateNames];

const DECLARATION_CHECKS: { kinds: DeclKind[] | 'all'; check: DeclarationCheck }[] = [
  { kinds: 'all', check: checkBase },
  { kinds: 'all', check: (ctx, symbol) => checkMembers(ctx, symbol, { owner: symbol, experiment: symbol.decl.declKind === 'experiment' ? symbol : undefined }) },
  { kinds: ['env', 'policy', 'algorithm'], check: checkConsistency },
  { kinds: ['env'], check: checkDatasets },
  { kinds: ['env'], check: checkPythonEnvSettings },
  { kinds: ['algorithm'], check: checkSftData },
  { kinds: ['algorithm'], check: checkMicroBatch },
  { kinds: ['experiment'], check: checkExperiment },
  { kinds: ['sweep'], check: checkSweep },
  { kinds: ['policy'], check: checkPretrainedPolicy },
  { kinds: ['experiment'], check: checkPretrainedExperiment },
  { kinds: 'all', check: checkSupport },
];

export interface Analysis {
  model: Model;
  units: SourceUnit[];
  /** Diagnostics by absolute file path, sorted by position; every analysed file has an entry. */
  diagnostics: Map<string, Diagnostic[]>;
  /**
   * The user env modules (`module("./x.ts")`) the model read, by absolute path, with what it read:
   * a cache sees the analysis is stale when one of them now reads differently.
   */
  modules?: ReadonlyMap<string, EnvModuleRead>;
  /** The pretrained model folders the checks read, by absolute path: stale when one now reads differently (a download finished). */
  modelFolders?: ReadonlyMap<string, ModelFolderRead>;
  /** The datasets (`dataset("./x.jsonl")`) the checks read, by absolute path, with what was read: as `modules`. */
  datasets?: ReadonlyMap<string, DatasetRead>;
  /**
   * The gymnasium(...) envs whose probe the checks consulted (semantics/python-env.ts), by
   * pythonEnvKey, with the query and what was known: stale when a probe has answered since.
   */
  pythonEnvs?: ReadonlyMap<string, { query: PythonEnvQuery; read: PythonEnvRead }>;
  /** Per file, the diagnostics over AnalyzeOptions.maxDiagnosticsPerFile: counted, not kept. */
  hidden?: ReadonlyMap<string, HiddenDiagnostics>;
}

export interface AnalyzeOptions {
  /**
   * Diagnostics kept per file, in the order the checks report them (syntax errors, then each
   * declaration in turn); the rest are counted in Analysis.hidden. Unlimited by default.
   */
  maxDiagnosticsPerFile?: number;
  /**
   * Read a pretrained model folder's tokenizer.json, weights headers and chat template as `rlx
   * train` will, and report what it would refuse (rlx check and train); the editor leaves it off.
   */
  readModelFiles?: boolean;
  /**
   * Results kept from earlier analyses with the same cache: a declaration whose text and whose
   * reads of the model are as before gets its reports replayed instead of checked (reuse.ts).
   * The diagnostics are the same as without it; a language server passes one per workspace.
   */
  cache?: CheckCache;
  /**
   * What probes learnt of Python envs (semantics/python-env.ts): a host that may run Python
   * (rlx check, the language server in a trusted workspace) passes one; without it a
   * gymnasium(...) env's names are checked when training starts.
   */
  pythonEnvs?: PythonEnvFactsProvider;
}

/** Parses (or reuses parses of) `roots` and their imports, and checks them all. */
/** Checks of a value, which a stand-in for elided text (parse.ts limitNesting) would fail. */
const VALUE_CODES = new Set<string>(['out-of-range', 'type-mismatch', 'suspicious-value']);

export function analyze(workspace: Workspace, roots: string[], options: AnalyzeOptions = {}): Analysis {
  const steps = analyzeInSteps(workspace, roots, options);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/**
 * analyze() as a generator that pauses after each declaration's checks: a caller that must stay
 * responsive (the language server, whose check of a large file takes tens of milliseconds)
 * spreads the work over several turns of its event loop. The files are read at the start.
 */
export function* analyzeInSteps(workspace: Workspace, roots: string[], options: AnalyzeOptions = {}): Generator<void, Analysis, void> {
  const units = workspace.closure(roots);
  const modules = new Map<string, EnvModuleRead>();
  const modelFolders = new Map<string, ModelFolderRead>();
  const datasets = new Map<string, DatasetRead>();
  const pythonEnvs = new Map<string, { query: PythonEnvQuery; read: PythonEnvRead }>();
  /** What the declaration being checked reads and reports, when results are kept. */
  let recording: Recording | undefined;
  const reads = {
    module: (file: string) => {
      const read = workspace.envModule(file);
      modules.set(file, read);
      recording?.read('module', file, read);
      return read;
    },
    folder: (dir: string) => {
      const read = readModelFolder(dir);
      modelFolders.set(dir, read);
      recording?.read('folder', dir, read);
      return read;
    },
    dataset: (file: string) => {
      const read = workspace.dataset(file);
      datasets.set(file, read);
      recording?.read('dataset', file, read);
      return read;
    },
    // Keyed by the query's JSON, so that a kept result (reuse.ts) can ask again from its key alone.
    python: (key: string) => {
      const query = JSON.parse(key) as PythonEnvQuery;
      const read = options.pythonEnvs?.lookup(query);
      pythonEnvs.set(key, { query, read });
      recording?.read('python', key, read);
      return read;
    },
  } satisfies ExternalReads;
  const readPythonEnv = (query: PythonEnvQuery) => reads.python(pythonEnvKey(query));
  const model = new Model(units, reads.module, reads.folder, reads.dataset, options.readModelFiles ? readModelFiles : undefined, readPythonEnv);
  const reuse = options.cache ? new ReuseSession(options.cache, model, reads) : undefined;
  const diagnostics = new Map<string, Diagnostic[]>();
  const hidden = new Map<string, HiddenDiagnostics>();
  const contexts = new Map<SourceUnit, CheckContext>();
  const contextFor = (unit: SourceUnit): CheckContext => {
    let ctx = contexts.get(unit);
    if (!ctx) {
      const list: Diagnostic[] = diagnostics.get(unit.path) ?? [];
      diagnostics.set(unit.path, list);
      const hiddenHere = (first: Range) => {
        let entry = hidden.get(unit.path);
        if (!entry) hidden.set(unit.path, (entry = { counts: { error: 0, warning: 0, info: 0 }, first }));
        return entry;
      };
      const collect = collectingAccept(list, unit.path, options.maxDiagnosticsPerFile, hiddenHere);
      const elided = unit.parse.errors.flatMap((e) => (e.elided ? [e.elided] : []));
      const accept: Accept = (severity, code, message, range, more) => {
        // Nothing about the stand-in of text too deep to parse: not inside it, nor a value check of what holds it (`found 0`).
        if (code !== 'syntax-error' && code !== 'invalid-character' && elided.some((r) => (range.start >= r.start && range.end <= r.end) || (VALUE_CODES.has(code) && range.start < r.end && range.end > r.start))) return;
        recording?.report(unit.path, severity, code, message, range, more);
        collect(severity, code, message, range, more);
      };
      const freeMemory = () => {
        recording?.opaque(); // the memory free now: no result that read it is kept
        return workspace.freeMemory();
      };
      ctx = { model, unit, accept, forUnit: contextFor, freeMemory };
      contexts.set(unit, ctx);
    }
    return ctx;
  };

  for (const unit of units) {
    const ctx = contextFor(unit);
    for (const e of unit.parse.errors) ctx.accept('error', e.code, e.message, e.range);
    for (const check of FILE_CHECKS) guarded(ctx, unit.parse.file.range, () => check(ctx));
    for (const decl of unit.parse.file.declarations) {
      const symbol = model.symbolOf(decl);
      if (!symbol) continue;
      if (reuse?.replay(symbol, contextFor)) {
        yield;
        continue;
      }
      if (reuse) model.observer = recording = new Recording();
      try {
        for (const { kinds, check } of DECLARATION_CHECKS) {
          if (kinds === 'all' || kinds.includes(decl.declKind)) guarded(ctx, decl.name?.range ?? decl.keywordRange, () => check(ctx, symbol));
        }
      } finally {
        model.observer = undefined;
      }
      if (recording) reuse?.store(symbol, recording);
      recording = undefined;
      yield;
    }
    reuse?.unitDone(unit);
  }
  for (const [file, list] of diagnostics) diagnostics.set(file, sortAndDedupe(list));
  return { model, units, diagnostics, modules, modelFolders, datasets, ...(pythonEnvs.size > 0 ? { pythonEnvs } : {}), ...(hidden.size > 0 ? { hidden } : {}) };
}

function guarded(ctx: CheckContext, range: Range, run: () => void): void {
  try {
    run();
  } catch (err) {
    ctx.accept('error', 'internal-error', `internal error in a check (please report it): ${(err as Error).message}`, range);
  }
}

function sortAndDedupe(list: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return list
    .filter((d) => {
      const key = `${d.range.start}:${d.range.end}:${d.code}:${d.message}`;
      return seen.has(key) ? false : (seen.add(key), true);
    })
    .sort((a, b) => a.range.start - b.range.start || a.range.end - b.range.end);
}
