// The episode timeline: play and pause, step back and forward, speed, and a scrubber; playback
// advances with animation frames at the env's natural rate times the chosen speed. Keys, on
// the timeline or the drawing: Space plays or pauses, Left/Right step, Page Up/Down jump ten
// steps, Home/End go to the first or last step (the scrubber itself also takes arrows).
import { h } from '../shared/dom.js';
import { button, dropdown } from '../ui/components.js';

export const SPEEDS = [0.25, 0.5, 1, 2, 4, 8];

export interface TimelineOptions {
  speed: number;
  /** Steps per second at speed 1. */
  rate: () => number;
  onSeek: (t: number) => void;
  onSpeed: (speed: number) => void;
}

export class Timeline {
  readonly element: HTMLElement;
  private readonly scrubber: HTMLInputElement;
  private readonly position = h('span', { class: 'position', attrs: { 'aria-live': 'off' } });
  private readonly playButton: HTMLElement & { disabled: boolean };
  private readonly buttons: (HTMLElement & { disabled: boolean })[];
  private length = 0;
  private current = 0;
  private speed: number;
  private playing = false;
  private frame = 0;
  private lastFrameTime = 0;
  /** Fractional steps owed by the frames so far. */
  private carry = 0;

  constructor(private readonly options: TimelineOptions) {
    this.speed = options.speed;
    this.playButton = button({ label: '▶', title: 'Play (Space)', appearance: 'primary', id: 'play', onClick: () => this.toggle() });
    const back = button({ label: '◀', title: 'Step back (Left arrow)', id: 'step-back', onClick: () => this.step(-1) });
    const forward = button({ label: '▶|', title: 'Step forward (Right arrow)', id: 'step-forward', onClick: () => this.step(1) });
    const first = button({ label: '|◀', title: 'First step (Home)', id: 'first-step', onClick: () => this.seek(0) });
    this.buttons = [this.playButton, back, forward, first];
    this.scrubber = h('input', { class: 'scrubber', id: 'scrubber', attrs: { type: 'range', min: 0, max: 0, step: 1, value: 0, 'aria-label': 'Step of the episode' } });
    this.scrubber.addEventListener('input', () => {
      this.pause();
      this.seek(Number(this.scrubber.value));
    });
    const speed = dropdown({
      label: 'Speed',
      id: 'speed',
      value: String(this.speed),
      choices: SPEEDS.map((s) => ({ value: String(s), label: `${s}×` })),
      onChange: (value) => {
        const next = Number(value);
        if (!Number.isFinite(next) || next === this.speed) return;
        this.speed = next;
        options.onSpeed(next);
      },
    });
    this.element = h(
      'div',
      { class: 'timeline', role: 'group', tabIndex: 0, attrs: { 'aria-label': 'Episode timeline: Space plays or pauses, arrows step, Home and End jump to the ends' } },
      first,
      back,
      this.playButton,
      forward,
      this.scrubber,
      this.position,
      speed.element,
    );
    this.element.addEventListener('keydown', (e) => this.onKey(e));
  }

  get t(): number {
    return this.current;
  }

  get isPlaying(): boolean {
    return this.playing;
  }

  get currentSpeed(): number {
    return this.speed;
  }

  /** A new episode of `length` steps, positioned at `t`. */
  load(length: number, t: number): void {
    this.pause();
    this.length = length;
    this.scrubber.max = String(Math.max(0, length - 1));
    for (const b of this.buttons) b.disabled = length === 0;
    this.scrubber.disabled = length === 0;
    this.seek(t);
  }

  seek(t: number): void {
    const clamped = this.length === 0 ? 0 : Math.max(0, Math.min(this.length - 1, Math.round(t)));
    this.current = clamped;
    this.scrubber.value = String(clamped);
    const text = this.length === 0 ? 'no steps' : `step ${clamped + 1} of ${this.length}`;
    this.position.textContent = text;
    this.scrubber.setAttribute('aria-valuetext', text);
    this.options.onSeek(clamped);
  }

  step(delta: number): void {
    this.pause();
    this.seek(this.current + delta);
  }

  toggle(): void {
    if (this.playing) this.pause();
    else this.play();
  }

  play(): void {
    if (this.playing || this.length === 0) return;
    // Playing from the last step starts over, as media players do.
    if (this.current >= this.length - 1) this.seek(0);
    this.playing = true;
    this.carry = 0;
    this.lastFrameTime = performance.now();
    this.setPlayLabel();
    this.frame = requestAnimationFrame((now) => this.tick(now));
  }

  pause(): void {
    if (!this.playing) return;
    this.playing = false;
    cancelAnimationFrame(this.frame);
    this.setPlayLabel();
  }

  private tick(now: number): void {
    if (!this.playing) return;
    // A hidden page gets no frames; a long gap must not jump to the end.
    const elapsed = Math.min(now - this.lastFrameTime, 250) / 1000;
    this.lastFrameTime = now;
    this.carry += elapsed * this.options.rate() * this.speed;
    const whole = Math.floor(this.carry);
    if (whole > 0) {
      this.carry -= whole;
      this.seek(this.current + whole);
    }
    if (this.current >= this.length - 1) {
      this.pause();
      return;
    }
    this.frame = requestAnimationFrame((t) => this.tick(t));
  }

  private setPlayLabel(): void {
    this.playButton.textContent = this.playing ? '❚❚' : '▶';
    const title = this.playing ? 'Pause (Space)' : 'Play (Space)';
    this.playButton.title = title;
    this.playButton.setAttribute('aria-label', title);
  }

  /** Keys of the timeline; also called for keys on the drawing. Returns whether it handled one. */
  onKey(e: KeyboardEvent): boolean {
    const target = e.target as HTMLElement;
    // Buttons and the speed list handle their own keys (Space presses a button).
    if (target.tagName === 'VSCODE-BUTTON' || target.tagName === 'VSCODE-DROPDOWN') return false;
    const onScrubber = target === this.scrubber;
    let handled = true;
    switch (e.key) {
      case ' ':
      case 'k':
        this.toggle();
        break;
      case 'ArrowLeft':
      case ',':
        this.step(-1);
        break;
      case 'ArrowRight':
      case '.':
        this.step(1);
        break;
      case 'PageUp':
        this.step(-10);
        break;
      case 'PageDown':
        this.step(10);
        break;
      case 'Home':
        this.step(-this.length);
        break;
      case 'End':
        this.step(this.length);
        break;
      default:
        handled = false;
    }
    // The scrubber would move by itself as well: one step per key, not two.
    if (handled || (onScrubber && e.key.startsWith('Arrow'))) e.preventDefault();
    return handled;
  }
}
