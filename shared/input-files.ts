// Reading files that come from strangers: datasets, env modules, model folders, run folders.
// A path may name a FIFO (open() blocks forever, deaf to SIGTERM), a device (/dev/zero never
// ends) or a file far larger than memory; each is refused before a byte is read. The file is
// opened without blocking and checked on its descriptor (fstat), so what is checked is what is
// read even if the path changes in between. Symbolic links are followed (a Hugging Face cache
// links every file of a model into a blobs/ folder) but must end at a regular file.
import * as fs from 'node:fs';
import { fileErrorReason } from './file-errors.js';
import { formatBytes } from './format.js';
import { InputError } from './input-error.js';

/** A file rlx will not read; the message names the file, what it is for and why. */
export class InputFileError extends InputError {
  override name = 'InputFileError';
}

export interface InputFileOptions {
  /** What the file is for, in the message: "dataset", "model weights", "the run's status". */
  readonly what: string;
  /** The largest size accepted, in bytes. */
  readonly maxBytes: number;
}

export { formatBytes };

/**
 * Opens `file` for reading if it is a regular file of at most `maxBytes`; returns the open
 * descriptor and its size (close it). Otherwise an InputFileError saying what it is.
 */
export function openInputFile(file: string, options: InputFileOptions): { fd: number; size: number } {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting forever.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (err) {
    throw new InputFileError(`cannot read the ${options.what} ${file}: ${fileErrorReason(err)}`);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) throw new InputFileError(`the ${options.what} ${file} is a folder, not a file`);
    if (!stat.isFile()) throw new InputFileError(`the ${options.what} ${file} is not a regular file (a device, pipe or socket); rlx reads only regular files`);
    if (stat.size > options.maxBytes) {
      throw new InputFileError(`the ${options.what} ${file} is ${formatBytes(stat.size)}, more than the ${formatBytes(options.maxBytes)} rlx reads for it`);
    }
    return { fd, size: stat.size };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** The bytes of `file`, a regular file of at most `maxBytes` (see openInputFile). */
export function readInputFile(file: string, options: InputFileOptions): Buffer {
  const { fd, size } = openInputFile(file, options);
  try {
    const bytes = Buffer.allocUnsafe(size);
    let at = 0;
    while (at < size) {
      const n = fs.readSync(fd, bytes, at, size - at, at);
      if (n === 0) break; // shrank while reading
      at += n;
    }
    return at === size ? bytes : bytes.subarray(0, at);
  } catch (err) {
    if (err instanceof InputFileError) throw err;
    throw new InputFileError(`cannot read the ${options.what} ${file}: ${fileErrorReason(err)}`);
  } finally {
    fs.closeSync(fd);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The text of `file` (UTF-8, a leading byte-order mark dropped); invalid UTF-8 is an InputFileError. */
export function readInputText(file: string, options: InputFileOptions): string {
  const bytes = readInputFile(file, options);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new InputFileError(`the ${options.what} ${file} is not UTF-8 text; save it as UTF-8`);
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The JSON value in `file` (see readInputText); a syntax error names the file. */
export function readInputJson(file: string, options: InputFileOptions): unknown {
  const text = readInputText(file, options);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputFileError(`the ${options.what} ${file} is not valid JSON: ${(err as Error).message}`);
  }
}
