// Loading a learner module (`algorithm Mine = module("./my-learner.ts")`): esbuild bundles the
// file with whatever it imports, except `rlx/learner`, which becomes a tiny module reading the
// running rlx's own surface (runtime/learner/): a learner builds its graph in this process, from
// rlx's classes, so its bundle must carry no copy of rlx. The bundle is kept in the run
// directory (source/learner-<stage>.mjs), so a resume runs the same code.
//
// Before the module runs here, it is loaded and its buildLoss called once in a worker thread
// (probe-worker.ts) on stand-in inputs: a module whose top-level code or buildLoss never
// returns is stopped there after a timeout, and one that throws or returns the wrong thing is
// refused with the module's name, before any run directory is written to.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vm from 'node:vm';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Plugin } from 'esbuild';
import { learnerModuleSpec, type LearnerModuleSpec } from '../../../dsl/schema/learner-module.js';
import { InputFileError, openInputFile } from '../../../shared/input-files.js';
import { describeThrown } from '../../envs/module-errors.js';
import * as learnerApi from '../../learner/index.js';
import type { BuildNumericLosses } from '../../learner/numeric-batch.js';
import type { BuildTextLoss } from '../../learner/text-batch.js';
import { readRunText } from '../../run/run-files.js';
import { LearnerModuleError, readingModuleValue } from './errors.js';
import type { ProbeReply, ProbeRequest } from './probe-protocol.js';
import { changedIntrinsicsError, restoreIntrinsics, snapshotIntrinsics } from './intrinsics.js';
import { callWatched, watched } from './watchdog.js';

export { LearnerModuleError };

/** Where the running rlx puts its rlx/learner surface for the bundles to read (one per API version). */
export const LEARNER_API_GLOBAL = Symbol.for(`rlx.learner.v${learnerApi.LEARNER_API_VERSION}`);

export const LEARNER_SOURCE_LIMIT = { what: 'learner module source', maxBytes: 64 * 2 ** 20 } as const;
export const LEARNER_BUNDLE_LIMIT = { what: 'bundled learner module', maxBytes: 256 * 2 ** 20 } as const;

/** How long a module's top-level code and its buildLoss may take in the probe before the run fails. */
export const DEFAULT_BUILD_TIMEOUT_MS = 60_000;

/** What a module exports that rlx calls: by its spec's kind. */
export type LearnerEntry = { readonly kind: 'text'; readonly buildLoss: BuildTextLoss } | { readonly kind: 'numeric'; readonly buildLosses: BuildNumericLosses };

export interface LoadedLearner {
  /** For messages: `algorithm Mine (module "./mine.ts")`. */
  readonly label: string;
  readonly spec: LearnerModuleSpec;
  readonly entry: LearnerEntry;
  /** The bundled code, kept in the run directory. */
  readonly code: string;
}

export interface LearnerLoadOptions {
  /** The algorithm's name in the .rlx file, and the file as the plan writes it. */
  readonly name: string;
  readonly written: string;
  /** The settings buildLoss is probed with (the plan's, defaults filled), and the group size. */
  readonly settings: Readonly<Record<string, number | boolean | string>>;
  readonly groupSize: number;
  readonly buildTimeoutMs?: number;
}

/** The source of `rlx/learner` inside a bundle: the running rlx's exports, read from a global. */
function learnerShim(): string {
  const names = Object.keys(learnerApi);
  return `const api = globalThis[Symbol.for(${JSON.stringify(LEARNER_API_GLOBAL.description)})];\n`
    + "if (!api) throw new Error('rlx/learner is provided by rlx when it trains this learner; it cannot be imported elsewhere');\n"
    + names.map((n) => `export const ${n} = api.${n};`).join('\n');
}

/** Points `rlx/learner` at the shim, and refuses a FIFO, a device or a huge file where esbuild would read one. */
const learnerPlugin: Plugin = {
  name: 'rlx-learner',
  setup(build) {
    build.onResolve({ filter: /^rlx\/learner$/ }, () => ({ path: 'rlx/learner', namespace: 'rlx-learner' }));
    build.onLoad({ filter: /.*/, namespace: 'rlx-learner' }, () => ({ contents: learnerShim(), loader: 'js' }));
    build.onLoad({ filter: /.*/ }, (args) => {
      if (args.namespace !== 'file') return undefined;
      try {
        fs.closeSync(openInputFile(args.path, LEARNER_SOURCE_LIMIT).fd);
      } catch (err) {
        if (err instanceof InputFileError) return { errors: [{ text: err.message }] };
        throw err;
      }
      return undefined;
    });
  },
};

