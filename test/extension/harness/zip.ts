// Reads a .vsix (a zip) without a dependency: the central directory for the listing, local
// entries inflated for extraction. Enough for vsce's output (stored or deflated, no zip64).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  size: number;
  method: number;
  compressedSize: number;
  localOffset: number;
  /** Unix mode from the external attributes, when the zip was made on Unix. */
  mode: number;
}

export function listZip(file: string): ZipEntry[] {
  const buf = fs.readFileSync(file);
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error(`${file} is not a zip file (no end of central directory)`);
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry ${i} in ${file}`);
    const nameLength = buf.readUInt16LE(at + 28);
    const extraLength = buf.readUInt16LE(at + 30);
    const commentLength = buf.readUInt16LE(at + 32);
    entries.push({
      name: buf.toString('utf8', at + 46, at + 46 + nameLength),
      method: buf.readUInt16LE(at + 10),
      compressedSize: buf.readUInt32LE(at + 20),
      size: buf.readUInt32LE(at + 24),
      mode: buf.readUInt32LE(at + 38) >>> 16,
      localOffset: buf.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

export function extractZip(file: string, into: string): void {
  const buf = fs.readFileSync(file);
  for (const entry of listZip(file)) {
    if (entry.name.endsWith('/')) continue;
    const target = path.resolve(into, entry.name);
    if (!target.startsWith(path.resolve(into) + path.sep)) throw new Error(`zip entry outside the target: ${entry.name}`);
    const local = entry.localOffset;
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(start, start + entry.compressedSize);
    const data = entry.method === 0 ? raw : entry.method === 8 ? inflateRawSync(raw) : undefined;
    if (!data) throw new Error(`unsupported compression ${entry.method} for ${entry.name}`);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, data);
    if (entry.mode & 0o111) fs.chmodSync(target, entry.mode & 0o777);
  }
}
