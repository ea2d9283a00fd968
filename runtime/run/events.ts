// events.jsonl: the run's history, one JSON object a line, appended and never rewritten.
// The editor's dashboards read it (docs/run-directory.md documents every field); keep the
// shapes here and that page in step.
//
// Lines are buffered and appended with one write per flush (the trainer flushes once per
// update): each write is whole lines, so a reader never sees half a line unless the process
// dies inside that one write, and a reader should skip a line that does not parse. A resume
// first cuts such an unfinished last line (repairTornTail), so appends start on a line of their own.
import * as fs from 'node:fs';
import { openOwnFile } from './run-folder-guard.js';
import { RUN_FILE_LIMITS } from './run-files.js';

/** Appending: created when missing; never through a link or into a FIFO (run-folder-guard.ts). */
const APPEND = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT;

/** Fields every event has. `step`: environment steps so far; `time`: Unix time in seconds. */
interface EventBase {
  step: number;
  time: number;
  /** The name of the stage the event belongs to (`main` without stage declarations; absent in runs of earlier versions). */
  stage?: string;
}

export type RunStatus = 'running' | 'finished' | 'failed' | 'stopped';

export interface StatusEvent extends EventBase {
  type: 'status';
  status: RunStatus;
  pid?: number;
  /** Why the run ended (finished or stopped), e.g. the stop condition that held. */
  reason?: string;
  /** The error message of a failed run. */
  error?: string;
  /** Set on the `running` event of a resumed run. */
  resumed?: boolean;
}

export interface HparamsEvent extends EventBase {
  type: 'hparams';
  algorithm: string;
  values: Record<string, unknown>;
}

export interface MetricsEvent extends EventBase {
  type: 'metrics';
  /** Namespaced: charts/..., losses/..., rewards/..., train/... (see docs/run-directory.md). */
  values: Record<string, number>;
}

export interface EpisodeEvent extends EventBase {
  type: 'episode';
  env: number;
  return: number;
  length: number;
  success?: boolean;
  training_return?: number;
  terms?: Record<string, number>;
}

export interface EvalEvent extends EventBase {
  type: 'eval';
  /** eval/mean_return, eval/std_return, eval/mean_length, and eval/success for goal-conditioned envs. */
  values: Record<string, number>;
  returns: number[];
  lengths: number[];
  deterministic: boolean;
}

export interface LogEvent extends EventBase {
  type: 'log';
  level: 'info' | 'warn' | 'error';
  message: string;
}

export interface CheckpointEvent extends EventBase {
  type: 'checkpoint';
  /** Paths relative to the run directory. */
  policy: string;
  state: string;
}

export interface RolloutEvent extends EventBase {
  type: 'rollout';
  /** Relative to the run directory. */
  file: string;
  return: number;
  length: number;
  /**
   * What the episode is: `train`, `eval` or `final` (rollouts.ts's Recorded; `rlx-eval` episodes
   * come with no event); absent in runs of earlier versions and for text batches; `final` for a
   * text run's held-out answers.
   */
  recorded?: 'train' | 'eval' | 'final' | 'rlx-eval';
}

/** A curriculum moved its env parameter (`curriculum { }`): the env copies now run with `value`. */
export interface CurriculumEvent extends EventBase {
  type: 'curriculum';
  /** As the plan writes it: `env.size`. */
  param: string;
  value: number;
  previous: number;
  /** For people: what held, and that the episodes in flight restarted. */
  message: string;
}

export type RunEvent = StatusEvent | HparamsEvent | MetricsEvent | EpisodeEvent | EvalEvent | LogEvent | CheckpointEvent | RolloutEvent | CurriculumEvent;

/** Distributes Omit over the union, so each event kind keeps its own fields. */
export type EventInput = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'time'> : never) : never;

/** Another record of the events, kept beside events.jsonl (TensorBoard files: tensorboard.ts). */
export interface EventSink {
  add(event: RunEvent): void;
  flush(): void;
  close(): void;
}

export class EventLog {
  private readonly fd: number;
  private buffer: string[] = [];
  private readonly sinks: EventSink[] = [];

  constructor(readonly file: string) {
    this.fd = openOwnFile(file, APPEND, RUN_FILE_LIMITS.events).fd;
  }

  /** Queues one event (stamped with the current time); written at the next flush(). */
  add(event: EventInput): void {
    const { type, step, ...rest } = event;
    const stamped = { type, step, time: Date.now() / 1000, ...rest };
    // JSON has no NaN or infinities: JSON.stringify writes them as null ("no value").
    this.buffer.push(JSON.stringify(stamped));
    for (const sink of this.sinks) sink.add(stamped as RunEvent);
  }

  /** Every event from now on also goes to `sink`, flushed and closed with this log. */
  mirrorTo(sink: EventSink): void {
    this.sinks.push(sink);
  }

  flush(): void {
    this.flushLines();
    // After events.jsonl, whose failure (a full disk) is the one to report.
    for (const sink of this.sinks) sink.flush();
  }

  private flushLines(): void {
    if (this.buffer.length === 0) return;
    const bytes = Buffer.from(this.buffer.join('\n') + '\n');
    const before = fs.fstatSync(this.fd).size;
    try {
      for (let written = 0; written < bytes.length;) written += fs.writeSync(this.fd, bytes, written);
    } catch (err) {
      // A full disk can take part of the lines: cut them off again, so that the file ends on a
      // whole line and a later flush does not glue onto half of one.
      try {
        fs.ftruncateSync(this.fd, before);
      } catch {
        // The repair on the next resume cuts it then.
      }
      throw err;
    }
    this.buffer = [];
  }

  close(): void {
    try {
      this.flush();
    } finally {
      fs.closeSync(this.fd);
      for (const sink of this.sinks) {
        try {
          sink.close();
        } catch {
          // A side record that cannot be completed must not fail the run: events.jsonl has it all.
        }
      }
    }
  }
}

/**
 * Reads events.jsonl. A line that is not JSON (cut short by a trainer killed while writing,
 * wherever it ended up) is skipped, never an error; readEventFile() counts them.
 */
export function readEvents(file: string): RunEvent[] {
  return readEventFile(file).events;
}

/** The events of events.jsonl and the number of lines skipped because they are not JSON. */
export function readEventFile(file: string): { events: RunEvent[]; skipped: number } {
  const events: RunEvent[] = [];
  let skipped = 0;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      events.push(JSON.parse(line) as RunEvent);
    } catch {
      skipped++;
    }
  }
  return { events, skipped };
}

/**
 * Cuts a last line left unfinished (no newline) by a trainer killed while writing, so that the
 * next trainer's events start on a line of their own; returns the number of bytes removed.
 */
export function repairTornTail(file: string): number {
  let opened: { fd: number; size: number };
  try {
    opened = openOwnFile(file, fs.constants.O_RDWR, RUN_FILE_LIMITS.events);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  const { fd, size } = opened;
  try {
    const chunk = Buffer.alloc(64 * 1024);
    // Back from the end to the last newline, a chunk at a time.
    for (let end = size; end > 0;) {
      const start = Math.max(0, end - chunk.length);
      fs.readSync(fd, chunk, 0, end - start, start);
      const newline = chunk.subarray(0, end - start).lastIndexOf(0x0a);
      if (newline >= 0) {
        const keep = start + newline + 1;
        if (keep < size) fs.ftruncateSync(fd, keep);
        return size - keep;
      }
      end = start;
    }
    if (size > 0) fs.ftruncateSync(fd, 0);
    return size;
  } finally {
    fs.closeSync(fd);
  }
}