/** A learner module's stage as status.json, the hparams event and the dashboard name it: `Mine (module "./mine.ts")`. */
export function moduleTitle(name: string, written: string): string {
  return `${name} (module "${written}")`;
}

/** A learner module in messages: `algorithm Mine (module "./mine.ts")`. */
export function learnerLabel(name: string, written: string): string {
  return `algorithm ${moduleTitle(name, written)}`;
}

/** Bundles, probes and loads a learner module's file. */
export async function loadLearnerModule(file: string, options: LearnerLoadOptions): Promise<LoadedLearner> {
  const label = learnerLabel(options.name, options.written);
  if (!fs.existsSync(file)) throw new LearnerModuleError(`${label}: ${file} does not exist; module("...") paths are relative to the .rlx file`);
  try {
    fs.closeSync(openInputFile(file, LEARNER_SOURCE_LIMIT).fd);
  } catch (err) {
    if (err instanceof InputFileError) throw new LearnerModuleError(`${label}: ${err.message}`);
    throw err;
  }
  const esbuild = await import('esbuild');
  let code: string;
  try {
    const result = await esbuild.build({
      entryPoints: [file], bundle: true, platform: 'node', format: 'esm', target: 'node20', write: false, logLevel: 'silent', plugins: [learnerPlugin],
    });
    code = result.outputFiles[0]!.text;
  } catch (err) {
    const errors = (err as { errors?: { text: string; location?: { file: string; line: number; column: number } }[] }).errors ?? [];
    const first = errors[0];
    const where = first?.location ? `${first.location.file}:${first.location.line}:${first.location.column + 1}: ` : '';
    throw new LearnerModuleError(`${label}: cannot compile ${file}: ${where}${first?.text ?? (err as Error).message}`);
  }
  return instantiate(code, label, options);
}

/** Loads the bundle a run directory keeps (a resume). */
export async function loadBundledLearner(runDir: string, file: string, options: LearnerLoadOptions): Promise<LoadedLearner> {
  const label = learnerLabel(options.name, options.written);
  let code: string;
  try {
    code = readRunText(runDir, file, LEARNER_BUNDLE_LIMIT);
  } catch (err) {
    if (err instanceof InputFileError) throw new LearnerModuleError(`${label}: ${err.message}`);
    throw err;
  }
  return instantiate(code, label, options);
}

async function instantiate(code: string, label: string, options: LearnerLoadOptions): Promise<LoadedLearner> {
  const timeoutMs = options.buildTimeoutMs ?? DEFAULT_BUILD_TIMEOUT_MS;
  await probe({ code, label, settings: options.settings, groupSize: options.groupSize }, timeoutMs);
  const exports = await importBundle(code, label, timeoutMs);
  const { spec, entry } = learnerExports(exports, label);
  // Called on this thread from now on: under a watchdog (watchdog.ts), as the probe was.
  const guarded: LearnerEntry = entry.kind === 'numeric'
    ? { kind: 'numeric', buildLosses: watched(label, 'buildLosses', timeoutMs, entry.buildLosses) }
    : { kind: 'text', buildLoss: watched(label, 'buildLoss', timeoutMs, entry.buildLoss) };
  return { label, spec, entry: guarded, code };
}

/**
 * Imports a bundle on this thread (rlx/learner resolved to this rlx's surface). Its top-level code
 * runs under the watchdog (watchdog.ts), as its calls do later: the bundle, an ES module, is
 * turned into a CommonJS function by esbuild and called inside the watchdog's vm script, since an
 * ES module's evaluation cannot be bounded on the thread that imports it. A bundle with top-level
 * await (only an ES module holds one) is imported as it is.
 */
