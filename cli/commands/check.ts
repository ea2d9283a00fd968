// rlx check FILE...: diagnostics as `file:line:col: severity code: message`, exit 1 on errors.
// The command is the user's own, so it may run their Python: a gymnasium(...) env is probed once
// (runtime/envs/python/probe-cache.ts, cached on disk) so that its names are checked; --no-probe
// leaves them to training.
import * as path from 'node:path';
import { analyze, LineIndex, Workspace, type Diagnostic, type PythonEnvFactsProvider } from '../../dsl/index.js';
import { PythonEnvProbes } from '../../runtime/envs/python/probe-cache.js';
import { displayPath, parseCommandArgs, type Command } from '../command.js';
import { diskHost, expandSourceArgs, readSourceFile, UserError } from '../files.js';

const usage = 'rlx check [--json] [--no-probe] FILE|DIR...';

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

/** Checks files (and what they import); diagnostics with 1-based lines and columns. */
export function checkFiles(files: string[], pythonEnvs?: PythonEnvFactsProvider): { diagnostics: LocatedDiagnostic[]; empty: string[] } {
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
  return { diagnostics: located, empty };
}

export const checkCommand: Command = {
  name: 'check',
  summary: 'report errors and warnings in .rlx files',
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs('check', argv, { json: { type: 'boolean' }, 'no-probe': { type: 'boolean' } }, usage);
    if (positionals.length === 0) throw new UserError(`name at least one .rlx file\nusage: ${usage}`);
    const files = expandSourceArgs(positionals);
    const probes = values['no-probe'] ? undefined : new PythonEnvProbes();
    let { diagnostics, empty } = checkFiles(files, probes);
    if (probes?.busy) {
      // The first check started the probes its envs needed; the second reads their answers.
      await probes.idle();
      ({ diagnostics, empty } = checkFiles(files, probes));
    }
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
    if (values.json) {
      process.stdout.write(JSON.stringify({ files: files.map(displayPath), errors, warnings, diagnostics }, null, 2) + '\n');
      return errors > 0 ? 1 : 0;
    }
    for (const file of empty) process.stderr.write(`${displayPath(file)}: note: the file is empty; there is nothing to check\n`);
    for (const d of diagnostics) process.stdout.write(`${d.file}:${d.line}:${d.column}: ${d.severity} ${d.code}: ${d.message}\n`);
    const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
    process.stderr.write(`${plural(errors, 'error')}, ${plural(warnings, 'warning')} in ${plural(files.length, 'file')}\n`);
    return errors > 0 ? 1 : 0;
  },
};
