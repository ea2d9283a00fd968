// A run's events.jsonl as the host keeps it for a page, in memory bounded by the budget and not
// by the file: metrics and episode events folded into TableDigests (each series within its
// budget of points), the other events (status, hparams, evaluations, logs...) passed on as they
// are. messages() says what changed since it was last called, so the same digest serves the
// first read of a long history (posted piece by piece as it is read) and the live tail after it.
// The rules of run-model.ts are applied here already: a resumed run's repeated steps replace
// the earlier ones, so the tables the page gets are the history as it stands.
import type { HostMessage, RunEvent } from './protocol.js';
import { LOGS_KEPT } from './shared/run-model.js';
import { TableDigest } from './table-digest.js';

/**
 * Points kept per series: a chart is at most a couple of thousand pixels wide, and each bucket
 * keeps two points (its lowest and highest), so a curve is drawn at full resolution with room to
 * zoom in; 20 metrics cost the page about 13 MB at most, whatever the length of the run.
 */
export const SERIES_BUDGET = 4096;

export class HistoryDigest {
  readonly metrics: TableDigest;
  readonly episodes: TableDigest;
  /** Events other than metrics and episodes, not yet in a message. */
  private unsent: RunEvent[] = [];
  private unsentLogs = 0;
  private started = false;

  constructor(
    readonly runId: string,
    budget = SERIES_BUDGET,
  ) {
    this.metrics = new TableDigest(budget);
    this.episodes = new TableDigest(budget);
  }

  add(events: readonly RunEvent[]): void {
    for (const e of events) this.addOne(e);
  }

  private addOne(e: RunEvent): void {
    // What the page would skip (a line of a future trainer, a cut-short object) is skipped here.
    if (typeof e !== 'object' || e === null || typeof e.step !== 'number') return;
    if (e.type === 'metrics') {
      const last = this.metrics.lastStep;
      if (last !== undefined && e.step <= last) this.metrics.truncateAfter(e.step - 1);
      if (e.values && typeof e.values === 'object') this.metrics.add(e.step, e.time, e.values);
      return;
    }
    if (e.type === 'episode') {
      this.episodes.add(e.step, e.time, { return: e.return, length: e.length, training_return: e.training_return });
      return;
    }
    if (e.type === 'status' && e.resumed) {
      // Everything after the checkpoint the run resumed from is about to be written again
      // (the page does the same when it gets this event).
      this.metrics.truncateAfter(e.step);
      this.episodes.truncateAfter(e.step);
    }
    this.unsent.push(e);
    if (e.type === 'log' && ++this.unsentLogs > 2 * LOGS_KEPT) this.dropOldLogs();
  }

  /** The page keeps the last LOGS_KEPT logs: a file of a million log lines costs no more than that. */
  private dropOldLogs(): void {
    let drop = this.unsentLogs - LOGS_KEPT;
    this.unsent = this.unsent.filter((e) => e.type !== 'log' || drop-- <= 0);
    this.unsentLogs = LOGS_KEPT;
  }

  /**
   * What brings the page up to date since the last call: the first time, an `events` message
   * with `reset` (the run starts over on the page), then the other events, then a `columns`
   * patch per table that changed. Post them in that order.
   */
  messages(): HostMessage[] {
    const messages: HostMessage[] = [];
    const runId = this.runId;
    if (!this.started || this.unsent.length > 0) {
      messages.push({ type: 'events', runId, events: this.unsent, ...(this.started ? {} : { reset: true }) });
      this.started = true;
      this.unsent = [];
      this.unsentLogs = 0;
    }
    for (const table of ['metrics', 'episodes'] as const) {
      const patch = this[table].patch();
      if (!patch) continue;
      messages.push({ type: 'columns', runId, table, ...patch, ...(table === 'metrics' ? { sums: this.metrics.sums() } : {}) });
    }
    return messages;
  }
}
