// Reading LSP messages off a byte stream (stdio) so that one bad message costs one error reply,
// never the connection. vscode-jsonrpc's own reader answers nothing to malformed JSON, and after a
// wrong Content-Length it reads the next message's body as headers, fails, and keeps failing on
// every message after it: the server goes deaf. Here a bad message is answered with a ParseError
// (id null, as JSON-RPC says) and reading starts again at the next header.
//
// Finding the next header is safe because a JSON body can never contain `Content-Length: 12`
// followed by a raw line break: outside a string those words are not JSON, and inside a string a
// line break must be escaped. So such a line inside what a Content-Length claims is body means the
// length was wrong, and the message really starts there.
import { AbstractMessageReader, Disposable, ErrorCodes, type DataCallback, type Message, type ResponseMessage } from 'vscode-languageserver/node';

export type Frame =
  | { kind: 'message'; message: Message }
  /** What a client should be told, as the error of a response with id null. */
  | { kind: 'malformed'; reply: ResponseMessage };

const HEADER_END = Buffer.from('\r\n\r\n', 'ascii');
const HEADER_NAMES = [Buffer.from('Content-Length:', 'ascii'), Buffer.from('content-length:', 'ascii')];
const HEADER_LINE = /^content-length:[ \t]*\d+\r\n/i;
/** Longer than any header a client sends; more bytes without a header end are not a header. */
const MAX_HEADER_BYTES = 8 * 1024;

/** Turns a stream of bytes into messages, resynchronising after malformed ones. */
export class Deframer {
  private buffer = Buffer.alloc(64 * 1024);
  private start = 0;
  private end = 0;
  /** The body length the current header announced; undefined while a header is awaited. */
  private bodyLength: number | undefined;
  /** How far into the current body a stray header has been looked for (so each byte is searched once). */
  private searched = 0;
  /** After a malformed message, the bytes up to the next good header are its remains: skipped without a second error. */
  private skipping = false;

  push(chunk: Buffer): Frame[] {
    this.append(chunk);
    const frames: Frame[] = [];
    for (;;) {
      const frame = this.bodyLength === undefined ? this.readHeader() : this.readBody(this.bodyLength);
      if (frame === 'wait') return frames;
      if (frame === 'continue') continue;
      if (frame.kind === 'malformed' && this.skipping) continue;
      this.skipping = frame.kind === 'malformed';
      frames.push(frame);
    }
  }

  private readHeader(): Frame | 'wait' | 'continue' {
    const pending = this.pending();
    const at = pending.indexOf(HEADER_END);
    if (at === -1) {
      if (pending.length <= MAX_HEADER_BYTES) return 'wait';
      return this.skipToNextHeader('the bytes before it are not a message header');
    }
    const lines = pending.subarray(0, at).toString('ascii').split('\r\n');
    const length = lines.map((l) => /^content-length:[ \t]*(\d+)[ \t]*$/i.exec(l)?.[1]).find((v) => v !== undefined);
    const wellFormed = lines.every((l) => l.includes(':'));
    if (length === undefined || !wellFormed) {
      return this.skipToNextHeader(`a message header needs 'Content-Length: <bytes>' lines of 'Name: value'; got ${JSON.stringify(lines.join('\\r\\n').slice(0, 80))}`);
    }
    this.start += at + HEADER_END.length;
    this.bodyLength = Number(length);
    this.searched = 0;
    this.skipping = false;
    return 'continue';
  }

  private readBody(length: number): Frame | 'wait' | 'continue' {
    const pending = this.pending();
    const window = pending.subarray(0, Math.min(length, pending.length));
    const stray = this.strayHeader(window);
    if (stray !== undefined) {
      this.start += stray;
      this.bodyLength = undefined;
      return malformed(ErrorCodes.ParseError, `the Content-Length (${length}) runs past the end of the message: the next message starts ${stray} bytes into it; that message is read, this one is dropped`);
    }
    if (pending.length < length) return 'wait';
    const body = pending.subarray(0, length).toString('utf8');
    this.start += length;
    this.bodyLength = undefined;
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch (err) {
      return malformed(ErrorCodes.ParseError, `the message is not valid JSON (${(err as Error).message})`);
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return malformed(ErrorCodes.InvalidRequest, 'a message must be a JSON object (batches are not part of LSP)');
    }
    return { kind: 'message', message: message as Message };
  }

  /** Where a whole `Content-Length: N\r\n` line starts inside the body bytes seen so far, if one does. */
  private strayHeader(window: Buffer): number | undefined {
    const from = Math.max(0, this.searched - 32); // a header cut between two chunks is found whole
    let found: number | undefined;
    for (const name of HEADER_NAMES) {
      for (let at = window.indexOf(name, from); at !== -1; at = window.indexOf(name, at + 1)) {
        if (HEADER_LINE.test(window.subarray(at, at + 40).toString('ascii'))) {
          found = found === undefined ? at : Math.min(found, at);
          break;
        }
      }
    }
    this.searched = window.length;
    return found;
  }

  /** Drops a broken header (and whatever follows it) up to the next `Content-Length:`. */
  private skipToNextHeader(problem: string): Frame {
    const pending = this.pending();
    const next = Math.min(...HEADER_NAMES.map((name) => pending.indexOf(name, 1)).filter((i) => i !== -1));
    // With no header in sight, keep a tail in case one is arriving cut in two.
    this.start += Number.isFinite(next) ? next : Math.max(1, pending.length - HEADER_NAMES[0].length);
    return malformed(ErrorCodes.ParseError, problem);
  }

  private pending(): Buffer {
    return this.buffer.subarray(this.start, this.end);
  }

  /** Appends with amortised growth, so a 10 MB message arriving in 64 KB chunks is copied a few times, not once per chunk. */
  private append(chunk: Buffer): void {
    const used = this.end - this.start;
    if (this.end + chunk.length > this.buffer.length) {
      const size = Math.max(this.buffer.length, 2 * (used + chunk.length));
      const grown = size > this.buffer.length ? Buffer.alloc(size) : this.buffer;
      this.buffer.copy(grown, 0, this.start, this.end);
      this.buffer = grown;
      this.start = 0;
      this.end = used;
    }
    chunk.copy(this.buffer, this.end);
    this.end += chunk.length;
  }
}

function malformed(code: number, message: string): Frame {
  return { kind: 'malformed', reply: { jsonrpc: '2.0', id: null, error: { code, message } } };
}

export interface FramedReaderHooks {
  /** The reply to send for a bad message (the connection cannot answer a message that never became one). */
  onMalformed: (reply: ResponseMessage) => void;
  /** Sees every message before the connection does. */
  onMessage?: (message: Message) => void;
}

/** A MessageReader over a stream through a Deframer. */
export class FramedMessageReader extends AbstractMessageReader {
  constructor(private readonly readable: NodeJS.ReadableStream, private readonly hooks: FramedReaderHooks) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    const deframer = new Deframer();
    const onData = (chunk: Buffer) => {
      for (const frame of deframer.push(chunk)) {
        if (frame.kind === 'malformed') {
          this.hooks.onMalformed(frame.reply);
          continue;
        }
        this.hooks.onMessage?.(frame.message);
        callback(frame.message);
      }
    };
    const onError = (err: Error) => this.fireError(err);
    const onClose = () => this.fireClose();
    this.readable.on('data', onData);
    this.readable.on('error', onError);
    this.readable.on('close', onClose);
    return Disposable.create(() => {
      this.readable.off('data', onData);
      this.readable.off('error', onError);
      this.readable.off('close', onClose);
    });
  }
}
