// rlx train FILE | --plan PLAN.json | --resume RUN_DIR: trains and writes run directories.
// Several seeds (or the members of a sweep) run one after another, each in its own run
// directory, unless --seed picks one, or --member one member of a sweep (what `rlx sweep` and a
// Slurm array task run; --list-members prints the members instead). SIGINT/SIGTERM stop cleanly
// (final checkpoint, status `stopped`); a second signal exits at once.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Plans, type Plan } from '../../dsl/index.js';
import { DEVICES, selectDevice, type DeviceRequest } from '../../runtime/device.js';
import { isInputError } from '../../shared/input-error.js';
import { readInputJson } from '../../shared/input-files.js';
import { RUN_BUNDLE, type SourceFile } from '../../runtime/run/run-dir.js';
import type { RunFailedError, TrainOptions, TrainResult } from '../../runtime/train.js';
import { returnsSummary, type ReturnsFacts } from '../../shared/returns-summary.js';
import { displayPath, parseCommandArgs, type Command } from '../command.js';
import { UserError } from '../files.js';
import { progressReporter } from '../progress.js';
import { chooseSweep, describeMember, SweepMembers } from '../sweep/members.js';
import { planFile } from './plan.js';

const usage = [
  'rlx train FILE [--experiment NAME] [--seed N] [--out DIR] [--device auto|cpu|cuda|webgpu]',
  '       rlx train FILE [--sweep NAME] --member K [--out DIR] [--device ...]',
  '         (member K of the sweep, 0-based: one combination of its values and one seed)',
  '       rlx train FILE [--sweep NAME] --list-members [--member K]',
  '         (one line per member: index, its values and seed)',
  '       rlx train --plan PLAN.json [--seed N] [--out DIR] [--device ...]',
  '       rlx train --resume RUN_DIR [--device ...]',
  '       (also --checkpoint-every STEPS, --threads 1|2, --tensorboard: TensorBoard files in <run>/tensorboard/)',
].join('\n');

const options = {
  experiment: { type: 'string', short: 'e' },
  sweep: { type: 'string' },
  member: { type: 'string' },
  'list-members': { type: 'boolean' },
  seed: { type: 'string' },
  out: { type: 'string', short: 'o' },
  device: { type: 'string' },
  plan: { type: 'string' },
  resume: { type: 'string' },
  'checkpoint-every': { type: 'string' },
  threads: { type: 'string' },
  tensorboard: { type: 'boolean' },
} as const;

/** Digits only: Number() would also take '' (0), '0x10' (16), '1e3' (1000) and ' 7 '. */
function wholeNumber(value: string | undefined, flag: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min) throw new UserError(`--${flag} needs a whole number >= ${min} written in digits, got '${value}'`);
  return n;
}

/** The largest plan file read: `rlx plan` of a sweep of 20,000 members writes ~60 MiB. */
const MAX_PLAN_BYTES = 512 * 2 ** 20;

/** Plans from a plan.json (one plan, or the list `rlx plan` prints for a sweep). */
function readPlanFile(file: string): Plan[] {
  // A regular file of bounded size (not a FIFO or /dev/zero), valid JSON: an InputFileError naming it otherwise.
  const value = readInputJson(file, { what: 'plan', maxBytes: MAX_PLAN_BYTES });
  const plans = Array.isArray(value) ? value : [value];
  if (plans.length === 0) throw new UserError(`'${file}' lists no plans; write one with \`rlx plan FILE > plan.json\``);
  for (const plan of plans) {
    if (typeof plan !== 'object' || plan === null || !('rlx_plan' in plan)) {
      throw new UserError(`'${file}' is not an rlx plan (no "rlx_plan" field); write one with \`rlx plan FILE > plan.json\``);
    }
  }
  return plans as Plan[];
}

/** The .rlx files a plan was compiled from, read from beside the entry file. */
function sourcesBeside(entryDir: string, plan: Plan): SourceFile[] {
  return plan.source.files.map((rel) => ({ path: rel, text: fs.readFileSync(path.join(entryDir, rel), 'utf8') }));
}

