// rlx fmt FILE...: rewrite files in canonical layout (--check: list unformatted ones; --stdout: print).
import { format } from '../../dsl/format/index.js';
import { displayPath, parseCommandArgs, type Command } from '../command.js';
import { writeFileAtomic } from '../../runtime/atomic-files.js';
import { expandSourceArgs, readSourceFile, UserError } from '../files.js';

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
        else {
          writeFileAtomic(file, result.text);
          process.stderr.write(`formatted ${displayPath(file)}\n`);
        }
      }
    }
    if (values.check && unformatted > 0) process.stderr.write(`${unformatted} file${unformatted === 1 ? '' : 's'} would be reformatted; run rlx fmt on ${unformatted === 1 ? 'it' : 'them'}\n`);
    return failed > 0 || (values.check && unformatted > 0) ? 1 : 0;
  },
};
