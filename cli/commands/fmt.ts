// rlx fmt FILE...: rewrite files in canonical layout (--check: list unformatted ones; --stdout: print).
import * as fs from 'node:fs';
import { format } from '../../dsl/format/index.js';
import { displayPath, parseCommandArgs, type Command } from '../command.js';
import { writeFileAtomic } from '../../runtime/atomic-files.js';
import { expandSourceArgs, readSourceFile, UserError } from '../files.js';
import { runRecordingOf } from '../../server/disk.js';

const usage = 'rlx fmt [--check | --stdout] FILE|DIR...';

export const fmtCommand: Command = {
  name: 'fmt',
  summary: 'format .rlx files in place (--check lists unformatted files, --stdout prints)',
  usage,
  run(argv) {
    const { values, positionals } = parseCommandArgs('fmt', argv, { check: { type: 'boolean' }, stdout: { type: 'boolean' } }, usage);
    if (positionals.length === 0) throw new UserError(`name at least one .rlx file\nusage: ${usage}`);
    if (values.check && values.stdout) throw new UserError(`--check and --stdout do not go together\nusage: ${usage}`);
    let failed = 0;
    let unformatted = 0;
    for (const file of expandSourceArgs(positionals)) {
      const text = readSourceFile(file);
      const result = format(text);
      if (!result.ok) {
        process.stderr.write(`${displayPath(file)}: not formatted: ${result.reason}\n`);
        failed++;
        continue;
      }
      if (values.stdout) {
        process.stdout.write(result.text);
      } else if (result.text !== text) {
        unformatted++;
        if (values.check) process.stdout.write(`${displayPath(file)}\n`);
        else if (rewrite(file, result.text)) process.stderr.write(`formatted ${displayPath(file)}\n`);
        else failed++;
      }
    }
    if (values.check && unformatted > 0) process.stderr.write(`${unformatted} file${unformatted === 1 ? '' : 's'} would be reformatted; run rlx fmt on ${unformatted === 1 ? 'it' : 'them'}\n`);
    return failed > 0 || (values.check && unformatted > 0) ? 1 : 0;
  },
};

/**
 * Replaces a file's text as an editor would: through a symbolic link (the link stays a link),
 * keeping the file's mode, never over a read-only file (the user made it so: say so and leave
 * it) and never over a run's recorded source (named on its own, it is not skipped as in a folder). False, with the reason on stderr, when the file was left alone.
 */
function rewrite(file: string, text: string): boolean {
  const target = fs.realpathSync(file);
  // A run's recorded source is its record of what trained: formatting it would rewrite history.
  const run = runRecordingOf(file) ?? runRecordingOf(target);
  if (run !== undefined) {
    process.stderr.write(`${displayPath(file)}: not formatted: it is the recorded source of the run ${displayPath(run)}, which no command changes; format the spec the run was trained from (or print the result with --stdout)\n`);
    return false;
  }
  const mode = fs.statSync(target).mode & 0o7777;
  // The write bits, not access(): root may write anywhere, but a read-only file is still a "no".
  if ((mode & 0o222) === 0) {
    process.stderr.write(`${displayPath(file)}: not formatted: the file is read-only; make it writable (chmod u+w), or print the result with --stdout\n`);
    return false;
  }
  // readSourceFile drops a UTF-8 byte-order mark; put it back, as editors keep it when they save.
  writeFileAtomic(target, hasByteOrderMark(target) ? `\uFEFF${text}` : text);
  fs.chmodSync(target, mode);
  return true;
}

function hasByteOrderMark(file: string): boolean {
  const head = Buffer.alloc(3);
  const fd = fs.openSync(file, 'r');
  try {
    return fs.readSync(fd, head, 0, 3, 0) === 3 && head.equals(Buffer.from([0xef, 0xbb, 0xbf]));
  } finally {
    fs.closeSync(fd);
  }
}
