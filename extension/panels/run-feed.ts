// What a panel shows, read from run directories: the host side of webview/protocol.ts. It
// follows each run's events.jsonl (EventTail), status.json and rollouts/ and turns what changed
// into HostMessages. No VS Code API: tested against fixture run directories.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isInputError } from '../../shared/input-error.js';
import { EventTail, listRollouts, readFrame, readPlan, readRollout, readRun, type RunInfo } from '../../runtime/run/reader.js';
import { runFilePath } from '../../runtime/run/run-files.js';
import type { HostMessage, RunSnapshot } from '../../webview/protocol.js';
import { foldHistory } from '../../webview/columnar.js';

export interface FeedRun {
  /** The protocol's id: the run directory relative to its runs folder, with `/`. */
  id: string;
  dir: string;
}

/** A run directory as the protocol names it. */
export function feedRun(dir: string): FeedRun {
  const abs = path.resolve(dir);
  return { id: `${path.basename(path.dirname(abs))}/${path.basename(abs)}`, dir: abs };
}

interface Followed {
  run: FeedRun;
  tail: EventTail;
  statusKey: string;
  rolloutsKey: string;
  /** The state the last snapshot or poll read. */
  state?: RunInfo['state'];
  /** Why its files could not be read at the last snapshot or poll (reported once). */
  problem?: string;
}

export class RunFeed {
  private readonly followed: Followed[];
  /** Problems not yet taken by takeProblems(). */
  private readonly unreported: string[] = [];

  constructor(runs: readonly FeedRun[]) {
    this.followed = runs.map((run) => ({ run, tail: new EventTail(path.join(run.dir, 'events.jsonl')), statusKey: '', rolloutsKey: '' }));
  }

  get runs(): readonly FeedRun[] {
    return this.followed.map((f) => f.run);
  }

  /** Whether a run shown is training (as last read): its panel then looks more often. */
  get live(): boolean {
    return this.followed.some((f) => f.state === 'running');
  }

  /**
   * Everything, from the start: what a page that just loaded (or reloaded) needs. A run whose
   * files cannot be read (events.jsonl a folder, no permission) is left out of the events, and
   * takeProblems() says why; the other runs are shown.
   */
  snapshot(): HostMessage[] {
    const messages: HostMessage[] = [{ type: 'runs', runs: this.followed.map((f) => snapshotOf(f.run)) }];
    for (const f of this.followed) {
      this.reading(f, () => {
        f.tail = new EventTail(f.tail.file);
        // A long history travels as typed-array columns (webview/columnar.ts): a million metric
        // rows as plain event objects take seconds to post and to take in.
        const [history, ...columns] = foldHistory(f.run.id, f.tail.poll());
        if (history.type === 'events') messages.push({ ...history, reset: true });
        messages.push(...columns);
        const info = readRun(f.run.dir);
        f.statusKey = statusKey(info);
        f.state = info.state;
        const episodes = listRollouts(f.run.dir);
        f.rolloutsKey = rolloutsKey(episodes);
        messages.push({ type: 'rollouts', runId: f.run.id, episodes, missing: !fs.existsSync(path.join(f.run.dir, 'rollouts')) });
        return info.problem;
      });
    }
    return messages;
  }

  /** What changed since the last snapshot or poll. */
  poll(): HostMessage[] {
    const messages: HostMessage[] = [];
    for (const f of this.followed) {
      this.reading(f, () => {
        const events = f.tail.poll();
        if (events.length > 0) messages.push({ type: 'events', runId: f.run.id, events });
        const info = readRun(f.run.dir);
        f.state = info.state;
        const key = statusKey(info);
        if (key !== f.statusKey) {
          f.statusKey = key;
          messages.push({ type: 'status', runId: f.run.id, state: info.state, status: info.status });
        }
        const episodes = listRollouts(f.run.dir);
        const rKey = rolloutsKey(episodes);
        if (rKey !== f.rolloutsKey) {
          f.rolloutsKey = rKey;
          messages.push({ type: 'rollouts', runId: f.run.id, episodes });
        }
        return info.problem;
      });
    }
    return messages;
  }

  /** Runs whose files could not be read since the last call, each with the reason: once per problem. */
  takeProblems(): string[] {
    return this.unreported.splice(0);
  }

  /** Runs `read`, which returns the problem of a file it skipped (or throws one that ended it): each problem is reported once. */
  private reading(f: Followed, read: () => string | undefined): void {
    let problem: string | undefined;
    try {
      problem = read();
    } catch (err) {
      problem = (err as Error).message;
    }
    if (problem === undefined) {
      f.problem = undefined;
      return;
    }
    problem = `run ${f.run.id}: ${problem}`;
    if (problem !== f.problem) this.unreported.push(problem);
    f.problem = problem;
  }

  /**
   * A recorded episode or text batch the page asked for; undefined when the file is not one of
   * the run's, or cannot be read (takeProblems() then says why).
   */
  episode(runId: string, file: string): HostMessage | undefined {
    const run = this.find(runId);
    if (!run) return undefined;
    const known = listRollouts(run.dir).find((e) => path.resolve(e.file) === path.resolve(run.dir, file));
    if (!known) return undefined;
    try {
      return { type: 'episode', runId, file, ...readRollout(known.file, run.dir) };
    } catch (err) {
      if (!isInputError(err)) throw err;
      this.unreported.push(`run ${runId}: ${err.message}`);
      return undefined;
    }
  }

  /**
   * A recorded step's picture the page asked for, as a data URL; when it cannot be read, the
   * reason instead (shown in place of the picture: a popup per frame would flood a playback);
   * undefined when the episode is not one of the run's.
   */
  frame(runId: string, file: string, frame: string): HostMessage | undefined {
    const run = this.find(runId);
    if (!run) return undefined;
    const known = listRollouts(run.dir).find((e) => path.resolve(e.file) === path.resolve(run.dir, file));
    if (!known) return undefined;
    try {
      return { type: 'frame', runId, file, frame, data: `data:image/png;base64,${readFrame(run.dir, known.file, frame).toString('base64')}` };
    } catch (err) {
      if (!isInputError(err)) throw err;
      return { type: 'frame', runId, file, frame, problem: err.message };
    }
  }

  /**
   * A file of a run the page wants opened; undefined when the path leaves the run directory
   * (also through a symbolic link) or is not a regular file (a FIFO would hang the editor).
   */
  resolveFile(runId: string, relativePath: string): string | undefined {
    const run = this.find(runId);
    if (!run) return undefined;
    const file = path.resolve(run.dir, relativePath);
    if (file !== run.dir && !file.startsWith(run.dir + path.sep)) return undefined;
    try {
      return fs.statSync(runFilePath(run.dir, file, 'file')).isFile() ? file : undefined;
    } catch {
      return undefined;
    }
  }

  private find(runId: string): FeedRun | undefined {
    return this.followed.find((f) => f.run.id === runId)?.run;
  }
}

export function snapshotOf(run: FeedRun): RunSnapshot {
  const info = readRun(run.dir);
  return { id: run.id, experiment: info.experiment, runId: info.runId, state: info.state, status: info.status, plan: readPlan(run.dir) };
}

function statusKey(info: RunInfo): string {
  return `${info.state}:${info.status ? JSON.stringify(info.status) : ''}`;
}

function rolloutsKey(episodes: readonly { file: string }[]): string {
  return `${episodes.length}:${episodes.at(-1)?.file ?? ''}`;
}
