// TensorBoard event files beside events.jsonl (`rlx train --tensorboard`), so that users keep
// their existing tooling: `tensorboard --logdir runs` shows every run's scalars.
//
// The format is TensorFlow's record file of `Event` protocol buffers:
//   each record = uint64 length (little-endian) | uint32 masked CRC-32C of those 8 bytes
//                 | the Event bytes | uint32 masked CRC-32C of the Event bytes
// The first Event of a file carries file_version "brain.Event:2"; the others carry a Summary of
// scalars (`simple_value`) under tags, at a step and a wall time. No npm library writes the format
// without TensorFlow itself (@tensorflow/tfjs-node downloads its native library at install), so
// the record framing and CRC-32C are here, and the Event messages go through protobufjs, which
// already writes our ONNX files.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import protobuf from 'protobufjs';
import type { EventSink, RunEvent } from './events.js';
import { makeDirs } from '../atomic-files.js';

/** The folder of a run directory that holds its TensorBoard files. */
export const TENSORBOARD_DIR = 'tensorboard';

// The fields of TensorBoard's event.proto and summary.proto that scalars need, with their
// numbers from those files (a reader skips fields it does not know, and we write no others).
const root = protobuf.Root.fromJSON({
  nested: {
    tensorboard: {
      nested: {
        Event: {
          fields: {
            wall_time: { type: 'double', id: 1 },
            step: { type: 'int64', id: 2 },
            file_version: { type: 'string', id: 3 },
            summary: { type: 'Summary', id: 5 },
          },
        },
        Summary: {
          fields: { value: { rule: 'repeated', type: 'Value', id: 1 } },
          nested: {
            Value: {
              fields: {
                tag: { type: 'string', id: 1 },
                simple_value: { type: 'float', id: 2 },
              },
            },
          },
        },
      },
    },
  },
});
const EventProto = root.lookupType('tensorboard.Event');

/** CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as TFRecord files use; one table, built once. */
const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = CRC32C_TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** TFRecord's masking: a CRC stored beside data that may itself contain CRCs stays distinguishable. */
export function maskedCrc32c(bytes: Uint8Array): number {
  const crc = crc32c(bytes);
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

/** One TFRecord: length, its CRC, the data, its CRC. */
export function tfRecord(data: Uint8Array): Buffer {
  const record = Buffer.alloc(8 + 4 + data.length + 4);
  record.writeBigUInt64LE(BigInt(data.length), 0);
  record.writeUInt32LE(maskedCrc32c(record.subarray(0, 8)), 8);
  record.set(data, 12);
  record.writeUInt32LE(maskedCrc32c(data), 12 + data.length);
  return record;
}

function eventBytes(event: { wall_time: number; step: number; file_version?: string; summary?: { value: { tag: string; simple_value: number }[] } }): Uint8Array {
  return EventProto.encode(EventProto.create(event)).finish();
}

/**
 * Appends scalars to one event file under `<run>/tensorboard/`. Each process that trains the run
 * (the first start, each resume) writes a file of its own, as TensorFlow's writers do; TensorBoard
 * reads them all, in the order of their names.
 */
export class TensorBoardWriter {
  private pending: Buffer[] = [];

  private constructor(
    readonly file: string,
    private readonly fd: number,
  ) {
    this.pending.push(tfRecord(eventBytes({ wall_time: Date.now() / 1000, step: 0, file_version: 'brain.Event:2' })));
  }

  /** A new event file in `<runDir>/tensorboard/`, named as TensorFlow names them (the `.rlx` suffix says who wrote it). */
  static open(runDir: string): TensorBoardWriter {
    const dir = path.join(runDir, TENSORBOARD_DIR);
    makeDirs(dir);
    // TensorBoard reads a folder's files in the order of their names: a second writer of this
    // process within the same second (a quick resume) takes the next second, so it sorts after.
    for (let seconds = Math.floor(Date.now() / 1000); ; seconds++) {
      const file = path.join(dir, `events.out.tfevents.${seconds}.${safeHost()}.${process.pid}.rlx`);
      try {
        return new TensorBoardWriter(file, fs.openSync(file, 'wx'));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
  }

  /** Queues the finite values of `values` as scalars at `step` (TensorBoard has no use for null or NaN points). */
  scalars(step: number, wallTime: number, values: Record<string, number>): void {
    const value = Object.entries(values)
      .filter(([, v]) => typeof v === 'number' && Number.isFinite(v))
      .map(([tag, v]) => ({ tag, simple_value: v }));
    if (value.length > 0) this.pending.push(tfRecord(eventBytes({ wall_time: wallTime, step, summary: { value } })));
  }

  flush(): void {
    if (this.pending.length === 0) return;
    const bytes = Buffer.concat(this.pending);
    for (let written = 0; written < bytes.length;) written += fs.writeSync(this.fd, bytes, written);
    this.pending = [];
  }

  close(): void {
    try {
      this.flush();
    } finally {
      fs.closeSync(this.fd);
    }
  }
}

/** The host name as one path segment (TensorBoard only shows it). */
function safeHost(): string {
  return os.hostname().replace(/[^A-Za-z0-9._-]/g, '_') || 'host';
}

/** Mirrors a run's metrics and evaluations into TensorBoard scalars, under the same names as events.jsonl. */
export class TensorBoardMirror implements EventSink {
  constructor(private readonly writer: TensorBoardWriter) {}

  /** Mirrors into `runDir` when asked to, or when the run wrote TensorBoard files before (a resume keeps them going). */
  static wanted(runDir: string, asked: boolean | undefined): boolean {
    return asked === true || fs.existsSync(path.join(runDir, TENSORBOARD_DIR));
  }

  add(event: RunEvent): void {
    if (event.type === 'metrics' || event.type === 'eval') this.writer.scalars(event.step, event.time, event.values);
    else if (event.type === 'curriculum') this.writer.scalars(event.step, event.time, { [`curriculum/${event.param}`]: event.value });
  }

  flush(): void {
    this.writer.flush();
  }

  close(): void {
    this.writer.close();
  }
}
