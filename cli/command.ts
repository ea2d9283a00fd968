// The shape of one `rlx` sub-command, and small helpers they share.
import * as path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UserError } from './files.js';

export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** Returns the process exit code. */
  run(argv: string[]): Promise<number> | number;
}

type CommandArgsConfig<T> = { args: string[]; options: T; allowPositionals: true; strict: true };

/** node:util parseArgs, with its errors turned into messages that name the command. */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(
  command: string, argv: string[], options: T, usage: string,
): ReturnType<typeof parseArgs<CommandArgsConfig<T>>> {
  try {
    return parseArgs<CommandArgsConfig<T>>({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UserError(`${(err as Error).message.replace(/\. To specify a positional.*$/, '')}\nusage: ${usage}`);
  }
}

/** A path as the user would like to see it: relative to where they are, when that is shorter. */
export function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && rel.length < file.length ? rel : file;
}
