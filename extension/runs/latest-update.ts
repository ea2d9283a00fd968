// The latest update of a running run, from the end of its events.jsonl: what the dashboard
// already draws, while status.json is rewritten only every ~2 s. The Runs view lays it over
// status.json so that both show the same step. Reads the file's last 64 KiB only, and only
// when it is a regular file inside the run folder (a FIFO there would block the Runs view).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunInfo } from '../../runtime/run/reader.js';
import { openRunFile, RUN_FILE_LIMITS } from '../../runtime/run/run-files.js';

const TAIL_BYTES = 64 * 1024;

export function latestUpdate(runDir: string): { step: number; values: Record<string, number> } | undefined {
  let fd: number;
  let size: number;
  try {
    ({ fd, size } = openRunFile(runDir, path.join(runDir, 'events.jsonl'), RUN_FILE_LIMITS.events));
  } catch {
    return undefined; // not there yet, or refused: status.json alone
  }
  try {
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    fs.readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    for (let i = lines.length - 1; i >= 0; i--) {
      if (!lines[i].includes('"type":"metrics"')) continue;
      try {
        const event = JSON.parse(lines[i]) as { type: string; step: number; values: Record<string, number> };
        if (event.type === 'metrics' && Number.isFinite(event.step)) return { step: event.step, values: event.values };
      } catch {
        // the first line of the window may be cut, or the last still being written
      }
    }
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** A running run with its status brought up to its latest update (others as they are). */
export function withLatestUpdate(run: RunInfo): RunInfo {
  if (run.state !== 'running' || !run.status) return run;
  const update = latestUpdate(run.dir);
  if (!update || update.step <= run.status.step) return run;
  return { ...run, status: { ...run.status, step: update.step, metrics: { ...run.status.metrics, ...update.values } } };
}
