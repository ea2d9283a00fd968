// The runs a page shows, kept up to date from the host's run-level messages (runs, events,
// columns, status), in the order the host listed them.
import type { HostMessage } from '../protocol.js';
import { RunModel } from './run-model.js';

export class Runs {
  private readonly models = new Map<string, RunModel>();
  /** Run ids in the host's order. */
  order: string[] = [];

  get size(): number {
    return this.models.size;
  }

  get(id: string | undefined): RunModel | undefined {
    return id === undefined ? undefined : this.models.get(id);
  }

  list(): RunModel[] {
    return this.order.map((id) => this.models.get(id)).filter((r): r is RunModel => r !== undefined);
  }

  /** Applies a run-level message; false for the others (rollouts, episode), left to the page. */
  apply(message: HostMessage): boolean {
    switch (message.type) {
      case 'runs': {
        // Runs already known keep what they have read; the snapshot is the new one.
        const next = new Map<string, RunModel>();
        for (const snapshot of message.runs) {
          const known = this.models.get(snapshot.id);
          if (known) known.snapshot = snapshot;
          next.set(snapshot.id, known ?? new RunModel(snapshot));
        }
        this.models.clear();
        for (const [id, run] of next) this.models.set(id, run);
        this.order = message.runs.map((r) => r.id);
        return true;
      }
      case 'events': {
        let run = this.models.get(message.runId);
        if (!run) return true; // a run this page does not show
        if (message.reset) {
          // A page that (re)loaded, or events.jsonl replaced: the run starts over.
          run = new RunModel(run.snapshot);
          this.models.set(message.runId, run);
        }
        run.addEvents(message.events);
        return true;
      }
      case 'columns': {
        const run = this.models.get(message.runId);
        if (!run) return true;
        if (message.sums) run.metricSums = message.sums;
        run.addColumns(message.table, message.steps, message.times, message.columns, message.keep);
        return true;
      }
      case 'status':
        this.models.get(message.runId)?.setStatus(message.state, message.status);
        return true;
      default:
        return false;
    }
  }
}
