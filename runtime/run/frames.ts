// The frames of a recorded episode (envs that draw their state: a Gymnasium env made with
// render_mode "rgb_array"): one PNG per step, in a folder beside the episode's JSONL,
// `rollouts/episode-<step>[-eval|-final].frames/<t>.png`, named in the step lines (`frame`).
// Bounded: a frame wider or taller than FRAME_MAX_SIDE is shrunk by a whole factor (each pixel
// the mean of a block), and an episode keeps frames for its first FRAMES_PER_EPISODE steps and
// up to FRAME_BYTES_PER_EPISODE of PNG; later steps have none (the header says how many).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RgbFrame } from '../envs/types.js';
import { encodePng } from './png.js';

/** The longest side a kept frame has: CartPole's 600 x 400 is kept at 300 x 200. */
export const FRAME_MAX_SIDE = 320;
/** Steps of an episode that keep a frame: the first 1,000. */
export const FRAMES_PER_EPISODE = 1000;
/** PNG bytes one episode keeps at most (CartPole's frames are ~3 KB each). */
export const FRAME_BYTES_PER_EPISODE = 16 * 2 ** 20;

/** `episode-2048-eval.frames` for `episode-2048-eval.jsonl`: the folder of its frames, beside it. */
export function framesFolderOf(episodeFile: string): string {
  return episodeFile.replace(/\.jsonl$/, '.frames');
}

/** The frame at most FRAME_MAX_SIDE on its longer side: shrunk by the smallest whole factor that does it, each pixel the mean of its block. */
export function shrinkFrame(frame: RgbFrame, maxSide = FRAME_MAX_SIDE): RgbFrame {
  const factor = Math.ceil(Math.max(frame.width, frame.height) / maxSide);
  if (factor <= 1) return frame;
  const { channels, pixels } = frame;
  const width = Math.floor(frame.width / factor) || 1;
  const height = Math.floor(frame.height / factor) || 1;
  const out = new Uint8Array(width * height * channels);
  const sums = new Float64Array(channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      sums.fill(0);
      let count = 0;
      for (let dy = 0; dy < factor && y * factor + dy < frame.height; dy++) {
        let at = ((y * factor + dy) * frame.width + x * factor) * channels;
        for (let dx = 0; dx < factor && x * factor + dx < frame.width; dx++, count++) {
          for (let c = 0; c < channels; c++) sums[c] += pixels[at++]!;
        }
      }
      const to = (y * width + x) * channels;
      for (let c = 0; c < channels; c++) out[to + c] = Math.round(sums[c]! / count);
    }
  }
  return { width, height, channels, pixels: out };
}

/** What the header says of an episode's frames. */
export interface FramesSummary {
  readonly count: number;
  readonly width: number;
  readonly height: number;
  /** The env's own frame size, when the kept frames are shrunk. */
  readonly source_width: number;
  readonly source_height: number;
  /** Steps past the bounds, which have no frame. */
  readonly dropped: number;
}

/** The frames of one episode as it is recorded, kept in memory until it ends. */
export class EpisodeFrames {
  private readonly pngs: { name: string; png: Buffer }[] = [];
  private bytes = 0;
  private dropped = 0;
  private size: { width: number; height: number; source_width: number; source_height: number } | undefined;

  /** Adds step `t`'s frame (while `wanted`); its file name inside the frames folder. */
  add(t: number, frame: RgbFrame): string {
    const kept = shrinkFrame(frame);
    const png = encodePng(kept);
    const name = `${t}.png`;
    this.pngs.push({ name, png });
    this.bytes += png.length;
    this.size ??= { width: kept.width, height: kept.height, source_width: frame.width, source_height: frame.height };
    return name;
  }

  /** Whether the next step keeps a frame (past the bounds, the env is not asked for one). */
  get wanted(): boolean {
    return this.pngs.length < FRAMES_PER_EPISODE && this.bytes < FRAME_BYTES_PER_EPISODE;
  }

  /** Counts a step past the bounds. */
  skip(): void {
    this.dropped++;
  }

  get summary(): FramesSummary | undefined {
    return this.size && { count: this.pngs.length, ...this.size, dropped: this.dropped };
  }

  /**
   * Writes the frames into `folder` (whole: into a temporary folder, then renamed over any
   * earlier one of the same name, which a resumed run may re-record).
   */
  write(folder: string): void {
    if (this.pngs.length === 0) return;
    const temporary = `${folder}.tmp-${process.pid}`;
    fs.rmSync(temporary, { recursive: true, force: true });
    fs.mkdirSync(temporary, { recursive: true });
    for (const { name, png } of this.pngs) fs.writeFileSync(path.join(temporary, name), png);
    fs.rmSync(folder, { recursive: true, force: true });
    fs.renameSync(temporary, folder);
  }
}
