// The picture of each recorded step, for envs that draw their state (a Gymnasium env made with
// render_mode "rgb_array"): the step lines name a PNG of the episode's frames folder, which the
// host reads and posts as a data URL when the page asks (`openFrame`). Pictures are asked for
// as steps are shown, a few ahead so that playback does not wait on each, and kept for the
// episode loaded.
import type { HostMessage, RolloutStep } from '../protocol.js';
import { h, setText } from '../shared/dom.js';

/** Frames asked for beyond the one shown, for playback. */
const AHEAD = 8;

type FrameMessage = Extract<HostMessage, { type: 'frame' }>;

export class FrameView {
  private readonly image = h('img', { class: 'env-frame-image', attrs: { alt: 'The environment at this step, as it drew itself' } });
  private readonly note = h('p', { class: 'no-drawing', hidden: true });
  readonly element = h('div', { class: 'env-frame', hidden: true }, this.image, this.note);
  /** Data URLs (or the reason a frame could not be read) of the loaded episode, by frame name. */
  private readonly received = new Map<string, { data?: string; problem?: string }>();
  private readonly asked = new Set<string>();
  private episode: { runId: string; file: string; steps: RolloutStep[] } | undefined;
  private wanted: string | undefined;
  /** The frame on screen (for tests). */
  shown: string | null = null;

  constructor(private readonly ask: (runId: string, file: string, frame: string) => void) {}

  /** Starts on an episode; whether it has frames (the view shows only then). */
  load(runId: string, file: string, steps: RolloutStep[]): boolean {
    this.received.clear();
    this.asked.clear();
    this.shown = null;
    this.wanted = undefined;
    this.image.removeAttribute('src');
    const framed = steps.some((s) => typeof s.frame === 'string');
    this.episode = framed ? { runId, file, steps } : undefined;
    this.element.hidden = !framed;
    return framed;
  }

  /** Shows step t's picture, or asks the host for it (and for the next few). */
  show(t: number): void {
    const episode = this.episode;
    if (!episode) return;
    this.wanted = episode.steps[t]?.frame;
    for (let k = t; k < Math.min(episode.steps.length, t + 1 + AHEAD); k++) {
      const frame = episode.steps[k]!.frame;
      if (frame !== undefined && !this.asked.has(frame)) {
        this.asked.add(frame);
        this.ask(episode.runId, episode.file, frame);
      }
    }
    this.paint();
  }

  /** A frame the host sent; one of another episode (an answer to an earlier pick) is dropped. */
  receive(message: FrameMessage): void {
    if (message.runId !== this.episode?.runId || message.file !== this.episode.file) return;
    this.received.set(message.frame, { data: message.data, problem: message.problem });
    if (message.frame === this.wanted) this.paint();
  }

  private paint(): void {
    const wanted = this.wanted;
    const got = wanted === undefined ? undefined : this.received.get(wanted);
    if (wanted === undefined) {
      this.note.hidden = false;
      setText(this.note, 'No frame was kept for this step (an episode keeps the first 1,000).');
    } else if (got?.problem !== undefined || (got && got.data === undefined)) {
      this.note.hidden = false;
      setText(this.note, `This step's frame cannot be read: ${got.problem ?? 'the host sent none'}`);
    } else {
      this.note.hidden = true;
    }
    // Until the new picture arrives the previous one stays: playback does not flicker.
    if (got?.data !== undefined && this.shown !== wanted) {
      this.image.src = got.data;
      this.shown = wanted!;
    }
    // Without a picture yet (the first is on its way) an <img> shows a broken-image icon and its alt text.
    this.image.hidden = wanted === undefined || got?.problem !== undefined || this.shown === null;
  }
}
