// For the host: a run's history with its metrics and episode events folded into columns
// (HostMessage 'columns'). A million updates as objects cost the page seconds to receive
// (one structured-clone object per event, twenty-odd fields each); as typed arrays they cross
// postMessage as a few copies. Pure code, for tests (the fake host) and the benches; no DOM.
// The extension itself posts a decimated history (history-digest.ts), which keeps a long
// run's rows within a budget instead of holding every event.
import type { HostMessage, RunEvent } from './protocol.js';
import { RunModel } from './shared/run-model.js';

/** Below this many metrics and episode events together, plain `events` are as good. */
export const COLUMNS_WORTHWHILE = 5000;

/**
 * The messages that bring a page to `events` (a run's whole history so far, or a large
 * piece of it): first the events that are not metrics or episodes, then a `columns` message
 * per table. Post them in that order. A resumed run's repeated steps are resolved here
 * already (the later events count), so the columns hold the history as it stands.
 * Small histories stay one `events` message.
 */
export function foldHistory(runId: string, events: RunEvent[], minimum = COLUMNS_WORTHWHILE): HostMessage[] {
  let metrics = 0;
  let episodes = 0;
  for (const e of events) {
    if (e.type === 'metrics') metrics++;
    else if (e.type === 'episode') episodes++;
  }
  if (metrics + episodes < minimum) return [{ type: 'events', runId, events }];
  const model = new RunModel({ id: runId, experiment: '', runId: '', state: 'unknown' });
  model.metrics.reserve(metrics);
  model.episodes.reserve(episodes);
  model.addEvents(events);
  const messages: HostMessage[] = [{ type: 'events', runId, events: events.filter((e) => e.type !== 'metrics' && e.type !== 'episode') }];
  for (const table of ['metrics', 'episodes'] as const) {
    const t = model[table];
    if (t.length === 0) continue;
    messages.push({
      type: 'columns',
      runId,
      table,
      steps: t.steps.values.slice(0, t.length),
      times: t.times.values.slice(0, t.length),
      columns: Object.fromEntries(t.keys().map((key) => [key, t.values(key)])),
    });
  }
  return messages;
}
