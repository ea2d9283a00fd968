// The protocol on the wire, over a real stdio pipe to the server: bytes written as a careless or
// broken client would write them. Requests before `initialize` are refused with
// ServerNotInitialized; malformed JSON and wrong Content-Length headers get a ParseError reply
// (id null), and the server keeps answering the messages after them.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { StreamMessageReader, type Message, type ResponseMessage } from 'vscode-languageserver-protocol/node';
import { SERVER_MAIN } from '../client.js';

const RLX_BIN = fileURLToPath(new URL('../../../../bin/rlx.js', import.meta.url));

/** A server on a pipe, written to byte by byte as the test says, with every reply it sends. */
class RawPipe {
  readonly replies: ResponseMessage[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly child: ChildProcess;

  constructor(args: string[]) {
    this.child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    new StreamMessageReader(this.child.stdout!).listen((message: Message) => {
      if ('id' in message && !('method' in message)) this.replies.push(message as ResponseMessage);
      for (const wake of this.waiters) wake();
    });
  }

  /** Bytes as they are: no header is added. */
  raw(text: string): void {
    this.child.stdin!.write(text);
  }

  /** A well-formed message. */
  send(message: object): void {
    const body = JSON.stringify({ jsonrpc: '2.0', ...message });
    this.raw(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }

  /** The reply with this id (null: the next error reply with id null not yet taken). */
  async reply(id: number | null): Promise<ResponseMessage> {
    for (;;) {
      const index = this.replies.findIndex((r) => r.id === id);
      if (index !== -1) return this.replies.splice(index, 1)[0];
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no reply with id ${id}; replies: ${JSON.stringify(this.replies)}`)), 10_000);
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        this.waiters.add(wake);
      });
    }
  }

  async initialize(id: number): Promise<void> {
    this.send({ id, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } });
    assert.ok((await this.reply(id)).result, 'initialized');
    this.send({ method: 'initialized', params: {} });
  }

  /** A request that must be answered: the server still reads. */
  async answers(id: number): Promise<void> {
    this.send({ id, method: 'workspace/symbol', params: { query: '' } });
    assert.deepEqual((await this.reply(id)).result, []);
  }

  /** Closes the server's stdin (the client went away); the exit status. */
  async hangUp(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.child.on('exit', resolve));
    this.child.stdin!.end();
    return exited;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill();
  }

  async exit(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.child.on('exit', resolve));
    this.send({ id: 9999, method: 'shutdown' });
    await this.reply(9999);
    this.send({ method: 'exit' });
    return exited;
  }
}

const pipes: RawPipe[] = [];
const open = (args = [SERVER_MAIN, '--stdio']) => {
  const pipe = new RawPipe(args);
  pipes.push(pipe);
  return pipe;
};
after(() => pipes.forEach((p) => p.kill()));

const errorOf = (reply: ResponseMessage) => [reply.error?.code, reply.error?.message];

describe('before initialize', () => {
  test('requests are refused with ServerNotInitialized, known methods and unknown ones alike; then initialize works', async () => {
    const pipe = open();
    pipe.send({ id: 1, method: 'textDocument/hover', params: { textDocument: { uri: 'file:///x.rlx' }, position: { line: 0, character: 0 } } });
    pipe.send({ id: 2, method: 'workspace/symbol', params: { query: '' } });
    pipe.send({ id: 3, method: 'rlx/no-such-method', params: {} });
    for (const id of [1, 2, 3]) assert.equal((await pipe.reply(id)).error?.code, -32002, `request ${id}`);
    await pipe.initialize(4);
    await pipe.answers(5);
    assert.equal(await pipe.exit(), 0);
  });
});

describe('the client going away', () => {
  test('stdin closing ends the server: status 0 after a shutdown request, 1 without one', async () => {
    const polite = open();
    await polite.initialize(1);
    polite.send({ id: 2, method: 'shutdown' });
    await polite.reply(2);
    assert.equal(await polite.hangUp(), 0);
    const abrupt = open();
    await abrupt.initialize(1);
    assert.equal(await abrupt.hangUp(), 1);
  });
});

describe('malformed messages are answered and the server reads on', () => {
  test('invalid JSON: a ParseError with id null', async () => {
    const pipe = open();
    await pipe.initialize(1);
    const body = '{"jsonrpc": "2.0", "id": 2, "method": ';
    pipe.raw(`Content-Length: ${body.length}\r\n\r\n${body}`);
    const [code, message] = errorOf(await pipe.reply(null));
    assert.equal(code, -32700);
    assert.match(String(message), /not valid JSON/);
    await pipe.answers(3);
  });

  test('a message that is JSON but not an object: InvalidRequest', async () => {
    const pipe = open();
    await pipe.initialize(1);
    pipe.raw('Content-Length: 2\r\n\r\n[]');
    assert.equal((await pipe.reply(null)).error?.code, -32600);
    await pipe.answers(2);
  });

  const header = (body: string, delta: number) => `Content-Length: ${Buffer.byteLength(body) + delta}\r\n\r\n${body}`;
  const cases: [string, (body: string) => string][] = [
    ['a Content-Length too small', (body) => header(body, -5)],
    ['a Content-Length too large', (body) => header(body, 40)],
    ['a Content-Length that is not a number', (body) => `Content-Length: many\r\n\r\n${body}`],
    ['no Content-Length at all', (body) => `Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n${body}`],
    ['a header line without a colon', (body) => `Content-Length ${Buffer.byteLength(body)}\r\n\r\n${body}`],
  ];
  for (const [name, broken] of cases) {
    test(`${name}: one ParseError, then every later message is read`, async () => {
      const pipe = open();
      await pipe.initialize(1);
      pipe.raw(broken(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'workspace/symbol', params: { query: '' } })));
      await pipe.answers(3);
      await pipe.answers(4);
      assert.equal((await pipe.reply(null)).error?.code, -32700);
    });
  }

  test('`rlx lsp --stdio` reads the same way', async () => {
    const pipe = open([RLX_BIN, 'lsp', '--stdio']);
    await pipe.initialize(1);
    pipe.raw('Content-Length: 3\r\n\r\n{{{');
    assert.equal((await pipe.reply(null)).error?.code, -32700);
    await pipe.answers(2);
  });
});
