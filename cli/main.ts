// `rlx`: the command line. Each sub-command lives in commands/; this file only dispatches and
// turns errors into messages (a stack trace only with RLX_DEBUG=1).
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from './command.js';
import { isInputError } from '../shared/input-error.js';
import { checkCommand } from './commands/check.js';
import { fmtCommand } from './commands/fmt.js';
import { planCommand } from './commands/plan.js';
import { evalCommand } from './commands/eval.js';
import { trainCommand } from './commands/train.js';
import { sweepCommand } from './commands/sweep.js';
import { lspCommand } from './commands/lsp.js';
import { tokenizeCommand } from './commands/tokenize.js';
import { generateCommand } from './commands/generate.js';
import { exportCommand } from './commands/export.js';
import { recordCommand } from './commands/record.js';

const COMMANDS: Command[] = [checkCommand, fmtCommand, planCommand, trainCommand, sweepCommand, evalCommand, recordCommand, exportCommand, tokenizeCommand, generateCommand, lspCommand];

/** rlx's version from its package.json, found above this file (compiled or bundled alike). */
function version(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version: string };
    if (pkg.name === 'rlx') return pkg.version;
  }
  return 'unknown';
}

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'rlx: reinforcement-learning experiments as code',
    '',
    'usage: rlx COMMAND [options]',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'rlx COMMAND --help shows the usage of one command.',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(help() + '\n');
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(version() + '\n');
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`rlx: unknown command '${name}'\n\n${help()}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.summary}\nusage: ${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    // A refusal of what the user gave (a spec, a dataset, a flag, a run folder): its message, exit 2.
    if (isInputError(err)) {
      process.stderr.write(`rlx ${command.name}: ${err.message}\n${process.env.RLX_DEBUG ? `${debugStack(err)}\n` : ''}`);
      return 2;
    }
    const e = err as Error;
    process.stderr.write(`rlx ${command.name}: internal error: ${e.message}\n` +
      (process.env.RLX_DEBUG ? `${debugStack(e)}\n` : 'This is a bug in rlx; run again with RLX_DEBUG=1 for details and report it.\n'));
    return 70;
  }
}

/** The stack of `err` and of the errors it wraps (`cause`): the error's class leads each. */
function debugStack(err: Error): string {
  const cause = (err as { cause?: unknown }).cause;
  return `${err.stack ?? String(err)}${cause instanceof Error ? `\ncaused by: ${debugStack(cause)}` : ''}`;
}
