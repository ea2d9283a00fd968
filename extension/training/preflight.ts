// Checks before a trainer starts, so that a wrong setting is one clear message rather than a
// failed run: the trainer exists, and the runs folder can be written. Node only (tested).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { trainerMissing, runsFolderUnwritable } from '../messages.js';
import { trainerFile, type TrainerCommand } from './command-line.js';

/** Why the trainer cannot run, or undefined when its file is there. */
export function checkTrainer(trainer: TrainerCommand): string | undefined {
  const file = trainerFile(trainer);
  if (file === undefined) return undefined; // a command found on PATH: its start says if it is missing
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return trainerMissing(file, trainer.bundled);
  } catch {
    return trainerMissing(file, trainer.bundled);
  }
  return undefined;
}

/** Creates the runs folder if needed and checks that it can be written; the reason when not. */
export function checkRunsFolder(folder: string): string | undefined {
  try {
    fs.mkdirSync(folder, { recursive: true });
    fs.accessSync(folder, fs.constants.W_OK);
    // access() trusts mode bits; a read-only mount or an ACL only shows on a real write.
    const probe = path.join(folder, `.rlx-write-test-${process.pid}`);
    fs.writeFileSync(probe, '');
    fs.rmSync(probe, { force: true });
    return undefined;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const reason = e.code === 'EACCES' || e.code === 'EPERM' ? 'permission denied' : e.code === 'EROFS' ? 'read-only file system' : e.code === 'ENOTDIR' ? 'a file is in the way' : (e.code ?? e.message);
    return runsFolderUnwritable(folder, reason);
  }
}