/** A plan.json inside a run directory brings that run's source snapshot along. */
function sourcesOfRun(planPath: string): SourceFile[] {
  const dir = path.join(path.dirname(planPath), 'source');
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((rel) => fs.statSync(path.join(dir, rel)).isFile())
    .sort()
    .map((rel) => ({ path: rel.split(path.sep).join('/'), text: fs.readFileSync(path.join(dir, rel), 'utf8') }));
}

/** Loaded when needed, not at the top: it brings onnxruntime, which the other commands do not need. */
const loadTrainer = () => import('../../runtime/train.js');

/** What the file system said, in words, and what to do, for the errors a user's machine causes (not bugs in rlx). */
const SYSTEM_ERRORS: Record<string, [reason: string, hint: string]> = {
  EACCES: ['permission denied', "check the folder's permissions, or train elsewhere with --out DIR"],
  EPERM: ['operation not permitted', "check the folder's permissions, or train elsewhere with --out DIR"],
  EROFS: ['the file system is read-only', 'train elsewhere with --out DIR'],
  ENOSPC: ['no space left on the device', 'free some space, or train elsewhere with --out DIR'],
  EDQUOT: ['the disk quota is exhausted', 'free some space, or train elsewhere with --out DIR'],
  ENOTDIR: ['a part of the path is a file, not a folder', 'check the path given to --out'],
  EMFILE: ['too many open files', 'raise the limit of open files (ulimit -n)'],
  ENFILE: ['too many open files', 'raise the limit of open files (ulimit -n)'],
  EIO: ['an input/output error', 'check the disk'],
  EFBIG: ['the file is larger than this process may write', 'raise the limit on file sizes (ulimit -f)'],
  // Run folders are named after the experiment (and sweep): a name over 255 bytes is no folder name.
  ENAMETOOLONG: ['a folder name in the path is too long for the file system', "shorten the experiment's (or sweep's) name, which names its run folders, or the --out path"],
  // Not ENOENT in general (a file rlx expected is a bug): a folder that cannot be made, as under /proc.
  'ENOENT mkdir': ['that folder cannot be created there', 'train elsewhere with --out DIR'],
};

/** "cannot mkdir 'runs/X': permission denied (EACCES); ...", or undefined for an error that is not the system's. */
function systemErrorMessage(err: Error): string | undefined {
  const { code, syscall, path: where } = err as NodeJS.ErrnoException;
  const key = code === 'ENOENT' && syscall === 'mkdir' ? 'ENOENT mkdir' : code;
  const known = key !== undefined ? SYSTEM_ERRORS[key] : undefined;
  if (!known) return undefined;
  return `cannot ${syscall ?? 'write'}${where ? ` '${displayPath(where)}'` : ''}: ${known[0]} (${code}); ${known[1]}`;
}

/**
 * What the machine refused, and a run that failed, into messages without a stack trace; the
 * trainer's refusals of the spec (InputErrors) go on as they are.
 */
function asUserError(err: unknown): unknown {
  if (isInputError(err) || !(err instanceof Error)) return err;
  if (err.name === 'RunFailedError') {
    const failed = err as RunFailedError;
    const message = systemErrorMessage(failed.cause) ?? err.message;
    return new UserError(`training failed: ${message}\nthe run directory ${displayPath(failed.runDir)} is marked failed`, { cause: err });
  }
  const system = systemErrorMessage(err);
  return system !== undefined ? new UserError(system, { cause: err }) : err;
}

