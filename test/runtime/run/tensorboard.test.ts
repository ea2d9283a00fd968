// `rlx train --tensorboard`: the run's metrics also go into TensorBoard event files. The files
// are read back here by a reader written from the format's specification, not from our writer:
// TFRecord framing checked record by record (lengths and both masked CRC-32Cs, over a CRC
// implementation checked against the standard's check value), and the Event messages decoded by
// protobufjs from a .proto text of TensorBoard's Event/Summary fields.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import protobuf from 'protobufjs';

import { readEvents, type MetricsEvent } from '../../../runtime/run/events.js';
import { crc32c, maskedCrc32c, TensorBoardWriter } from '../../../runtime/run/tensorboard.js';
import { resume, train } from '../../../runtime/train.js';
import { makePlan, tempDir } from '../helpers.js';

// The fields TensorBoard's readers use, with the numbers of tensorboard/compat/proto/event.proto
// and summary.proto.
const EVENT_PROTO = `
syntax = "proto3";
package tb;
message Event {
  double wall_time = 1;
  int64 step = 2;
  oneof what {
    string file_version = 3;
    bytes graph_def = 4;
    Summary summary = 5;
  }
}
message Summary {
  message Value {
    string node_name = 7;
    string tag = 1;
    oneof value {
      float simple_value = 2;
      bytes obsolete_old_style_histogram = 3;
    }
  }
  repeated Value value = 1;
}
`;
const Event = protobuf.parse(EVENT_PROTO, { keepCase: true }).root.lookupType('tb.Event');

interface DecodedEvent {
  wall_time: number;
  step: number;
  file_version?: string;
  summary?: { value: { tag: string; simple_value: number }[] };
}

/** Every event of one file, each record's framing checked as TensorFlow's record reader checks it. */
function readEventFile(file: string): DecodedEvent[] {
  const bytes = fs.readFileSync(file);
  const events: DecodedEvent[] = [];
  for (let at = 0; at < bytes.length;) {
    assert.ok(at + 12 <= bytes.length, `a record header at byte ${at} is cut short`);
    const length = Number(bytes.readBigUInt64LE(at));
    assert.equal(bytes.readUInt32LE(at + 8), maskedCrc32c(bytes.subarray(at, at + 8)), `length CRC at byte ${at}`);
    const data = bytes.subarray(at + 12, at + 12 + length);
    assert.equal(data.length, length, `record at byte ${at} is cut short`);
    assert.equal(bytes.readUInt32LE(at + 12 + length), maskedCrc32c(data), `data CRC at byte ${at}`);
    events.push(Event.toObject(Event.decode(data), { longs: Number, defaults: false }) as DecodedEvent);
    at += 12 + length + 4;
  }
  return events;
}

function tensorBoardFiles(runDir: string): string[] {
  const dir = path.join(runDir, 'tensorboard');
  return fs.readdirSync(dir).sort().map((name) => path.join(dir, name));
}

/** tag -> [step, value] in file order. */
function scalarsByTag(events: DecodedEvent[]): Map<string, [number, number][]> {
  const byTag = new Map<string, [number, number][]>();
  for (const event of events) {
    for (const value of event.summary?.value ?? []) {
      if (!byTag.has(value.tag)) byTag.set(value.tag, []);
      byTag.get(value.tag)!.push([event.step, value.simple_value]);
    }
  }
  return byTag;
}

describe('TensorBoard event files', () => {
  it('uses CRC-32C (Castagnoli), whose check value over "123456789" is 0xE3069283', () => {
    assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283);
    assert.equal(crc32c(Buffer.alloc(32)), 0x8a9136aa, 'RFC 3720 B.4: 32 bytes of zeros');
  });

  it("are named so that a folder's files sort in the order they were written, even within one second", () => {
    const dir = tempDir();
    const written = [1, 2, 3].map(() => {
      const writer = TensorBoardWriter.open(dir);
      writer.close();
      return path.basename(writer.file);
    });
    assert.deepEqual(fs.readdirSync(path.join(dir, 'tensorboard')).sort(), written);
  });

  it('hold every metric and evaluation of the run, at the same steps as events.jsonl', async () => {
    const result = await train(makePlan({ budget: 2048, eval: { every: 1024, episodes: 2, deterministic: true } }), { out: tempDir(), tensorboard: true });
    const files = tensorBoardFiles(result.runDir);
    assert.equal(files.length, 1);
    assert.match(path.basename(files[0]), /^events\.out\.tfevents\.\d+\..+\.rlx$/, 'a name TensorBoard picks up');

    const events = readEventFile(files[0]);
    assert.equal(events[0].file_version, 'brain.Event:2', 'the first event says the version, as TensorFlow writes it');
    const scalars = scalarsByTag(events);
    const logged = readEvents(path.join(result.runDir, 'events.jsonl'));
    const metrics = logged.filter((e): e is MetricsEvent => e.type === 'metrics');
    assert.ok(metrics.length > 0);
    for (const tag of ['charts/learning_rate', 'losses/policy_loss', 'charts/sps']) {
      const expected = metrics.filter((e) => Number.isFinite(e.values[tag])).map((e) => [e.step, Math.fround(e.values[tag])]);
      assert.deepEqual(scalars.get(tag), expected, tag);
    }
    const evals = logged.filter((e) => e.type === 'eval');
    assert.deepEqual(scalars.get('eval/mean_return')?.map(([step]) => step), evals.map((e) => e.step));
  });

  it('are written only when asked, and a resume adds a file of its own to a run that has them', async () => {
    const plain = await train(makePlan({ budget: 512 }), { out: tempDir() });
    assert.ok(!fs.existsSync(path.join(plain.runDir, 'tensorboard')), 'no TensorBoard files unless asked');

    const controller = new AbortController();
    const stopped = await train(makePlan({ budget: 2048 }), { out: tempDir(), tensorboard: true, checkpointEvery: 512, signal: controller.signal, onProgress: (p) => p.step >= 1024 && controller.abort() });
    assert.equal(stopped.status, 'stopped');
    const resumed = await resume(stopped.runDir);
    assert.equal(resumed.status, 'finished');
    const files = tensorBoardFiles(stopped.runDir);
    assert.equal(files.length, 2, 'the resume writes its own file');
    // Within one second too (as here), the files' names sort in the order they were written, as TensorBoard reads them.
    assert.ok(readEventFile(files[0])[0].wall_time <= readEventFile(files[1])[0].wall_time, files.join(', '));
    const steps = files.flatMap((file) => [...(scalarsByTag(readEventFile(file)).get('charts/learning_rate') ?? [])].map(([step]) => step));
    assert.equal(steps.at(-1), 2048, 'the resumed part reaches the end of the budget');
    assert.deepEqual(steps, [...steps].sort((a, b) => a - b), 'steps go forward across the files');
  });
});
