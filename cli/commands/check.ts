// rlx check FILE...: diagnostics as `file:line:col: severity code: message`, exit 1 on errors.
// The command is the user's own, so it may run their Python: a gymnasium(...) env is probed once
// (runtime/envs/python/probe-cache.ts, cached on disk) so that its names are checked; --no-probe
// leaves them to training.
import * as path from 'node:path';
import { analyze, LineIndex, Workspace, type Diagnostic, type PythonEnvFactsProvider } from '../../dsl/index.js';
import { experimentMemory, formatBytes } from '../../dsl/check/pretrained-memory.js';
import { KV_CACHE_COPIES, RUNTIME_BYTES } from '../../hf/memory.js';
import { PythonEnvProbes } from '../../runtime/envs/python/probe-cache.js';
import { displayPath, parseCommandArgs, type Command } from '../command.js';
import { diskHost, expandSourceArgs, readSourceFile, UserError } from '../files.js';

const usage = 'rlx check [--json] [--no-probe] [--memory] FILE|DIR...';

export interface LocatedDiagnostic {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: Diagnostic['severity'];
  code: string;
  message: string;
  fixes?: Diagnostic['fixes'];
}

/** What one experiment with a pretrained policy will hold in memory (`--memory`). */
export interface ExperimentMemoryReport {
  file: string;
  experiment: string;
  basis: string;
  microBatch?: number;
  checkpointing?: boolean;
  /** The LoRA base held as float16 (lora { base_dtype }). */
  halfBase?: boolean;
  parts: Record<string, number>;
  total: number;
}

/** Checks files (and what they import); diagnostics with 1-based lines and columns; with `memory`, each pretrained experiment's estimate. */
export function checkFiles(files: string[], pythonEnvs?: PythonEnvFactsProvider, memory = false): { diagnostics: LocatedDiagnostic[]; empty: string[]; memory: ExperimentMemoryReport[] } {
  const workspace = new Workspace(diskHost);
  const empty: string[] = [];
  for (const file of files) {
    const text = readSourceFile(file); // throws a UserError with the reason when unreadable
    if (text.trim() === '') empty.push(file);
    workspace.setOverlay(file, text);
  }
  // A model folder's files are read as rlx train will read them (the editor only looks for them).
  const analysis = analyze(workspace, files.map((f) => path.resolve(f)), { readModelFiles: true, ...(pythonEnvs ? { pythonEnvs } : {}) });
  const located: LocatedDiagnostic[] = [];
  for (const unit of analysis.units) {
    const index = new LineIndex(unit.text);
    for (const d of analysis.diagnostics.get(unit.path) ?? []) {
      const start = index.position(d.range.start);
      const end = index.position(d.range.end);
      located.push({
        file: displayPath(unit.path),
        line: start.line + 1,
        column: start.character + 1,
        endLine: end.line + 1,
        endColumn: end.character + 1,
        severity: d.severity,
        code: d.code,
        message: d.message,
        ...(d.fixes ? { fixes: d.fixes } : {}),
      });
    }
  }
  const reports: ExperimentMemoryReport[] = [];
  if (memory) {
    const roots = new Set(files.map((f) => path.resolve(f)));
    for (const symbol of analysis.model.allSymbols()) {
      if (symbol.decl.declKind !== 'experiment' || !roots.has(symbol.unit.path)) continue;
      const found = experimentMemory(analysis.model, symbol);
      if (!found) continue;
      const e = found.estimate;
      reports.push({
        file: displayPath(symbol.unit.path),
        experiment: symbol.name,
        basis: found.basis,
        ...(e.microBatch !== undefined ? { microBatch: e.microBatch, checkpointing: e.checkpointing ?? false } : {}),
        ...(e.halfBase ? { halfBase: true } : {}),
        parts: { runtime: RUNTIME_BYTES, weights: e.weights, reference: e.reference, gradients: e.gradients, optimizer: e.optimizer, kv_cache: e.kvCache, activations: e.activations },
        total: e.total,
      });
    }
  }
  return { diagnostics: located, empty, memory: reports };
}

const GIB = 2 ** 30;

/** `--memory`'s lines for one experiment: its basis, each part, the micro-batch chosen, and a line starting `total`. */
export function memoryLines(r: ExperimentMemoryReport): string[] {
  const names: Record<string, string> = { runtime: 'the runtime (Node, onnxruntime, the tokenizer)', weights: r.halfBase ? 'weights (the base in float16)' : 'weights (float32)', reference: 'KL reference copy', gradients: 'gradients', optimizer: 'Adam state', kv_cache: `KV cache (held about ${KV_CACHE_COPIES} times while decoding)`, activations: 'activations' };
  const lines = [`${r.file}: experiment ${r.experiment}: ${r.basis}`];
  if (r.microBatch !== undefined) lines.push(`  micro_batch ${r.microBatch}, gradient_checkpointing ${r.checkpointing ? 'on' : 'off'}`);
  for (const [key, bytes] of Object.entries(r.parts)) if (bytes > 0) lines.push(`  ${names[key] ?? key}: ${formatBytes(bytes)}`);
  lines.push(`total ${(r.total / GIB).toFixed(2)} GiB (experiment ${r.experiment})`);
  return lines;
}

export const checkCommand: Command = {
  name: 'check',
  summary: 'report errors and warnings in .rlx files',
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs('check', argv, { json: { type: 'boolean' }, 'no-probe': { type: 'boolean' }, memory: { type: 'boolean' } }, usage);
    if (positionals.length === 0) throw new UserError(`name at least one .rlx file\nusage: ${usage}`);
    const files = expandSourceArgs(positionals);
    const probes = values['no-probe'] ? undefined : new PythonEnvProbes();
    let { diagnostics, empty, memory } = checkFiles(files, probes, values.memory === true);
    if (probes?.busy) {
      // The first check started the probes its envs needed; the second reads their answers.
      await probes.idle();
      ({ diagnostics, empty, memory } = checkFiles(files, probes, values.memory === true));
    }
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
    if (values.json) {
      process.stdout.write(JSON.stringify({ files: files.map(displayPath), errors, warnings, diagnostics, ...(values.memory ? { memory } : {}) }, null, 2) + '\n');
      return errors > 0 ? 1 : 0;
    }
    for (const file of empty) process.stderr.write(`${displayPath(file)}: note: the file is empty; there is nothing to check\n`);
    for (const d of diagnostics) process.stdout.write(`${d.file}:${d.line}:${d.column}: ${d.severity} ${d.code}: ${d.message}\n`);
    if (values.memory) {
      for (const report of memory) process.stdout.write(memoryLines(report).join('\n') + '\n');
      if (memory.length === 0) process.stderr.write('note: no experiment here trains a pretrained model whose config.json could be read; --memory estimates those only\n');
    }
    const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
    process.stderr.write(`${plural(errors, 'error')}, ${plural(warnings, 'warning')} in ${plural(files.length, 'file')}\n`);
    return errors > 0 ? 1 : 0;
  },
};
