// rlx plan FILE [--experiment NAME]: the plan JSON the trainer would run, on stdout.
import * as path from 'node:path';
import { analyze, compile, stringifyPlan, Workspace, writePlanList, type Plans } from '../../dsl/index.js';
import { parseCommandArgs, type Command } from '../command.js';
import { diskHost, readSourceFile, UserError } from '../files.js';
import { checkFiles } from './check.js';

const usage = 'rlx plan FILE [--experiment NAME]';

/** Compiles one experiment or sweep of a file; a UserError listing the problems otherwise. */
export function planFile(file: string, experiment?: string): Plans {
  const text = readSourceFile(file);
  const workspace = new Workspace(diskHost);
  workspace.setOverlay(file, text);
  // As rlx check: a model folder's files are read as the trainer will read them.
  const analysis = analyze(workspace, [path.resolve(file)], { readModelFiles: true });
  const result = compile(analysis, file, experiment);
  if (result.ok) return result.plans;
  // Show the errors themselves, not just their count.
  const errors = checkFiles([file]).diagnostics.filter((d) => d.severity === 'error');
  const listed = errors.slice(0, 10).map((d) => `  ${d.file}:${d.line}:${d.column}: ${d.code}: ${d.message}`).join('\n');
  throw new UserError(result.error + (listed ? `\n${listed}${errors.length > 10 ? `\n  ... and ${errors.length - 10} more` : ''}` : ''));
}

export const planCommand: Command = {
  name: 'plan',
  summary: 'print the resolved plan JSON of an experiment (a sweep: the list of its plans)',
  usage,
  run(argv) {
    const { values, positionals } = parseCommandArgs('plan', argv, { experiment: { type: 'string', short: 'e' } }, usage);
    if (positionals.length !== 1) throw new UserError(`name one .rlx file\nusage: ${usage}`);
    const plans = planFile(positionals[0], values.experiment as string | undefined);
    const isSweep = plans.count > 0 && plans.at(0).sweep !== null;
    // A sweep's list is written a plan at a time: it may be larger than memory.
    if (isSweep) writePlanList(plans, (chunk) => process.stdout.write(chunk));
    else process.stdout.write(stringifyPlan(plans.at(0)));
    return 0;
  },
};
