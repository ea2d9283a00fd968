// File system errors in words, one table for every reader of a user's files: the checker's
// hosts (server/disk.ts, which the command line's `rlx check` uses too) and the trainer's
// (runtime/input-files.ts), so that `rlx check` and `rlx train` name the same reason.
// Import-free: both sides may load it.

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a folder, not a file',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the path is too long',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EIO: 'an input/output error',
};

/** The reason of a file system error in words; else its code; else `fallback` (the error's message by default). */
export function fileErrorReason(err: unknown, fallback?: string): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && code !== '') return REASONS[code] ?? code;
  return fallback ?? String((err as Error | undefined)?.message ?? err);
}
