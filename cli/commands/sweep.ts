// rlx sweep FILE [--sweep NAME]: trains a sweep's members, each as its own `rlx train --member K`
// process, `parallel` at a time (cli/sweep/scheduler.ts), recording them in <runs>/<sweep>/sweep.json
// (cli/sweep/state.ts). A failed member does not stop the others; Ctrl-C stops every running member
// cleanly and `--resume` continues where the sweep stopped.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEVICES, type DeviceRequest } from '../../runtime/device.js';
import { readRun } from '../../runtime/run/reader.js';
import { displayPath, parseCommandArgs, type Command } from '../command.js';
import { UserError } from '../files.js';
import { formatDuration } from '../progress.js';
import { chooseSweep, describeMember, statesParallel, SweepMembers } from '../sweep/members.js';
import { SweepProgress, type SweepCounts } from '../sweep/progress.js';
import { SweepScheduler, type MemberLaunch, type MemberOutcome } from '../sweep/scheduler.js';
import { followSlurmSweep, submitSlurmSweep } from '../sweep/slurm/command.js';
import { memberLog, memberRunDir, readSweepState, stateFile, sweepDir, writeSweepState, type SweepState } from '../sweep/state.js';
import { planFile } from './plan.js';

const usage = [
  'rlx sweep FILE [--sweep NAME] [--out DIR] [--parallel N] [--device auto|cpu|cuda|webgpu] [--tensorboard]',
  '       rlx sweep FILE [--sweep NAME] [--out DIR] --resume',
  '       rlx sweep FILE [--sweep NAME] [--out DIR] --status | --cancel   (backend: slurm: its members; scancel)',
  '       (each member is an `rlx train FILE --sweep NAME --member K` process; --parallel overrides the',
  "        sweep's parallel:, which defaults to what the machine affords; state in DIR/NAME/sweep.json)",
].join('\n');

const options = {
  sweep: { type: 'string' },
  out: { type: 'string', short: 'o' },
  parallel: { type: 'string' },
  device: { type: 'string' },
  tensorboard: { type: 'boolean' },
  resume: { type: 'boolean' },
  status: { type: 'boolean' },
  cancel: { type: 'boolean' },
} as const;

/** Memory one member may take (a small policy with onnxruntime loaded, measured ~300 MiB): the default leaves room for this much each. */
const MEMBER_MEMORY_BYTES = 512 * 2 ** 20;

/** What the machine affords when the sweep says nothing: a member per core, fewer when memory is short. */
export function machineParallel(cores = os.availableParallelism(), freeBytes = os.freemem()): { parallel: number; reason: string } {
  const byMemory = Math.max(1, Math.floor(freeBytes / MEMBER_MEMORY_BYTES));
  if (byMemory < cores) return { parallel: byMemory, reason: `${(freeBytes / 2 ** 30).toFixed(1)} GiB of free memory, ${MEMBER_MEMORY_BYTES / 2 ** 20} MiB a member` };
  return { parallel: cores, reason: `${cores} core${cores === 1 ? '' : 's'}` };
}

