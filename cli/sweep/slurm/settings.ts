// A sweep's `slurm { }` settings, read from its plan against the schema registry (which declares
// them, their defaults and docs: dsl/schema/declarations.ts), with the checks the registry's
// types cannot state: Slurm's formats of a time limit and of an amount of memory.
import { DECLARATION_SCHEMAS, type PlanValue } from '../../../dsl/schema/index.js';
import { PlanParams } from '../../../runtime/plan-params.js';
import { UserError } from '../../files.js';
import { LINE_BREAK } from './script.js';

export interface SlurmSettings {
  partition?: string;
  time: string;
  cpus: number;
  mem?: string;
  gpus: number;
  account?: string;
  /** sbatch options, one `#SBATCH` line each. */
  extra: string[];
}

const BLOCK = DECLARATION_SCHEMAS.sweep.blocks.find((b) => b.name === 'slurm')!;

/** Slurm's time limits: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS (sbatch --time). */
const TIME = /^(\d+|\d+:\d{1,2}|\d+:\d{1,2}:\d{1,2}|\d+-\d{1,2}(:\d{1,2}(:\d{1,2})?)?)$/;
/** sbatch --mem: a whole number, megabytes unless a unit follows. */
const MEM = /^\d+[KMGT]?$/;

/** The settings of sweep `sweep`; `given` is its plan's `sweep.slurm` (null when the file has no `slurm { }` block). */
export function slurmSettings(sweep: string, given: Readonly<Record<string, PlanValue>> | null): SlurmSettings {
  const owner = `sweep ${sweep}: slurm`;
  const params = new PlanParams(owner, BLOCK.params, given ?? {}, (_owner, _param, message) => new UserError(message));
  const text = (name: string): string | undefined => {
    const v = params.value(name);
    if (v === null) return undefined;
    if (typeof v !== 'string') return params.fail(name, 'a string');
    // Each setting is written into one #SBATCH line, which bash reads too: a line break would start a command.
    if (LINE_BREAK.test(v)) throw new UserError(`${owner}.${name} ${JSON.stringify(v)} holds a line break or a NUL character; a Slurm setting is one line of the job script`);
    return v;
  };
  const time = text('time')!;
  if (!TIME.test(time)) throw new UserError(`${owner}.time "${time}" is not a Slurm time limit; write minutes ("90"), "HH:MM:SS" ("02:00:00") or "D-HH:MM:SS" ("1-12:00:00")`);
  const mem = text('mem');
  if (mem !== undefined && !MEM.test(mem)) throw new UserError(`${owner}.mem "${mem}" is not an amount of memory for sbatch; write a whole number with K, M, G or T ("4G", "512M")`);
  const extra = params.value('extra');
  if (!Array.isArray(extra) || extra.some((e) => typeof e !== 'string')) params.fail('extra', 'a list of strings');
  for (const line of extra as string[]) {
    // One option per line: a line break would start a line of the script, outside #SBATCH.
    if (LINE_BREAK.test(line)) throw new UserError(`${owner}.extra: ${JSON.stringify(line)} spans lines; write one sbatch option per string`);
  }
  return {
    partition: text('partition'),
    time,
    cpus: params.count('cpus'),
    mem,
    gpus: params.number('gpus'),
    account: text('account'),
    extra: extra as string[],
  };
}
