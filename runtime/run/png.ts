// A PNG encoder for the recorded episodes' frames (rollouts.ts): 8-bit gray, RGB or RGBA, each
// row filtered with PNG's Sub filter (runs of one colour become zeros) and deflated by node:zlib.
// Small on purpose: frames come from env pictures, so no palette, interlacing or other chunks.
import * as zlib from 'node:zlib';
import type { RgbFrame } from '../envs/types.js';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** PNG's colour type by channels: 0 gray, 2 RGB, 6 RGBA. */
const COLOUR_TYPE = { 1: 0, 3: 2, 4: 6 } as const;
const FILTER_SUB = 1;

export function encodePng(frame: RgbFrame): Buffer {
  const { width, height, channels, pixels } = frame;
  if (pixels.length !== width * height * channels) throw new Error(`encodePng: ${pixels.length} bytes for a ${width} x ${height} frame of ${channels} channels`);
  const stride = width * channels;
  const filtered = Buffer.alloc(height * (stride + 1));
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    const out = y * (stride + 1);
    filtered[out] = FILTER_SUB;
    for (let x = 0; x < stride; x++) filtered[out + 1 + x] = pixels[row + x]! - (x >= channels ? pixels[row + x - channels]! : 0);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = COLOUR_TYPE[channels];
  // [10..12]: deflate compression, adaptive filtering, no interlace: all 0.
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(filtered)), chunk('IEND', Buffer.alloc(0))]);
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(zlib.crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
