// Reads the PNG files rlx writes (runtime/run/png.ts: 8-bit gray, RGB or RGBA, not interlaced),
// checking each chunk's CRC, so that tests compare the pixels a frame holds with the env's picture.
import * as zlib from 'node:zlib';
import type { RgbFrame } from '../../runtime/envs/types.js';

const CHANNELS: Record<number, 1 | 3 | 4> = { 0: 1, 2: 3, 6: 4 };

export function decodePng(file: Uint8Array): RgbFrame {
  const bytes = Buffer.from(file);
  if (bytes.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('not a PNG signature');
  let at = 8;
  let width = 0;
  let height = 0;
  let channels: 1 | 3 | 4 = 3;
  const data: Buffer[] = [];
  for (;;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (zlib.crc32(bytes.subarray(at + 4, at + 8 + length)) !== bytes.readUInt32BE(at + 8 + length)) throw new Error(`bad CRC in ${type}`);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      if (body[8] !== 8 || body[12] !== 0) throw new Error('only 8-bit, non-interlaced PNGs');
      channels = CHANNELS[body[9]!]!;
    } else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  const raw = zlib.inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let x = 0; x < stride; x++) {
      const value = raw[y * (stride + 1) + 1 + x]!;
      const left = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      if (filter === 0) pixels[y * stride + x] = value;
      else if (filter === 1) pixels[y * stride + x] = (value + left) & 0xff;
      else if (filter === 2) pixels[y * stride + x] = (value + up) & 0xff;
      else throw new Error(`filter ${filter} not read here`);
    }
  }
  return { width, height, channels, pixels };
}
