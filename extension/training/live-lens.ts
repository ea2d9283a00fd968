// The lens over an experiment that trains now: "Training 34%", "Stop", "Dashboard", as a running
// notebook cell shows its state. Pure over what trains (Training), so it is unit-tested.
import { formatCount } from '../runs/describe.js';

/** What trains from one experiment now: its runs with a directory, and runs that have none yet. */
export interface Training {
  /** Running runs: directory, steps done and the budget. */
  runs: { dir: string; step: number; budget: number }[];
  /** Runs started but without a directory yet, and runs waiting for a slot. */
  starting: number;
  queued: number;
  /** What Stop passes to rlx.stopRun: run directories and queued jobs' Runs view nodes. */
  stopTargets: unknown[];
}

export interface LensCommand {
  title: string;
  command: string;
  arguments?: unknown[];
  tooltip?: string;
}

export function liveLenses(t: Training): LensCommand[] {
  const total = t.runs.length + t.starting + t.queued;
  if (total === 0) return [];
  const fractions = [...t.runs.map((r) => (r.budget > 0 ? Math.min(1, r.step / r.budget) : 0)), ...Array<number>(t.starting + t.queued).fill(0)];
  const percent = Math.floor((100 * fractions.reduce((a, b) => a + b, 0)) / total);
  const state = t.runs.length > 0 ? `Training ${percent}%` : t.starting > 0 ? 'Starting…' : 'Queued';
  const count = total > 1 ? ` (${total} runs${t.queued > 0 ? `, ${t.queued} queued` : ''})` : '';
  const newest = t.runs.at(-1);
  const tooltip = t.runs.map((r) => `${r.dir}: ${formatCount(r.step)} of ${formatCount(r.budget)} steps`).join('\n') || 'The trainer is starting';
  const lenses: LensCommand[] = [
    { title: `$(sync~spin) ${state}${count}`, command: newest ? 'rlx.openDashboard' : 'rlx.showTrainingOutput', arguments: newest ? [newest.dir] : [], tooltip },
    { title: '$(debug-stop) Stop', command: 'rlx.stopRun', arguments: [t.stopTargets], tooltip: total > 1 ? `Stop all ${total} runs (each saves a checkpoint to resume from)` : 'Stop (a final checkpoint: it can be resumed)' },
  ];
  if (newest) lenses.push({ title: 'Dashboard', command: 'rlx.openDashboard', arguments: [newest.dir], tooltip: `Open the dashboard of ${newest.dir}` });
  return lenses;
}
