// What a panel shows, read from run directories: the host side of webview/protocol.ts. It
// follows each run's events.jsonl (EventTail), status.json and rollouts/ and turns what changed
// into HostMessages. A run's history is read in the background, piece by piece, into a
// HistoryDigest (each series within a budget of points), so a run of a million updates costs
// the extension host tens of MB and never holds its event loop; the live tail goes on from
// where that read stopped, into the same digest. No VS Code API: tested against fixture run
// directories.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isInputError } from '../../shared/input-error.js';
import { EventTail, listRollouts, readFrame, readPlan, readRollout, readRun, type RunInfo } from '../../runtime/run/reader.js';
import { runFilePath } from '../../runtime/run/run-files.js';
import type { HostMessage, RunSnapshot } from '../../webview/protocol.js';
import { HistoryDigest } from '../../webview/history-digest.js';

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

/**
 * How much of a history is read between two posts to the page while it is read: the curves
 * grow on the page as the file is read (a 900 MB file shows its first curves within a second).
 */
const POST_EVERY_BYTES = 16 * 1024 * 1024;

/**
 * More unread than this at a poll (a panel hidden for long beside a fast trainer, a file
 * replaced by a longer one) is read in the background like a first read, not in the poll.
 */
const POLL_AT_ONCE_BYTES = 4 * 1024 * 1024;

export interface SnapshotOptions {
  /**
   * The user stopped the read: each run shows what was read of it, and is followed from its
   * file's end as it is then (what lies between is left out).
   */
  signal?: AbortSignal;
  /** As the histories are read: bytes read of all the runs so far, and of how many. */
  onProgress?: (read: number, total: number) => void;
  /** Points kept per series (tests); HistoryDigest's SERIES_BUDGET by default. */
  budget?: number;
}

interface Followed {
  run: FeedRun;
  tail: EventTail;
  digest: HistoryDigest;
  /** The tail's restarts the digest has taken in: one more, and the digest starts over. */
  restarts: number;
  /** The generation of the background read of its events under way: polls leave the run alone until it ends. */
  reading: number | undefined;
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
  /** Where the messages of background reads go: the page of the latest snapshot. */
  private post: (message: HostMessage) => void = () => {};
  /** Bumped by each snapshot and by dispose(): a read begun before stops and posts nothing more. */
  private generation = 0;
  private budget: number | undefined;

  constructor(runs: readonly FeedRun[]) {
    this.followed = runs.map((run) => {
      const tail = new EventTail(path.join(run.dir, 'events.jsonl'));
      return { run, tail, digest: new HistoryDigest(run.id), restarts: 0, reading: undefined, statusKey: '', rolloutsKey: '' };
    });
  }

  get runs(): readonly FeedRun[] {
    return this.followed.map((f) => f.run);
  }

  /** Whether a run shown is training (as last read): its panel then looks more often. */
  get live(): boolean {
    return this.followed.some((f) => f.state === 'running');
  }

  /** The bytes a snapshot reads: the runs' events.jsonl together (a panel shows a notice when that is a lot). */
  historyBytes(): number {
    return this.followed.reduce((sum, f) => sum + fileSize(f.tail.file), 0);
  }