export const trainCommand: Command = {
  name: 'train',
  summary: 'train an experiment (or resume a run) into run directories',
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs('train', argv, options, usage);
    const sourcesGiven = [positionals.length > 0, values.plan !== undefined, values.resume !== undefined].filter(Boolean).length;
    if (sourcesGiven !== 1 || positionals.length > 1) throw new UserError(`name one .rlx file, or --plan PLAN.json, or --resume RUN_DIR\nusage: ${usage}`);
    const device = values.device as DeviceRequest | undefined;
    if (device !== undefined && !DEVICES.includes(device)) throw new UserError(`--device must be one of ${DEVICES.join(', ')}, got '${device}'`);
    if (values.resume !== undefined && (values.seed !== undefined || values.out !== undefined || values.experiment !== undefined || values.sweep !== undefined)) {
      throw new UserError('--resume continues a run as it was: --seed, --out, --experiment and --sweep do not apply');
    }
    if (values.sweep !== undefined && values.experiment !== undefined) throw new UserError('--sweep and --experiment both name what to train; give one');
    const memberIndex = wholeNumber(values.member, 'member', 0);
    const addressesMembers = memberIndex !== undefined || values['list-members'] === true;
    if ((addressesMembers || values.sweep !== undefined) && positionals.length !== 1) throw new UserError(`--sweep, --member and --list-members take an .rlx file: rlx train FILE --sweep NAME --member K\nusage: ${usage}`);
    if (memberIndex !== undefined && values.seed !== undefined) throw new UserError('a member has its own seed: --seed does not apply with --member (see --list-members)');
    const name = (values.sweep ?? values.experiment) as string | undefined;
    // --member/--list-members address a sweep's members (cli/sweep/members.ts); --sweep must name a sweep.
    const members = () => {
      const sweep = chooseSweep(positionals[0], name);
      return new SweepMembers(sweep, planFile(positionals[0], sweep));
    };
    if (values.sweep !== undefined && !addressesMembers) chooseSweep(positionals[0], values.sweep as string);
    if (values['list-members'] === true) {
      await listMembers(members(), memberIndex);
      return 0;
    }
    const member = memberIndex !== undefined ? members().at(memberIndex) : undefined;
    const seed = member?.seed ?? wholeNumber(values.seed, 'seed', 0);
    const checkpointEvery = wholeNumber(values['checkpoint-every'], 'checkpoint-every', 1);
    const threads = wholeNumber(values.threads, 'threads', 1);
    if (threads !== undefined && threads > 2) throw new UserError(`--threads must be 1 or 2, got '${values.threads}'`);

    // Stop cleanly on the first signal; leave at once on the second.
    const controller = new AbortController();
    let signalled: NodeJS.Signals | undefined;
    const reporter = progressReporter(process.stderr, 'rlx train');
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) {
        reporter.message(`rlx train: ${signal} again; exiting without a final checkpoint`);
        process.exit(signal === 'SIGINT' ? 130 : 143);
      }
      signalled = signal;
      reporter.message(`rlx train: ${signal}; stopping after this update (final checkpoint; again to exit at once)`);
      controller.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const common: TrainOptions = {
      device,
      signal: controller.signal,
      checkpointEvery,
      compute: threads === undefined ? undefined : { threads: threads > 1 },
      tensorboard: values.tensorboard,
      // stdout carries the run directories only, each as its run starts: scripts and the editor
      // read where training goes from here instead of guessing it.
      onStart: (runDir) => process.stdout.write(`${displayPath(runDir)}\n`),
      onProgress: (p) => reporter.update(p),
      log: (message) => reporter.message(`rlx train: ${message}`),
    };
    const report = (result: TrainResult) => {
      reporter.done();
      const figures = returnsSummary(returnsFacts(result));
      process.stderr.write(`rlx train: ${result.status} at step ${result.step}: ${result.reason}${figures ? `; ${figures}` : ''}\n`);
    };
    try {
      if (values.resume !== undefined) {
        reporter.message(`rlx train: resuming ${displayPath(values.resume)}`);
        const { resume } = await loadTrainer();
        report(await resume(values.resume, common));
        return signalled ? exitCode(signalled) : 0;
      }
      let plans: Plans;
      let sourcesFor: (plan: Plan) => SourceFile[];
      // A user env module's path is relative to the .rlx file; a plan taken from a run directory
      // brings that run's bundled copy (source/env-module.mjs).
      let envModuleFor: (plan: Plan) => string | undefined;
      // Where a text task's dataset("...") path starts: the .rlx file's folder, or the run directory whose copy a --plan reads
      // (a python(...) env's file too: the run directory's record of it).
      let baseDir: string;
      if (values.plan !== undefined) {
        const planPath = values.plan;
        plans = Plans.of(readPlanFile(planPath));
        const sources = sourcesOfRun(planPath);
        sourcesFor = () => sources.filter((s) => s.path.endsWith('.rlx'));
        const bundled = path.join(path.dirname(planPath), RUN_BUNDLE.envModule);
        envModuleFor = (plan) => plan.env.module === undefined ? undefined
          : fs.existsSync(bundled) ? bundled : path.resolve(path.dirname(planPath), plan.env.module);
        baseDir = path.dirname(planPath);
      } else {
        const file = positionals[0];
        plans = member !== undefined ? Plans.of([member.plan]) : planFile(file, name);
        sourcesFor = (plan) => sourcesBeside(path.dirname(file), plan);
        envModuleFor = (plan) => (plan.env.module === undefined ? undefined : path.resolve(path.dirname(file), plan.env.module));
        baseDir = path.dirname(file);
      }
      // Probe the device once for all of them, in a child process, while the trainer loads.
      // A sweep's members are made one at a time as they train: there may be very many.
      const firstDevice = plans.at(0).device;
      const choosing = selectDevice(device ?? (firstDevice as DeviceRequest), plans.at(0));
      choosing.catch(() => {}); // awaited below, after the plans are checked
      const { checkPlan, train } = await loadTrainer();
      // Refuse before training any of them.
      for (const plan of plans) checkPlan(plan);
      const choice = await choosing;
      for (const plan of plans) {
        for (const runSeed of seed !== undefined ? [seed] : plan.seeds) {
          const which = member !== undefined ? ` (sweep ${plan.sweep!.name} member ${member.index}: ${describeMember(member)})`
            : plan.sweep ? ` (sweep ${plan.sweep.name} ${plan.sweep.index + 1}/${plan.sweep.count})` : '';
          reporter.message(`rlx train: ${plan.experiment}${which}, seed ${runSeed}`);
          report(await train(plan, { ...common, device: device !== undefined || plan.device === firstDevice ? choice : undefined, seed: runSeed, out: values.out, sources: sourcesFor(plan), envModule: envModuleFor(plan), baseDir }));
          if (signalled) return exitCode(signalled);
        }
      }
      return 0;
    } catch (err) {
      reporter.done();
      throw asUserError(err);
    } finally {
      // After a signal the command is ending: a press between here and the process's exit (the
      // workers ending, the output flushed) still exits 130 through onSignal, not by the signal.
      if (!signalled) {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    }
  },
};

