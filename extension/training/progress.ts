// Where a batch of runs stands, for its notification: the share of steps done and a short line.
// Reads only the jobs' state and progress, so it is tested with plain objects.
import type { JobProgress, JobState } from './job.js';

export interface JobView {
  state: JobState;
  progress: JobProgress | undefined;
}

export function batchProgress(jobs: readonly JobView[]): { percent: number; message: string } {
  const fractions = jobs.map((job) => {
    if (job.state !== 'queued' && job.state !== 'running') return 1;
    const p = job.progress;
    return p && p.budget > 0 ? Math.min(1, p.step / p.budget) : 0;
  });
  const percent = Math.floor((100 * fractions.reduce((a, b) => a + b, 0)) / Math.max(1, jobs.length));
  const running = jobs.filter((j) => j.state === 'running').length;
  const queued = jobs.filter((j) => j.state === 'queued').length;
  const parts: string[] = [];
  if (jobs.length === 1) {
    const p = jobs[0].progress;
    if (queued) parts.push('waiting for a free slot (rlx.train.maxParallel)');
    else if (p) parts.push(`${p.step.toLocaleString('en-US')} of ${p.budget.toLocaleString('en-US')} steps`);
    else parts.push('starting');
  } else {
    if (running) parts.push(`${running} running`);
    if (queued) parts.push(`${queued} queued`);
  }
  parts.push(`${percent}%`);
  return { percent, message: parts.join(' · ') };
}
