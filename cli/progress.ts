// Training progress for `rlx train`: a bar redrawn in place on a terminal, plain lines
// (every few seconds) when the output is a file or a pipe, so logs stay readable.
import type { TrainProgress } from '../runtime/train.js';
import { formatDuration as formatSharedDuration, formatSteps } from '../shared/format.js';

export interface ProgressReporter {
  update(progress: TrainProgress): void;
  /** Prints a message without tearing the bar. */
  message(text: string): void;
  done(): void;
}

const BAR_WIDTH = 24;
const TTY_INTERVAL_MS = 100;
const LINE_INTERVAL_MS = 5000;

/** A step count as the Runs view and the dashboard show it (shared/format.ts); `-` for none. */
export const formatCount = (n: number): string => formatSteps(n, '-');

/** A duration as the Runs view and the dashboard show it (shared/format.ts); `-` for none. */
export const formatDuration = (seconds: number): string => formatSharedDuration(seconds, '-');

function summary(p: TrainProgress): string {
  const ret = Number.isFinite(p.meanReturn) ? p.meanReturn.toFixed(1) : '-';
  return `${formatCount(p.step)}/${formatCount(p.budget)} steps  ${formatCount(p.sps)} steps/s  return ${ret}  ETA ${formatDuration(p.etaSeconds)}`;
}

export function progressReporter(stream: NodeJS.WriteStream, label: string): ProgressReporter {
  const tty = stream.isTTY === true;
  let last = 0;
  let drawn = false;
  const clear = () => {
    if (drawn) stream.write('\r\x1b[2K');
    drawn = false;
  };
  return {
    update(p) {
      const now = Date.now();
      if (now - last < (tty ? TTY_INTERVAL_MS : LINE_INTERVAL_MS) && p.step < p.budget) return;
      last = now;
      if (tty) {
        const filled = Math.round((BAR_WIDTH * Math.min(p.step, p.budget)) / p.budget);
        const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${summary(p)}`;
        stream.write(`\r\x1b[2K${line.slice(0, (stream.columns ?? 120) - 1)}`);
        drawn = true;
      } else {
        stream.write(`${label} ${summary(p)}\n`);
      }
    },
    message(text) {
      clear();
      stream.write(`${text}\n`);
    },
    done() {
      clear();
    },
  };
}