export const sweepCommand: Command = {
  name: 'sweep',
  summary: "train a sweep's members as parallel processes (--resume continues one)",
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs('sweep', argv, options, usage);
    if (positionals.length !== 1) throw new UserError(`name one .rlx file\nusage: ${usage}`);
    const file = positionals[0];
    const device = values.device as DeviceRequest | undefined;
    if (device !== undefined && !DEVICES.includes(device)) throw new UserError(`--device must be one of ${DEVICES.join(', ')}, got '${device}'`);
    const parallelFlag = values.parallel === undefined ? undefined : /^[0-9]+$/.test(values.parallel) ? Number(values.parallel) : NaN;
    if (parallelFlag !== undefined && !(Number.isSafeInteger(parallelFlag) && parallelFlag >= 1)) throw new UserError(`--parallel needs a whole number >= 1 written in digits, got '${values.parallel}'`);

    const name = chooseSweep(file, values.sweep as string | undefined, 'rlx sweep trains the members of a sweep');
    if (values.status === true || values.cancel === true) {
      return followSlurmSweep({ file, sweep: name, runsDir: path.resolve(values.out ?? 'runs') }, values.cancel === true ? 'cancel' : 'status', process.stdout);
    }
    const plans = planFile(file, name);
    const members = new SweepMembers(name, plans);
    if (members.count === 0) throw new UserError(`sweep ${name} has no members`);
    const first = members.at(0).plan;
    // Refuse what the trainer would refuse before starting any member: every value of every axis once.
    const { checkPlan } = await import('../../runtime/train.js');
    for (const plan of plans.variants()) checkPlan(plan);
    // backend: slurm: one job array; Slurm queues the members (cli/sweep/slurm/).
    if (first.sweep!.backend === 'slurm') {
      if (values.resume === true) throw new UserError(`--resume continues a local sweep; a Slurm sweep's stopped members resume with rlx train --resume RUN_DIR (see rlx sweep ${file} --status)`);
      const parallel = parallelFlag ?? (statesParallel(file, name) ? first.sweep!.parallel : undefined);
      return submitSlurmSweep({ file, sweep: name, runsDir: path.resolve(values.out ?? 'runs'), members, parallel, device, tensorboard: values.tensorboard }, process.stdout);
    }

    const runsRoot = path.resolve(values.out ?? 'runs');
    const dir = sweepDir(runsRoot, name);
    const previous = readSweepState(dir);
    if (values.resume !== true && previous !== undefined) {
      throw new UserError(`sweep ${name} was started in ${displayPath(dir)} already (${displayPath(stateFile(dir))}); continue it with --resume, or start another with --out DIR`);
    }
    if (values.resume === true && previous === undefined) {
      throw new UserError(`there is no sweep ${name} to resume in ${displayPath(dir)} (no sweep.json); start it with rlx sweep ${file}${values.out ? ` --out ${values.out}` : ''}`);
    }
    const numbering = members.numbering();
    if (previous !== undefined && (previous.count !== members.count || previous.numbering !== numbering)) {
      throw new UserError(`sweep ${name}'s lists changed since it started in ${displayPath(dir)} (${previous.count} members then, ${members.count} now): member numbers would mean other runs; start it anew with --out DIR`);
    }
    const state: SweepState = previous ?? {
      rlx_sweep: 1, file: path.resolve(file), sweep: name, experiment: first.experiment, count: members.count, numbering,
      backend: 'local', started: new Date().toISOString(), members: {},
    };
    writeSweepState(dir, state);

    const cores = os.availableParallelism();
    const stated = statesParallel(file, name) ? first.sweep!.parallel : undefined;
    const chosen = parallelFlag ?? stated;
    const machine = machineParallel(cores);
    const parallel = Math.min(chosen ?? machine.parallel, members.count);
    const label = `rlx sweep ${name}`;
    const err = process.stderr;
    const why = parallelFlag !== undefined ? '--parallel' : stated !== undefined ? 'parallel: in the sweep' : `what this machine affords: ${machine.reason}; set parallel: N in the sweep or --parallel N`;
    err.write(`${label}: ${members.count} member${members.count === 1 ? '' : 's'}, ${parallel} at a time (${why})\n`);
    if (parallel > cores) err.write(`${label}: warning: ${parallel} members at a time on ${cores} core${cores === 1 ? '' : 's'}: they will share cores and each go slower\n`);

    // What to run: members never started, and the ones that stopped or failed (resumed from their checkpoint when they have one).
    const counts: SweepCounts = { total: members.count, done: 0, running: 0, failed: 0, stopped: 0 };
    const common = [...(device ? ['--device', device] : []), ...(values.tensorboard ? ['--tensorboard'] : []), ...(parallel > 1 ? ['--threads', '1'] : [])];
    const skippedRunning: number[] = [];
    for (const [key, rel] of Object.entries(state.members)) {
      const run = readRun(path.resolve(runsRoot, rel));
      if (run.state === 'finished') counts.done++;
      else if (run.state === 'running') skippedRunning.push(Number(key));
    }
    if (skippedRunning.length > 0) err.write(`${label}: member${skippedRunning.length === 1 ? '' : 's'} ${skippedRunning.join(', ')} still training in another process; left alone\n`);
    function* launches(): Generator<MemberLaunch> {
      for (let k = 0; k < members.count; k++) {
        const runDir = memberRunDir(dir, state, k);
        const run = runDir !== undefined ? readRun(runDir) : undefined;
        if (run?.state === 'finished' || run?.state === 'running') continue;
        if (runDir !== undefined && hasCheckpoint(runDir)) yield { index: k, args: ['train', '--resume', runDir, ...common], runDir };
        else yield { index: k, args: ['train', file, '--sweep', name, '--member', String(k), '--out', runsRoot, ...common] };
      }
    }

    const failures: MemberOutcome[] = [];
    const started = Date.now();
    const progress = new SweepProgress(err, label, () => ({ ...counts }), parallel);
    const memberName = (k: number) => `member ${k} (${describeMember(members.at(k))})`;
    const scheduler = new SweepScheduler({
      script: process.argv[1],
      parallel,
      logFile: (k) => memberLog(dir, k),
      onStart: (launch) => {
        counts.running++;
        if (launch.runDir) process.stdout.write(`${displayPath(launch.runDir)}\n`);
        if (!err.isTTY) progress.message(`${label}: ${launch.runDir ? 'resuming' : 'starting'} ${memberName(launch.index)}`);
      },
      onRunDir: (k, runDir) => {
        state.members[String(k)] = path.relative(runsRoot, runDir);
        writeSweepState(dir, state);
        // Like `rlx train`: stdout carries the run directories, each as its run starts.
        process.stdout.write(`${displayPath(runDir)}\n`);
      },
      onEnd: (o) => {
        counts.running--;
        if (o.state === 'finished') counts.done++;
        else if (o.state === 'failed') {
          counts.failed++;
          failures.push(o);
        } else counts.stopped++;
        if (o.state === 'finished') progress.memberTook(o.seconds);
        progress.message(`${label}: ${memberName(o.index)} ${o.state} after ${formatDuration(o.seconds)}${o.error ? `: ${o.error}` : ''}  [${progress.summary()}]`);
      },
    });

    // Ctrl-C (or the editor's Stop): each running member stops cleanly; again: they exit at once.
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signals++;
      progress.message(signals === 1
        ? `${label}: ${signal}; stopping the ${counts.running} running member${counts.running === 1 ? '' : 's'} (final checkpoints; again to end them at once)`
        : `${label}: ${signal} again; ending the members at once`);
      scheduler.stop();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      await scheduler.run(launches());
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      progress.done();
    }

    const elapsed = formatDuration((Date.now() - started) / 1000);
    const resumeHint = `rlx sweep ${file} --sweep ${name}${values.out ? ` --out ${values.out}` : ''} --resume`;
    const ended = [`${counts.done}/${counts.total} finished`, ...(counts.failed ? [`${counts.failed} failed`] : []), ...(counts.stopped ? [`${counts.stopped} stopped`] : [])];
    err.write(`${label}: ${ended.join(', ')} in ${elapsed}\n`);
    if (failures.length > 0) {
      err.write(`${label}: ${failures.length} member${failures.length === 1 ? '' : 's'} failed (logs in ${displayPath(path.join(dir, 'logs'))}):\n`);
      for (const f of failures.sort((a, b) => a.index - b.index)) err.write(`  ${memberName(f.index)}: ${f.error ?? 'failed'}${f.runDir ? ` (${displayPath(f.runDir)})` : ''}\n`);
    }
    if (signals > 0) {
      err.write(`${label}: stopped; continue with: ${resumeHint}\n`);
      return 130;
    }
    if (failures.length > 0) {
      err.write(`${label}: after fixing the cause, ${resumeHint} runs the failed members again\n`);
      return 1;
    }
    return 0;
  },
};

/** A run directory with a checkpoint to resume from (a member stopped before its first has none: it starts afresh). */
function hasCheckpoint(runDir: string): boolean {
  try {
    return fs.readdirSync(path.join(runDir, 'checkpoints')).some((f) => /^state-\d+\.json$/.test(f));
  } catch {
    return false;
  }
}
