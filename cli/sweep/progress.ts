// A sweep's progress for `rlx sweep`: one line redrawn in place on a terminal (members done,
// running, failed; ETA), plain lines as members end when the output is a file or a pipe.
import { formatDuration } from '../progress.js';

export interface SweepCounts {
  total: number;
  /** Finished, this time or in an earlier run of the sweep. */
  done: number;
  running: number;
  failed: number;
  stopped: number;
}

const TTY_INTERVAL_MS = 1000;

export class SweepProgress {
  private readonly tty: boolean;
  private drawn = false;
  private timer: NodeJS.Timeout | undefined;
  /** Seconds each member that ended this time took, for the ETA. */
  private readonly durations: number[] = [];

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly label: string,
    private readonly counts: () => SweepCounts,
    private readonly parallel: number,
  ) {
    this.tty = stream.isTTY === true;
    if (this.tty) this.timer = setInterval(() => this.draw(), TTY_INTERVAL_MS);
  }

  memberTook(seconds: number): void {
    this.durations.push(seconds);
  }

  /** A line of its own (a member started or ended), then the progress line again on a terminal. */
  message(text: string): void {
    this.clear();
    this.stream.write(`${text}\n`);
    if (this.tty) this.draw();
  }

  /** "3/9 done, 2 running, 1 failed, ETA 2m10s". */
  summary(): string {
    const c = this.counts();
    const parts = [`${c.done}/${c.total} done`, `${c.running} running`];
    if (c.failed > 0) parts.push(`${c.failed} failed`);
    if (c.stopped > 0) parts.push(`${c.stopped} stopped`);
    return `${parts.join(', ')}, ETA ${formatDuration(this.eta(c))}`;
  }

  done(): void {
    if (this.timer) clearInterval(this.timer);
    this.clear();
  }

  /** The members not yet ended, a mean member's time each, `parallel` at once. */
  private eta(c: SweepCounts): number {
    if (this.durations.length === 0) return NaN;
    const mean = this.durations.reduce((a, b) => a + b, 0) / this.durations.length;
    const left = c.total - c.done - c.failed - c.stopped;
    return (mean * left) / Math.max(1, Math.min(this.parallel, left));
  }

  private draw(): void {
    const line = `${this.label}: ${this.summary()}`;
    this.stream.write(`\r\x1b[2K${line.slice(0, (this.stream.columns ?? 120) - 1)}`);
    this.drawn = true;
  }

  private clear(): void {
    if (this.drawn) this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }
}
