// Following a run's events.jsonl as it grows (docs/run-directory.md): the trainer appends whole
// lines, a reader may look at any moment. poll() takes what was appended since, at once (a
// live run's few lines a second); read() takes a long history (hundreds of MB) in pieces
// without holding the event loop (the editor's extension host must stay responsive), handing
// each piece's events on as it goes and saying how far it got. Both go on from the same byte
// offset, so a dashboard reads the history in the background and then follows the run.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunEvent } from './events.js';
import { MAX_EVENT_LINE_BYTES, openRunFile, RUN_FILE_LIMITS, runFileExists } from './run-files.js';

/** How much of events.jsonl one poll() read takes: a long history is parsed piece by piece, never as one string. */
const EVENT_CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * How much read() parses between two turns of the event loop: a few ms of JSON.parse, so
 * whatever else the extension host has to do waits no longer than that (and a collection).
 */
export const READ_CHUNK_BYTES = 512 * 1024;

export interface ReadOptions {
  /** Stops the read between two pieces; the tail then stands where it stopped. */
  signal?: AbortSignal;
  /** After each piece: the bytes read so far (from where the read started) and how many there were to read. */
  onProgress?: (read: number, total: number) => void;
  /** Bytes a piece (tests cut lines with small ones). */
  chunkBytes?: number;
}

/**
 * Follows events.jsonl as it grows: each poll() returns the events appended since the last
 * one. A line still being written (no newline yet) waits for the next poll; a file that
 * shrank (replaced) is read again from the start (`restarts` counts it). The file is read
 * through run-files.ts: a link out of the run folder, a FIFO or a device, or a file over its
 * limit is refused with an InputError (the caller says which run); a line longer than any
 * event is skipped.
 */
export class EventTail {
  private offset = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Whether the line being gathered is already too long: its bytes are dropped up to its newline. */
  private overlong = false;
  /** Whether the bytes up to the next newline are the end of a line left out (skip()): dropped, not counted. */
  private resync = false;
  /** Lines that were complete but not JSON (a trainer killed mid-write long ago), or too long: skipped. */
  skipped = 0;
  /** How many times the file shrank and was read again from the start: what was had of it is void. */
  restarts = 0;

  /** `runDir`: the run folder the file must stay inside (the file's folder by default). */
  constructor(
    readonly file: string,
    readonly runDir: string = path.dirname(file),
  ) {}

  /** Bytes of the file not read yet (its whole size after it shrank); 0 when it is not there or not readable. */
  unread(): number {
    try {
      const size = fs.statSync(this.file).size;
      return size < this.offset ? size : size - this.offset;
    } catch {
      return 0;
    }
  }

