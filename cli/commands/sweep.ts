// TEMPORARY (wt/slurm): a stand-in for wt/sweep's rlx sweep, dispatching backend: slurm only.
import * as path from 'node:path';
import { parseCommandArgs, type Command } from '../command.js';
import { UserError } from '../files.js';
import { chooseSweep } from '../sweep/members.js';
import { cancelSlurmSweepCommand, printSlurmSweepStatus, submitSlurmSweep } from '../sweep/slurm/command.js';

const usage = 'rlx sweep FILE [--sweep NAME] [--out DIR] [--status | --cancel]';
const options = { sweep: { type: 'string' }, out: { type: 'string', short: 'o' }, status: { type: 'boolean' }, cancel: { type: 'boolean' } } as const;

export const sweepCommand: Command = {
  name: 'sweep',
  summary: 'run a sweep',
  usage,
  run(argv) {
    const { values, positionals } = parseCommandArgs('sweep', argv, options, usage);
    if (positionals.length !== 1) throw new UserError(`name one .rlx file\nusage: ${usage}`);
    const request = { file: positionals[0], sweep: chooseSweep(positionals[0], values.sweep), runsDir: path.resolve(values.out ?? 'runs') };
    if (values.status) return printSlurmSweepStatus(request, process.stdout);
    if (values.cancel) return cancelSlurmSweepCommand(request, process.stdout);
    return submitSlurmSweep(request, process.stdout);
  },
};