export async function importBundle(code: string, label: string, timeoutMs = DEFAULT_BUILD_TIMEOUT_MS): Promise<Record<string, unknown>> {
  (globalThis as Record<symbol, unknown>)[LEARNER_API_GLOBAL] = learnerApi;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-learner-'));
  const file = path.join(dir, 'learner.mjs');
  try {
    const commonJs = await asCommonJs(code, pathToFileURL(file).href);
    if (commonJs !== undefined) return evaluateWatched(commonJs, file, label, timeoutMs);
    fs.writeFileSync(file, code);
    const intrinsics = snapshotIntrinsics();
    let exports: Record<string, unknown>;
    try {
      exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (err) {
      restoreIntrinsics(intrinsics);
      throw new LearnerModuleError(`${label}: the module threw while loading: ${describeThrown(err)}`);
    }
    const changed = restoreIntrinsics(intrinsics);
    if (changed.length > 0) throw changedIntrinsicsError(changed, label, "the module's top-level code");
    return exports;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The bundle as the body of a CommonJS module, or undefined where it cannot be one (top-level await). */
async function asCommonJs(code: string, url: string): Promise<string | undefined> {
  const esbuild = await import('esbuild');
  try {
    const out = await esbuild.transform(code, { format: 'cjs', platform: 'node', target: 'node20', loader: 'js', logLevel: 'silent', define: { 'import.meta.url': JSON.stringify(url) } });
    return `'use strict';${out.code}`;
  } catch {
    return undefined;
  }
}

function evaluateWatched(commonJs: string, file: string, label: string, timeoutMs: number): Record<string, unknown> {
  const module = { exports: {} as Record<string, unknown> };
  try {
    const body = vm.runInThisContext(`(function (exports, require, module, __filename, __dirname) {${commonJs}\n})`, { filename: file }) as (...args: unknown[]) => void;
    callWatched(label, "the module's top-level code", timeoutMs, () => body.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file)), "a module's top-level code must define its exports and return");
  } catch (err) {
    if (err instanceof LearnerModuleError) throw err;
    throw new LearnerModuleError(`${label}: the module threw while loading: ${describeThrown(err)}`);
  }
  return module.exports;
}

/** The module's spec (checked as the checker checks its text) and the function its kind exports: buildLoss (text) or buildLosses (numeric). */
export function learnerExports(exports: Record<string, unknown>, label: string): { spec: LearnerModuleSpec; entry: LearnerEntry } {
  // The exports are the module's values: a getter or a Proxy among them runs its code when read.
  return readingModuleValue(label, "the module's exports", () => readExports(exports, label));
}

function readExports(exports: Record<string, unknown>, label: string): { spec: LearnerModuleSpec; entry: LearnerEntry } {
  if (exports.spec === undefined) throw new LearnerModuleError(`${label}: the module exports no spec; add \`export const spec = { kind: 'text', settings: { ... } }\` (docs/learners.md#writing-a-learner-module)`);
  const read = learnerModuleSpec(exports.spec);
  if ('problem' in read) throw new LearnerModuleError(`${label}: ${read.problem}`);
  if (read.spec.kind === 'numeric') {
    if (typeof exports.buildLosses !== 'function') throw new LearnerModuleError(`${label}: the module exports no buildLosses function; a numeric learner adds \`export function buildLosses(g, batch, networks, settings) { ... return { critics: { loss }, actor: { loss } }; }\` (docs/learners.md#numeric-learners)`);
    return { spec: read.spec, entry: { kind: 'numeric', buildLosses: exports.buildLosses as BuildNumericLosses } };
  }
  if (typeof exports.buildLoss !== 'function') throw new LearnerModuleError(`${label}: the module exports no buildLoss function; add \`export function buildLoss(g, batch, settings) { ... return { loss }; }\` (docs/learners.md#writing-a-learner-module)`);
  return { spec: read.spec, entry: { kind: 'text', buildLoss: exports.buildLoss as BuildTextLoss } };
}

/** Runs the probe in a worker; stops it after `timeoutMs`. */
function probe(request: ProbeRequest, timeoutMs: number): Promise<void> {
  const worker = new Worker(workerFile(), { workerData: request, execArgv: [] });
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => finish(new LearnerModuleError(
      `${request.label}: loading the module and calling buildLoss(es) did not finish within ${timeoutMs / 1000} s (a loop that never ends?); buildLoss(es) must build the graph and return (build_timeout sets the limit)`)), timeoutMs);
    worker.on('message', (reply: ProbeReply) => finish(reply.ok ? undefined : new LearnerModuleError(reply.message)));
    worker.on('error', (err) => finish(new LearnerModuleError(`${request.label}: the module failed while loading: ${describeThrown(err)}`)));
    worker.on('exit', (code) => finish(new LearnerModuleError(`${request.label}: the module ended its thread (exit code ${code}) while loading or building its loss`)));
  });
}

/** The worker script, next to this file (compiled: probe-worker.js; bundled: learner-worker.mjs). */
function workerFile(): URL {
  for (const name of ['./probe-worker.js', './learner-worker.mjs']) {
    const url = new URL(name, import.meta.url);
    if (fs.existsSync(url)) return url;
  }
  throw new Error(`the worker script probe-worker.js is missing next to ${new URL('.', import.meta.url).pathname}`);
}
