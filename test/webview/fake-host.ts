// What the extension does for a panel, done from fixture run directories with the same reader
// (runtime/run/reader.ts): answer `ready` with the runs, their events (as EventTail yields
// them), status and recorded episodes; answer `openEpisode` with the episode.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EventTail, listRollouts, listRuns, readFrame, readPlan, readRollout, type RunInfo } from '../../runtime/run/reader.js';
import { foldHistory } from '../../webview/columnar.js';
import type { HostMessage, PageMessage, RunEvent, RunSnapshot } from '../../webview/protocol.js';
import { repoRoot } from '../helpers/repo.js';
import type { PageUnderTest } from './harness.js';

export function fixturesRoot(): string {
  return path.join(repoRoot(), 'test', 'fixtures', 'runs');
}

/** The fixture runs of one experiment, oldest first. */
export function fixtureRuns(experiment: string): RunInfo[] {
  return listRuns(fixturesRoot())
    .filter((r) => r.experiment === experiment)
    .reverse();
}

export function snapshotOf(run: RunInfo): RunSnapshot {
  return {
    id: path.relative(fixturesRoot(), run.dir).split(path.sep).join('/'),
    experiment: run.experiment,
    runId: run.runId,
    state: run.state,
    status: run.status,
    plan: readPlan(run.dir),
  };
}

/** Every event of a run as the host's tail reads it (a half-written last line held back). */
export function eventsOf(run: RunInfo): RunEvent[] {
  return new EventTail(path.join(run.dir, 'events.jsonl')).poll();
}

export class FakeHost {
  /** Messages the host received from the page, in order. */
  readonly received: PageMessage[] = [];
  private readonly byId = new Map<string, RunInfo>();

  constructor(
    readonly runs: RunInfo[],
    private readonly options: {
      /** Events per message: the extension posts what each poll of the file found. */
      chunk?: number;
      /** The history as webview/columnar.ts folds it (what a host does for long runs). */
      columnar?: boolean;
    } = {},
  ) {
    for (const run of runs) this.byId.set(snapshotOf(run).id, run);
  }

  /** For OpenOptions.host. */
  readonly handle = async (message: PageMessage, page: PageUnderTest): Promise<void> => {
    this.received.push(message);
    if (message.type === 'ready') await this.sendAll(page);
    if (message.type === 'openEpisode') {
      const run = this.byId.get(message.runId);
      if (!run) return;
      await page.post({ type: 'episode', runId: message.runId, file: message.file, ...readRollout(message.file) });
    }
    if (message.type === 'openFrame') {
      const run = this.byId.get(message.runId);
      if (!run) return;
      const png = readFrame(run.dir, message.file, message.frame);
      await page.post({ type: 'frame', runId: message.runId, file: message.file, frame: message.frame, data: `data:image/png;base64,${png.toString('base64')}` });
    }
  };

  messagesFor(run: RunInfo): HostMessage[] {
    const id = snapshotOf(run).id;
    const events = eventsOf(run);
    const messages: HostMessage[] = [];
    if (this.options.columnar) messages.push(...foldHistory(id, events, 0));
    else {
      // The first piece starts the run over (`reset`), as a page that just loaded needs.
      const chunk = this.options.chunk ?? 500;
      for (let i = 0; i < events.length; i += chunk) messages.push({ type: 'events', runId: id, events: events.slice(i, i + chunk), ...(i === 0 ? { reset: true } : {}) });
    }
    messages.push({ type: 'status', runId: id, state: run.state, status: run.status });
    messages.push({ type: 'rollouts', runId: id, episodes: listRollouts(run.dir), missing: !fs.existsSync(path.join(run.dir, 'rollouts')) });
    return messages;
  }

  async sendAll(page: PageUnderTest): Promise<void> {
    await page.post({ type: 'runs', runs: this.runs.map(snapshotOf) });
    for (const run of this.runs) for (const message of this.messagesFor(run)) await page.post(message);
  }
}
