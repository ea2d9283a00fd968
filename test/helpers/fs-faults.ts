// A machine's file system failing under rlx, for command-line tests: preloaded into the rlx
// process (`node --import <this file> bin/rlx.js ...`), it makes node:fs refuse writes under one
// folder as a real machine would, from the environment variable RLX_TEST_FS_FAULT (JSON):
//   { "under": DIR, "code": "ENOSPC", "kind": "create", "after": N }  the N+1-th new file or
//       folder under DIR fails (no free inodes: ENOSPC; a read-only file system: EROFS, N = 0)
//   { "under": DIR, "code": "ENOSPC", "kind": "write", "after": BYTES }  writes under DIR fail
//       once BYTES have been written (a full disk: the file gets what fit)
// Without the variable it changes nothing. syncBuiltinESMExports carries the change into rlx's
// `import * as fs` (as test/runtime/run/disk-full.test.ts does in-process).
import type * as FS from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import * as path from 'node:path';

interface Fault {
  readonly under: string;
  readonly code: string;
  readonly kind: 'create' | 'write';
  readonly after: number;
}

const spec = process.env.RLX_TEST_FS_FAULT;
if (spec) install(JSON.parse(spec) as Fault);

function install(fault: Fault): void {
  const fs = createRequire(import.meta.url)('node:fs') as typeof FS;
  const { openSync, writeSync, writeFileSync, mkdirSync, closeSync } = fs;
  const root = path.resolve(fault.under);
  const inside = (p: unknown) => typeof p === 'string' && path.resolve(p).startsWith(root + path.sep);
  const fail = (syscall: string, p?: string): never => {
    throw Object.assign(new Error(`${fault.code}: simulated, ${syscall}${p ? ` '${p}'` : ''}`), { code: fault.code, syscall, path: p });
  };
  let created = 0;
  let written = 0;
  let nested = false;
  const watched = new Set<number>();
  const create = (syscall: string, p: string) => {
    if (fault.kind === 'create' && ++created > fault.after) fail(syscall, p);
  };
  /** How many of `n` bytes fit; throws when none do. */
  const room = (n: number): number => {
    if (fault.kind !== 'write') return n;
    const fits = Math.max(0, Math.min(n, fault.after - written));
    if (fits === 0 && n > 0) fail('write');
    written += fits;
    return fits;
  };

  fs.openSync = ((p: FS.PathLike, flags?: FS.OpenMode, mode?: FS.Mode) => {
    const writes = typeof flags === 'string' ? /[wa+]/.test(flags) : typeof flags === 'number' && (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR)) !== 0;
    if (!nested && writes && inside(p)) create('open', String(p));
    const fd = openSync(p, flags as FS.OpenMode, mode);
    if (writes && inside(p)) watched.add(fd);
    return fd;
  }) as typeof fs.openSync;
  fs.closeSync = ((fd: number) => {
    watched.delete(fd);
    closeSync(fd);
  }) as typeof fs.closeSync;
  fs.writeSync = ((fd: number, buffer: NodeJS.ArrayBufferView | string, ...rest: unknown[]) => {
    if (nested || !watched.has(fd) || typeof buffer === 'string') return (writeSync as (...args: unknown[]) => number)(fd, buffer, ...rest);
    const offset = typeof rest[0] === 'number' ? rest[0] : 0;
    const length = typeof rest[1] === 'number' ? rest[1] : buffer.byteLength - offset;
    return writeSync(fd, buffer, offset, room(length), rest[2] as number | null | undefined);
  }) as typeof fs.writeSync;
  fs.writeFileSync = ((p: FS.PathOrFileDescriptor, data: string | NodeJS.ArrayBufferView, options?: FS.WriteFileOptions) => {
    if (!inside(p)) return writeFileSync(p, data, options);
    create('open', String(p));
    const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    nested = true;
    try {
      const fits = fault.kind === 'write' ? Math.max(0, Math.min(bytes.length, fault.after - written)) : bytes.length;
      writeFileSync(p, bytes.subarray(0, fits), options);
      written += fits;
      if (fits < bytes.length) fail('write', String(p));
    } finally {
      nested = false;
    }
  }) as typeof fs.writeFileSync;
  fs.mkdirSync = ((p: FS.PathLike, options?: FS.MakeDirectoryOptions) => {
    if (inside(p)) create('mkdir', String(p));
    return mkdirSync(p, options);
  }) as typeof fs.mkdirSync;
  syncBuiltinESMExports();
}
