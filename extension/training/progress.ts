// Where a batch of runs stands, for its notification: the share of steps done and a short line;
// and what the status bar says once runs ended. Reads only plain objects, so it is tested with them.
import type { JobProgress, JobState } from './job.js';

export interface JobView {
  state: JobState;
  progress: JobProgress | undefined;
  /** How many runs the job trains before its first has started (its progress says once it has). */
  runCount?: number;
}

/**
 * Counted in runs: a process that trains several runs in turn (a sweep) weighs as many, and its
 * share grows run by run instead of starting over at each member's first step.
 */
export function batchProgress(jobs: readonly JobView[]): { percent: number; message: string } {
  let done = 0;
  let total = 0;
  for (const job of jobs) {
    const p = job.progress;
    const runs = p?.runs ?? job.runCount ?? 1;
    total += runs;
    if (job.state !== 'queued' && job.state !== 'running') done += runs;
    else if (p) done += p.run + (p.budget > 0 ? Math.min(1, p.step / p.budget) : 0);
  }
  const percent = Math.floor((100 * done) / Math.max(1, total));
  const running = jobs.filter((j) => j.state === 'running').length;
  const queued = jobs.filter((j) => j.state === 'queued').length;
  const parts: string[] = [];
  if (jobs.length === 1) {
    const p = jobs[0].progress;
    if (queued) parts.push('waiting for a free slot (rlx.train.maxParallel)');
    else if (p && p.runs > 1) parts.push(`run ${p.run + 1} of ${p.runs}`, `${p.step.toLocaleString('en-US')} of ${p.budget.toLocaleString('en-US')} steps`);
    else if (p) parts.push(`${p.step.toLocaleString('en-US')} of ${p.budget.toLocaleString('en-US')} steps`);
    else parts.push('starting');
  } else {
    if (running) parts.push(`${running} running`);
    if (queued) parts.push(`${queued} queued`);
  }
  parts.push(`${percent}%`);
  return { percent, message: parts.join(' · ') };
}

/**
 * The status bar after runs ended: the one run by name, several by count per outcome
 * ("3 finished, 1 failed"), each listed in the tooltip. Pure: tested.
 */
export function resultsSummary(results: readonly { label: string; state: string; error?: string }[]): { text: string; tooltip: string; error: boolean } {
  const error = results.some((r) => r.state === 'failed');
  const icon = error ? '$(error)' : results.every((r) => r.state === 'finished') ? '$(check)' : '$(debug-stop)';
  const line = (r: (typeof results)[number]) => `${r.label} ${r.state}${r.error ? `: ${r.error.split('\n')[0]}` : ''}`;
  if (results.length === 1) return { text: `${icon} rlx: ${results[0].label} ${results[0].state}`, tooltip: line(results[0]), error };
  const counts = new Map<string, number>();
  for (const r of results) counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
  const text = `${icon} rlx: ${[...counts].map(([state, n]) => `${n} ${state}`).join(', ')}`;
  return { text, tooltip: `${results.length} runs ended:\n${results.map(line).join('\n')}\n\nClick for the trainer output.`, error };
}

/**
 * The runs a sweep trains: each member once per seed. The server sends the first plans of a large
 * sweep only; the others are counted as having as many seeds as the shown ones on average.
 */
export function sweepRuns(shown: readonly { seeds: readonly number[] }[], members: number): number {
  const seeds = shown.reduce((n, p) => n + Math.max(1, p.seeds.length), 0);
  return shown.length === 0 ? members : Math.round((seeds / shown.length) * members);
}
