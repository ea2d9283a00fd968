// The progress notice's figures while a panel reads long histories (RunPanel): a percentage of
// the bytes, said only when it moves by a whole percent (each report is a message to the
// workbench; a 900 MB file is read in 900 pieces). No VS Code API: tested on its own.
import { formatBytes } from '../../shared/input-files.js';

/** Below this much history a panel reads without a notice: under about a second, and a notice that flashes by is noise. */
export const NOTICE_BYTES = 32 * 1024 * 1024;

export interface ProgressReport {
  /** Percent since the last report, as VS Code's Progress wants it. */
  increment: number;
  message: string;
}

export class ReadProgress {
  private reported = 0;

  constructor(private readonly report: (r: ProgressReport) => void) {}

  /** Bytes read of `total` so far. */
  update(read: number, total: number): void {
    const percent = total > 0 ? Math.min(100, Math.floor((100 * read) / total)) : 100;
    if (percent <= this.reported) return;
    this.report({ increment: percent - this.reported, message: `${formatBytes(read)} of ${formatBytes(total)}` });
    this.reported = percent;
  }
}
