// rlx export RUN_DIR --to DIR [--merge]: a pretrained policy's training result as Hugging Face
// files: a LoRA run as a PEFT adapter folder (with --merge, the base model with the adapters
// merged in), a full fine-tuning run as a complete model folder. Both load in transformers
// and vLLM, and the model folder loads back into rlx as pretrained("DIR"). The folder is written
// beside DIR under a temporary name and renamed to DIR once whole (runtime/atomic-files.ts
// writeFolderAtomic): a full disk or a kill leaves no half-written DIR to block a retry.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { displayPath, parseCommandArgs, type Command } from '../command.js';
import { UserError } from '../files.js';

const usage = 'rlx export RUN_DIR --to DIR [--merge]';

export const exportCommand: Command = {
  name: 'export',
  summary: "write a pretrained policy's training result as a Hugging Face model folder or a PEFT adapter",
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs('export', argv, { to: { type: 'string' }, merge: { type: 'boolean' } }, usage);
    if (positionals.length !== 1) throw new UserError(`name one run directory\nusage: ${usage}`);
    if (values.to === undefined) throw new UserError(`--to DIR is required: the folder to write\nusage: ${usage}`);
    const out = values.to;
    checkTarget(out);
    const [{ readRunPolicy }, { exportPretrained }, { writeFolderAtomic }] = await Promise.all([
      import('../../runtime/run-policy.js'), import('../../runtime/lm/export.js'), import('../../runtime/atomic-files.js'),
    ]);
    const policy = readRunPolicy(positionals[0]!);
    if (values.merge && !policy.manifest.lora) process.stderr.write('rlx export: --merge has nothing to merge (the run trained every weight); writing the model folder\n');
    let written: ReturnType<typeof writeFolderAtomic<ReturnType<typeof exportPretrained>>>;
    try {
      written = writeFolderAtomic(out, (temporary) => exportPretrained(policy.manifest, policy.weights, temporary, { merge: values.merge ?? false, recordedIn: policy.manifestFile, weightsFile: policy.stateFile }));
    } catch (err) {
      throw systemError(err, out) ?? err;
    }
    const { result, temporary } = written;
    process.stderr.write(`rlx export: wrote ${result.kind === 'adapter' ? 'a PEFT adapter' : 'a model folder'} from step ${policy.step} to ${displayPath(out)}\n`);
    for (const file of result.files) process.stdout.write(`${displayPath(path.join(out, path.relative(temporary, file)))}\n`);
    return 0;
  },
};

/** Nothing a user wrote is overwritten, and nothing is written through a link: `out` must be new, or an empty folder. */
function checkTarget(out: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(out);
  } catch {
    return; // new (a parent that is a file is said when the folder is made)
  }
  if (stat.isSymbolicLink()) {
    const dangling = !fs.existsSync(out);
    throw new UserError(`--to ${out} is a symbolic link (to ${fs.readlinkSync(out)}${dangling ? ', which names nothing' : ''}); rlx export writes a folder of its own and never through a link: name a new folder`);
  }
  if (!stat.isDirectory() || fs.readdirSync(out).length > 0) throw new UserError(`${out} already exists and is not an empty folder; export into a new folder`);
}

/** What the machine refused while the folder was written, in words, and what to do. */
const SYSTEM_ERRORS: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device (or no free inodes); free some space, or export elsewhere with --to DIR',
  EDQUOT: 'the disk quota is exhausted; free some space, or export elsewhere with --to DIR',
  EROFS: 'the file system is read-only; export elsewhere with --to DIR',
  EACCES: "permission denied; check the folder's permissions, or export elsewhere with --to DIR",
  EPERM: "operation not permitted; check the folder's permissions, or export elsewhere with --to DIR",
  ENOTDIR: 'a part of the path is a file, not a folder; name a folder for --to whose parents are folders (or new)',
  ENAMETOOLONG: 'the path is too long for the file system; name a shorter --to',
  ELOOP: 'too many levels of symbolic links in the path; name another --to',
  EIO: 'an input/output error; check the disk',
  EFBIG: 'a file is larger than this process may write; raise the limit on file sizes (ulimit -f)',
  EMFILE: 'too many open files; raise the limit of open files (ulimit -n)',
  ENOTEMPTY: 'the folder was filled meanwhile; export into a new folder',
  EEXIST: 'the folder was made meanwhile; export into a new folder',
  ENOENT: 'that folder cannot be created there; export elsewhere with --to DIR',
};

function systemError(err: unknown, out: string): UserError | undefined {
  const { code } = err as NodeJS.ErrnoException;
  const reason = typeof code === 'string' ? SYSTEM_ERRORS[code] : undefined;
  if (reason === undefined) return undefined;
  return new UserError(`cannot export to ${displayPath(out)}: ${reason} (${code}); nothing was left there`, { cause: err });
}
