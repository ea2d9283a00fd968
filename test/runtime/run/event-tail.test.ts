// Reading a long events.jsonl in the background (EventTail.read): pieces cut anywhere, lines
// still being written, the event loop free between pieces, a read stopped and skipped.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { EventTail } from '../../../runtime/run/event-tail.js';
import type { RunEvent } from '../../../runtime/run/events.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-event-tail-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'events.jsonl');
  fs.writeFileSync(file, text);
  return file;
}

async function readAll(tail: EventTail, chunkBytes?: number): Promise<{ events: RunEvent[]; pieces: number; done: boolean }> {
  const events: RunEvent[] = [];
  let pieces = 0;
  const done = await tail.read(
    (e) => {
      pieces++;
      events.push(...e);
    },
    { chunkBytes },
  );
  return { events, pieces, done };
}

test('pieces cut anywhere, through lines and through multi-byte characters, read as the whole file does', async () => {
  const messages = ['plain', 'é', '€uro', '🎲 dice', 'ß'.repeat(7), 'x'];
  const lines = messages.map((message, step) => JSON.stringify({ type: 'log', step, time: 1, level: 'info', message }));
  const file = write('cuts', [...lines.slice(0, 3), 'not json', ...lines.slice(3)].join('\n') + '\n');
  const whole = new EventTail(file).poll();
  assert.equal(whole.length, messages.length);
  for (let chunk = 1; chunk <= 23; chunk++) {
    const tail = new EventTail(file);
    const { events, pieces, done } = await readAll(tail, chunk);
    assert.ok(done);
    assert.ok(pieces > 1);
    assert.deepEqual(events, whole, `pieces of ${chunk} bytes`);
    assert.equal(tail.skipped, 1, 'the line that is not JSON');
  }
});

test('a last line still being written is no error: it comes with the next poll, once whole', async () => {
  const file = write('writing', '{"type":"log","step":0,"time":1,"level":"info","message":"a"}\n{"type":"metrics","step":5,"ti');
  const tail = new EventTail(file);
  const { events } = await readAll(tail, 16);
  assert.deepEqual(events.map((e) => e.step), [0]);
  assert.equal(tail.skipped, 0);
  fs.appendFileSync(file, 'me":2,"values":{"a":1}}\n{"type":"metrics","step":6,"time":3,"values":{}}\n');
  assert.deepEqual(tail.poll().map((e) => e.step), [5, 6], 'the tail goes on from where the read stopped');
  assert.deepEqual(tail.poll(), []);
});

/** A file of `bytes` or so of metrics lines. */
function big(name: string, bytes: number): { file: string; lines: number } {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = JSON.stringify({ type: 'metrics', step: i * 512, time: 1_795_000_000 + i, values: { 'losses/value_loss': Math.sin(i), 'charts/sps': 1000 + i } }) + '\n';
    parts.push(line);
    size += line.length;
  }
  return { file: write(name, parts.join('')), lines: parts.length };
}

test('the event loop is free while a long history is read: a timer set before the read fires before it ends', async () => {
  const { file, lines } = big('async', 6 * 2 ** 20);
  let fired = false;
  setTimeout(() => (fired = true), 0);
  const progress: number[] = [];
  const tail = new EventTail(file);
  let count = 0;
  const reading = tail.read((e) => (count += e.length), { onProgress: (read, total) => progress.push(read / total) });
  assert.equal(fired, false);
  assert.ok(await reading);
  assert.ok(fired, 'the timer ran during the read');
  assert.equal(count, lines);
  assert.ok(progress.length >= 6, `${progress.length} progress reports`);
  assert.equal(progress.at(-1), 1);
  assert.ok(progress.every((p, i) => i === 0 || p > progress[i - 1]));
});

test('a read stopped midway stands where it stopped; skip() leaves the rest out and follows the file from its end', async () => {
  const { file, lines } = big('stopped', 3 * 2 ** 20);
  const controller = new AbortController();
  const tail = new EventTail(file);
  let count = 0;
  const done = await tail.read(
    (e) => {
      count += e.length;
      controller.abort();
    },
    { signal: controller.signal, chunkBytes: 64 * 1024 },
  );
  assert.equal(done, false);
  assert.ok(count > 0 && count < lines / 10, `${count} of ${lines} lines`);
  // The file ends inside a line: what is before the next newline is not a line of its own.
  fs.appendFileSync(file, '{"type":"metrics","step":-1,"time":0,');
  tail.skip();
  fs.appendFileSync(file, '"values":{}}\n{"type":"log","step":7,"time":1,"level":"info","message":"after"}\n');
  assert.deepEqual(tail.poll().map((e) => e.type), ['log']);
  assert.equal(tail.skipped, 0, 'the line cut by skip() is not counted as a bad line');
});

test('a file that shrank is read again from the start, and says so', async () => {
  const file = write('replaced', '{"type":"log","step":0,"time":1,"level":"info","message":"long message here"}\n');
  const tail = new EventTail(file);
  await readAll(tail);
  fs.writeFileSync(file, '{"type":"log","step":1,"time":1,"level":"info","message":"b"}\n');
  const { events } = await readAll(tail);
  assert.deepEqual(events.map((e) => e.step), [1]);
  assert.equal(tail.restarts, 1);
});
