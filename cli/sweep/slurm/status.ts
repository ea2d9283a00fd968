// Where each member of a submitted sweep stands. Slurm knows the tasks it still holds (squeue:
// pending, running); the run directories know how the others ended (finished, failed, stopped).
// sacct would know more, but only on clusters that run slurmdbd, so it is not relied on.
import type { QueuedTasks } from './client.js';

export type MemberState = 'pending' | 'running' | 'finished' | 'failed' | 'stopped' | 'crashed' | 'cancelled' | 'unknown';

/** What a member left on the shared file system. */
export interface MemberTrace {
  /** The run directory the task trains into (the last one it printed), absolute. */
  runDir?: string;
  /** Its status.json's `status`, and `error` or `reason`. */
  runStatus?: string;
  runNote?: string;
  /** The last line of the task's log (its stderr), if it wrote one. */
  lastLogLine?: string;
}

export interface MemberStatus {
  member: number;
  state: MemberState;
  runDir?: string;
  /** Why it failed, stopped or crashed; or the Slurm state when it is neither pending nor running. */
  detail?: string;
}

const RUNNING = new Set(['RUNNING', 'COMPLETING', 'CONFIGURING', 'STAGE_OUT']);

/** Each member's state: from the queue while Slurm holds its task, else from its run directory or log. */
export function memberStatuses(members: number, queue: QueuedTasks, trace: (member: number) => MemberTrace, cancelled: boolean): MemberStatus[] {
  const statuses: MemberStatus[] = [];
  for (let member = 0; member < members; member++) {
    const queued = queue.get(member);
    const t = trace(member);
    const base = { member, ...(t.runDir !== undefined ? { runDir: t.runDir } : {}) };
    // Pending with a run directory: requeued (node failure, scontrol requeue); it resumes that run.
    if (queued === 'PENDING') statuses.push({ ...base, state: 'pending', ...(t.runDir !== undefined ? { detail: 'requeued' } : {}) });
    else if (queued !== undefined && RUNNING.has(queued)) statuses.push({ ...base, state: 'running' });
    // Suspended, requeued, held: Slurm's own word says most.
    else if (queued !== undefined) statuses.push({ ...base, state: 'pending', detail: queued.toLowerCase() });
    else if (t.runStatus === 'finished') statuses.push({ ...base, state: 'finished' });
    else if (t.runStatus === 'failed' || t.runStatus === 'stopped') statuses.push({ ...base, state: t.runStatus, detail: t.runNote ?? t.lastLogLine });
    // Out of the queue yet `running`: the trainer was killed (time limit passed KillWait, out of memory, node lost).
    else if (t.runStatus === 'running') statuses.push({ ...base, state: 'crashed', detail: t.lastLogLine ?? 'the task ended while the run was training' });
    // No run directory: rlx refused before training (its log says why), or Slurm never started it.
    else if (t.lastLogLine !== undefined) statuses.push({ ...base, state: 'failed', detail: t.lastLogLine });
    else statuses.push({ ...base, state: cancelled ? 'cancelled' : 'unknown' });
  }
  return statuses;
}

/** `6 members: 4 finished, 1 failed, 1 running`: counts in a fixed order, zeros left out. */
export function summarize(statuses: readonly MemberStatus[]): string {
  const order: MemberState[] = ['finished', 'running', 'pending', 'failed', 'stopped', 'crashed', 'cancelled', 'unknown'];
  const counts = order.map((s) => [s, statuses.filter((m) => m.state === s).length] as const).filter(([, n]) => n > 0);
  return `${statuses.length} member${statuses.length === 1 ? '' : 's'}: ${counts.map(([s, n]) => `${n} ${s}`).join(', ')}`;
}