/**
 * `--list-members`: `K<tab>values seed=S` a line per member (or member K's only), made as they
 * are written, waiting for the reader (a sweep may have millions); a reader that stops (`| head`)
 * ends the listing, not with an error.
 */
async function listMembers(members: SweepMembers, only: number | undefined): Promise<void> {
  const line = (k: number) => `${k}\t${describeMember(members.at(k))}\n`;
  if (only !== undefined) {
    process.stdout.write(line(only));
    return;
  }
  let closed = false;
  const onError = () => (closed = true);
  process.stdout.on('error', onError);
  try {
    for (let k = 0; k < members.count && !closed; k++) {
      if (!process.stdout.write(line(k))) await drained(process.stdout);
    }
  } finally {
    process.stdout.off('error', onError);
  }
}

/** Resolves when `stream` takes more writes (or fails: the reader went away). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('error', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('error', done);
  });
}

/**
 * The returns of a finished run with how each was measured: the evaluation's settings come
 * from the run's own plan.json (a resumed run's too), so the words match what was run.
 */
function returnsFacts(result: TrainResult): ReturnsFacts {
  let evalSettings: Plan['eval'] = null;
  try {
    evalSettings = (JSON.parse(fs.readFileSync(path.join(result.runDir, 'plan.json'), 'utf8')) as Plan).eval ?? null;
  } catch {
    // No readable plan: the figures go without their notes.
  }
  const m = result.metrics;
  // Text runs evaluate on their env's own held-out prompts or dialogues, not `eval { episodes }`.
  const text = m['train/mean_reward'] !== undefined || m['eval/accuracy'] !== undefined;
  return {
    evalMean: m['eval/mean_return'],
    evalEpisodes: text ? undefined : evalSettings?.episodes,
    evalDeterministic: evalSettings?.deterministic,
    trainMean: m['train/mean_return'],
    evalAccuracy: m['eval/accuracy'],
    evalSuccess: m['eval/success'],
    trainReward: m['train/mean_reward'],
  };
}

function exitCode(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? 130 : 143;
}