  /**
   * Everything, from the start, for a page that just loaded (or reloaded), given to `post` as
   * it is read: the runs at once, then each run's history as it is read (the curves grow as
   * pieces of the file come in), then its status if it changed meanwhile and its recorded
   * episodes. A run whose files cannot be read (events.jsonl a folder, no permission) is left
   * out of the events, and takeProblems() says why; the other runs are shown. Resolves true
   * when every history was read to its end, false when `options.signal` stopped it (or a later
   * snapshot or dispose() took over).
   */
  async snapshot(post: (message: HostMessage) => void, options: SnapshotOptions = {}): Promise<boolean> {
    const generation = ++this.generation;
    this.post = post;
    this.budget = options.budget;
    const snapshots = this.followed.map((f) => snapshotOf(f.run));
    this.followed.forEach((f, i) => {
      f.statusKey = statusKey(snapshots[i]);
      f.tail = new EventTail(f.tail.file);
      f.digest = new HistoryDigest(f.run.id, this.budget);
      f.restarts = 0;
      // Each run waits for its turn: a poll meanwhile must not read its file in the read's stead.
      f.reading = generation;
    });
    post({ type: 'runs', runs: snapshots });
    const total = this.historyBytes();
    let before = 0;
    for (const f of this.followed) {
      let read = 0;
      const result = await this.readHistory(f, generation, options.signal, (n) => {
        read = n;
        options.onProgress?.(before + n, total);
      });
      if (generation !== this.generation) return false;
      before += read;
      this.reading(f, () => {
        if (result.problem !== undefined) return result.problem;
        // Stopped by the user: the run is followed from here on, what lies between left out.
        if (!result.done) f.tail.skip();
        for (const m of f.digest.messages()) post(m);
        const info = readRun(f.run.dir);
        const key = statusKey(info);
        if (key !== f.statusKey) post({ type: 'status', runId: f.run.id, state: info.state, status: info.status });
        f.statusKey = key;
        f.state = info.state;
        const episodes = listRollouts(f.run.dir);
        f.rolloutsKey = rolloutsKey(episodes);
        post({ type: 'rollouts', runId: f.run.id, episodes, missing: !fs.existsSync(path.join(f.run.dir, 'rollouts')) });
        return info.problem;
      });
    }
    return !options.signal?.aborted;
  }

  /**
   * Reads the rest of `f`'s events.jsonl in the background into its digest, posting what
   * changed every POST_EVERY_BYTES. `done`: it read to the end (not stopped by `signal`, a
   * later snapshot or dispose()); `problem`: why the file could not be read.
   */
  private async readHistory(f: Followed, generation: number, signal: AbortSignal | undefined, onProgress: (read: number) => void): Promise<{ done: boolean; problem?: string }> {
    f.reading = generation;
    const { tail } = f;
    let posted = 0;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal?.addEventListener('abort', onAbort);
    try {
      if (signal?.aborted) return { done: false };
      const done = await tail.read(
        (events) => {
          // A later snapshot has made the run a new tail and digest: this read's events are not theirs.
          if (generation !== this.generation) return;
          this.restartIfReplaced(f);
          f.digest.add(events);
        },
        {
          signal: stop.signal,
          onProgress: (read) => {
            if (generation !== this.generation) return stop.abort();
            onProgress(read);
            if (generation !== this.generation) return stop.abort(); // taken over from inside onProgress
            if (read - posted >= POST_EVERY_BYTES) {
              posted = read;
              for (const m of f.digest.messages()) this.post(m);
            }
          },
        },
      );
      if (generation === this.generation) this.restartIfReplaced(f);
      return { done };
    } catch (err) {
      return { done: false, problem: (err as Error).message };
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (f.reading === generation) f.reading = undefined;
    }
  }

  /** What changed since the last snapshot or poll. */
  poll(): HostMessage[] {
    const messages: HostMessage[] = [];
    for (const f of this.followed) {
      if (f.reading !== undefined) continue;
      if (f.tail.unread() > POLL_AT_ONCE_BYTES) {
        void this.catchUp(f);
        continue;
      }
      this.reading(f, () => {
        const events = f.tail.poll();
        this.restartIfReplaced(f);
        f.digest.add(events);
        messages.push(...f.digest.messages());
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

  /** A lot appended (or the file replaced) since the last look: read in the background, then posted. */
  private async catchUp(f: Followed): Promise<void> {
    const generation = this.generation;
    const result = await this.readHistory(f, generation, undefined, () => {});
    if (generation !== this.generation) return;
    this.reading(f, () => {
      if (result.problem !== undefined) return result.problem;
      for (const m of f.digest.messages()) this.post(m);
      return undefined;
    });
  }

  /** events.jsonl was replaced (the tail started it over): so does the page's copy of the run. */
  private restartIfReplaced(f: Followed): void {
    if (f.tail.restarts === f.restarts) return;
    f.restarts = f.tail.restarts;
    f.digest = new HistoryDigest(f.run.id, this.budget);
  }

  /** Stops any read under way; nothing more is posted. */
  dispose(): void {
    this.generation++;
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

function statusKey(info: { state: RunInfo['state']; status?: RunInfo['status'] }): string {
  return `${info.state}:${info.status ? JSON.stringify(info.status) : ''}`;
}

function rolloutsKey(episodes: readonly { file: string }[]): string {
  return `${episodes.length}:${episodes.at(-1)?.file ?? ''}`;
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}