  poll(): RunEvent[] {
    if (!runFileExists(this.file)) return [];
    const { fd, size } = openRunFile(this.runDir, this.file, RUN_FILE_LIMITS.events);
    try {
      this.restartIfShrunk(size);
      const events: RunEvent[] = [];
      while (this.offset < size) {
        const chunk = Buffer.allocUnsafe(Math.min(EVENT_CHUNK_BYTES, size - this.offset));
        const n = fs.readSync(fd, chunk, 0, chunk.length, this.offset);
        if (n === 0) break; // shrank while reading: the next poll starts again
        this.offset += n;
        this.take(chunk.subarray(0, n), events);
      }
      return events;
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * What poll() would return, read without blocking: the file as long as it is now, in pieces
   * read asynchronously, each piece's events given to `onEvents` before the next is read (an
   * event loop turn in between). Returns whether it read to the end; when `signal` stopped it,
   * the tail stands where it stopped (poll() or read() go on from there, or skip() leaves the
   * rest out). The same refusals as poll(), as an InputError.
   */
  async read(onEvents: (events: RunEvent[]) => void, options: ReadOptions = {}): Promise<boolean> {
    if (!runFileExists(this.file)) return true;
    const { fd, size } = openRunFile(this.runDir, this.file, RUN_FILE_LIMITS.events);
    // Two buffers: the next piece is read (fs.read, on libuv's pool) while this one is parsed,
    // and between pieces the event loop serves everything else; a piece's parsing is the
    // longest it waits.
    const pieceBytes = Math.min(options.chunkBytes ?? READ_CHUNK_BYTES, Math.max(1, size));
    const buffers = [Buffer.allocUnsafe(pieceBytes), Buffer.allocUnsafe(pieceBytes)];
    let next: Promise<number> | undefined;
    try {
      this.restartIfShrunk(size);
      const start = this.offset;
      const total = size - start;
      let at = this.offset;
      let which = 0;
      const readNext = () => (at < size ? readAt(fd, buffers[which], Math.min(pieceBytes, size - at), at) : undefined);
      next = readNext();
      while (next) {
        const n = await next;
        next = undefined;
        if (n === 0) break; // shrank while reading: the next poll starts again
        const piece = buffers[which].subarray(0, n);
        at += n;
        which ^= 1;
        if (!options.signal?.aborted) next = readNext();
        this.offset = at;
        const events: RunEvent[] = [];
        this.take(piece, events);
        onEvents(events);
        options.onProgress?.(this.offset - start, total);
        if (options.signal?.aborted) return this.offset >= size;
      }
      return true;
    } finally {
      // A piece still being read must land before its descriptor closes.
      if (next) await next.catch(() => 0);
      fs.closeSync(fd);
    }
  }

  /**
   * Leaves out what is not read yet: the next poll() starts at the file's end as it is now, at
   * the start of a line (the rest of a line cut there is dropped, not counted as skipped). For a
   * read the user stopped: the run is followed from here on.
   */
  skip(): void {
    if (!runFileExists(this.file)) return;
    const { fd, size } = openRunFile(this.runDir, this.file, RUN_FILE_LIMITS.events);
    try {
      this.restartIfShrunk(size);
      if (size === this.offset) return;
      const before = Buffer.alloc(1);
      const atLineStart = fs.readSync(fd, before, 0, 1, size - 1) === 1 && before[0] === 10;
      this.pending = [];
      this.pendingBytes = 0;
      this.overlong = false;
      this.resync = !atLineStart;
      this.offset = size;
    } finally {
      fs.closeSync(fd);
    }
  }

  private restartIfShrunk(size: number): void {
    if (size >= this.offset) return;
    this.offset = 0;
    this.pending = [];
    this.pendingBytes = 0;
    this.overlong = false;
    this.resync = false;
    this.restarts++;
  }

  /** Splits `bytes` at newlines (a byte that never occurs inside a UTF-8 character), parsing each complete line. */
  private take(bytes: Buffer, events: RunEvent[]): void {
    let start = 0;
    if (this.resync) {
      const nl = bytes.indexOf(10);
      if (nl === -1) return;
      this.resync = false;
      start = nl + 1;
    }
    for (let nl = bytes.indexOf(10, start); nl !== -1; nl = bytes.indexOf(10, start)) {
      if (this.pendingBytes === 0 && !this.overlong && nl - start <= MAX_EVENT_LINE_BYTES) {
        this.parse(bytes.toString('utf8', start, nl), events); // the common case: a whole line in this chunk
        start = nl + 1;
        continue;
      }
      this.gather(bytes.subarray(start, nl));
      if (!this.overlong) this.parse(Buffer.concat(this.pending, this.pendingBytes).toString('utf8'), events);
      this.pending = [];
      this.pendingBytes = 0;
      this.overlong = false;
      start = nl + 1;
    }
    this.gather(bytes.subarray(start));
  }

  private gather(piece: Buffer): void {
    if (this.overlong || piece.length === 0) return;
    if (this.pendingBytes + piece.length > MAX_EVENT_LINE_BYTES) {
      this.overlong = true;
      this.skipped++;
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    // A copy: a subarray would keep the whole chunk alive until the line ends (and read()
    // reuses its chunk for the next piece).
    this.pending.push(Buffer.from(piece));
    this.pendingBytes += piece.length;
  }

  private parse(line: string, events: RunEvent[]): void {
    if (line.trim() === '') return;
    try {
      events.push(JSON.parse(line) as RunEvent);
    } catch {
      this.skipped++;
    }
  }
}

function readAt(fd: number, buffer: Buffer, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => fs.read(fd, buffer, 0, length, position, (err, n) => (err ? reject(err) : resolve(n))));
}
