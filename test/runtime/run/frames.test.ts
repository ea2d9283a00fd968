// The frames of recorded episodes (runtime/run/frames.ts, png.ts): PNGs that hold the env's
// picture exactly, shrunk when large, bounded per episode, and removed with their episode when
// rollouts/ thins its eval episodes.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import type { RgbFrame } from '../../../runtime/envs/types.js';
import { EpisodeFrames, FRAMES_PER_EPISODE, framesFolderOf, shrinkFrame } from '../../../runtime/run/frames.js';
import { encodePng } from '../../../runtime/run/png.js';
import { thinEvalEpisodes } from '../../../runtime/run/rollout-cap.js';
import { decodePng } from '../../helpers/png.js';
import { tempDir } from '../helpers.js';

function picture(width: number, height: number, channels: 1 | 3 | 4, pixel: (x: number, y: number, c: number) => number): RgbFrame {
  const pixels = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) for (let c = 0; c < channels; c++) pixels[(y * width + x) * channels + c] = pixel(x, y, c);
  return { width, height, channels, pixels };
}

describe('recorded frames', () => {
  it('a PNG holds the picture exactly, in gray, RGB and RGBA', () => {
    for (const channels of [1, 3, 4] as const) {
      const frame = picture(37, 11, channels, (x, y, c) => (x * 7 + y * 31 + c * 101) % 256);
      const read = decodePng(encodePng(frame));
      assert.deepEqual({ ...read, pixels: Array.from(read.pixels) }, { ...frame, pixels: Array.from(frame.pixels) });
    }
  });

  it('a frame larger than 320 pixels is shrunk by a whole factor, each pixel the mean of its block', () => {
    const cart = picture(600, 400, 3, (x, _y, c) => (x % 2 === 0 ? 100 : 200) + c);
    const small = shrinkFrame(cart);
    assert.deepEqual([small.width, small.height], [300, 200]);
    assert.deepEqual(Array.from(small.pixels.subarray(0, 3)), [150, 151, 152]);
    const tall = shrinkFrame(picture(100, 1000, 1, () => 9));
    assert.deepEqual([tall.width, tall.height], [25, 250]);
    const kept = picture(320, 200, 3, () => 1);
    assert.equal(shrinkFrame(kept), kept, 'a frame within the bound is kept as it is');
  });

  it(`an episode keeps frames for its first ${FRAMES_PER_EPISODE} steps, and says how many it dropped`, () => {
    const frames = new EpisodeFrames();
    const tiny = picture(4, 4, 3, () => 0);
    let kept = 0;
    for (let t = 0; t < FRAMES_PER_EPISODE + 5; t++) {
      if (frames.wanted) {
        frames.add(t, tiny);
        kept++;
      } else frames.skip();
    }
    assert.equal(kept, FRAMES_PER_EPISODE);
    assert.deepEqual(frames.summary, { count: FRAMES_PER_EPISODE, width: 4, height: 4, source_width: 4, source_height: 4, dropped: 5 });
  });

  it("an eval episode thinned out of rollouts/ takes its frames with it", () => {
    const run = tempDir();
    const rollouts = path.join(run, 'rollouts');
    fs.mkdirSync(rollouts);
    const names = ['episode-100-eval.jsonl', 'episode-200-eval.jsonl', 'episode-300-eval.jsonl'];
    for (const name of names) {
      fs.writeFileSync(path.join(rollouts, name), '{"type":"header"}\n');
      const frames = new EpisodeFrames();
      frames.add(0, picture(2, 2, 3, () => 5));
      frames.write(framesFolderOf(path.join(rollouts, name)));
    }
    assert.deepEqual(thinEvalEpisodes(run, 2).map((f) => path.basename(f)), ['episode-200-eval.jsonl']);
    assert.deepEqual(fs.readdirSync(rollouts).sort(), ['episode-100-eval.frames', 'episode-100-eval.jsonl', 'episode-300-eval.frames', 'episode-300-eval.jsonl']);
  });
});
