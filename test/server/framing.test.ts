// Framing LSP messages off a byte stream: whole messages out whatever the chunking, one error per
// malformed message, and reading resumes at the next header.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Deframer, type Frame } from '../../server/framing.js';

const message = (id: number, text = 'x') => JSON.stringify({ jsonrpc: '2.0', id, method: 'm', params: { text } });
const framed = (body: string, length = Buffer.byteLength(body)) => `Content-Length: ${length}\r\n\r\n${body}`;

/** What the frames say, short: the message ids, and `error <code>` for each malformed one. */
function read(bytes: Buffer, chunk: number): string[] {
  const deframer = new Deframer();
  const frames: Frame[] = [];
  for (let at = 0; at < bytes.length; at += chunk) frames.push(...deframer.push(bytes.subarray(at, at + chunk)));
  return frames.map((f) => (f.kind === 'message' ? String((f.message as unknown as { id: number }).id) : `error ${f.reply.error?.code}`));
}

/** The same frames whatever the chunk size, from one byte at a time to all at once. */
function check(stream: string, expected: string[]): void {
  const bytes = Buffer.from(stream, 'utf8');
  for (const chunk of [1, 2, 3, 7, 16, 64, bytes.length]) assert.deepEqual(read(bytes, chunk), expected, `chunks of ${chunk}`);
}

describe('framing', () => {
  test('messages in a row, multi-byte text counted in bytes', () => {
    check(framed(message(1, 'é → 🙂')) + framed(message(2)) + framed(message(3, 'Content-Length: 5 in a string')), ['1', '2', '3']);
  });

  test('other headers are allowed beside Content-Length, in any case', () => {
    const body = message(1);
    check(`content-length: ${body.length}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n${body}` + framed(message(2)), ['1', '2']);
  });

  test('invalid JSON and a non-object: one error each, then the next message', () => {
    check(framed('{"id": 1,') + framed(message(2)) + framed('[1]') + framed(message(3)), ['error -32700', '2', 'error -32600', '3']);
  });

  test('a length too short: the rest of the body is skipped up to the next header', () => {
    const body = message(1, 'a longer text, cut short by the header');
    check(framed(body, body.length - 12) + framed(message(2)), ['error -32700', '2']);
  });

  test('a length too long: the next message is found inside what it claims', () => {
    const body = message(1);
    check(framed(body, body.length + 30) + framed(message(2)) + framed(message(3)), ['error -32700', '2', '3']);
  });

  test('garbage before a header, and headers that are not headers', () => {
    check('hello\r\n\r\n' + framed(message(1)) + `Content-Length: ten\r\n\r\n${message(2)}` + framed(message(3)), ['error -32700', '1', 'error -32700', '3']);
  });

  test('a long run of bytes with no header end is dropped, keeping the message after it', () => {
    check('x'.repeat(20_000) + framed(message(1)), ['error -32700', '1']);
  });

  test('a 10 MB message in 64 KB chunks', () => {
    const big = message(7, 'y'.repeat(10 * 1024 * 1024));
    assert.deepEqual(read(Buffer.from(framed(big) + framed(message(8))), 64 * 1024), ['7', '8']);
  });
});
