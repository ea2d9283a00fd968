// How a run reads in the Runs view: label, one-line description, tooltip, icon. Pure, so the
// wording is tested without an editor.
import type { RunInfo, RunState } from '../../runtime/run/reader.js';
import { trainedSeconds } from '../../shared/training-time.js';
import { formatDuration as formatSharedDuration, formatSteps } from '../../shared/format.js';

export interface RunDescription {
  label: string;
  description: string;
  /** Markdown. */
  tooltip: string;
  /** A codicon id and the theme colour it is drawn in. */
  icon: { id: string; color?: string };
  /** For `view/item/context` menus: `run.<state>`. */
  contextValue: string;
}

const ICONS: Record<RunState, { id: string; color?: string }> = {
  running: { id: 'sync~spin', color: 'charts.blue' },
  finished: { id: 'pass', color: 'testing.iconPassed' },
  stopped: { id: 'debug-stop', color: 'charts.yellow' },
  failed: { id: 'error', color: 'testing.iconFailed' },
  crashed: { id: 'warning', color: 'list.warningForeground' },
  unknown: { id: 'question' },
};

/** A step count as `rlx train` and the dashboard show it (shared/format.ts); `-` for none. */
export const formatCount = (n: number): string => formatSteps(n, '-');

/** A duration as `rlx train` and the dashboard show it (shared/format.ts); `-` for none. */
export const formatDuration = (seconds: number): string => formatSharedDuration(seconds, '-');

/** The seed, from status.json or the run id (`...-seed3`, `...-seed3-2`). */
export function runSeed(run: RunInfo): number | undefined {
  if (run.status && Number.isFinite(run.status.seed)) return run.status.seed;
  const m = /-seed(\d+)(?:-\d+)?$/.exec(run.runId);
  return m ? Number(m[1]) : undefined;
}

/** The return to show: the latest evaluation when there is one, else the training episodes'. */
export function latestReturn(run: RunInfo): { value: number; kind: 'eval' | 'train' } | undefined {
  const metrics = run.status?.metrics ?? {};
  const evalReturn = metrics['eval/mean_return'];
  if (typeof evalReturn === 'number' && Number.isFinite(evalReturn)) return { value: evalReturn, kind: 'eval' };
  const trainReturn = metrics['train/mean_return'];
  if (typeof trainReturn === 'number' && Number.isFinite(trainReturn)) return { value: trainReturn, kind: 'train' };
  return undefined;
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const percent = (v: number) => `${(100 * v).toFixed(1)}%`;

/**
 * A run's result at a glance (`short`, for the description) and in words (`long`, for the
 * tooltip): a text run's latest held-out accuracy (a text task) or success (a dialogue env:
 * a text run, known by its train/mean_reward), which its return would only blur (a text task's
 * "return" is its mean reward, 1.1 for all right); any other run's latest return.
 */
export function runHeadline(run: RunInfo): { short: string; long: string } | undefined {
  const metrics = run.status?.metrics ?? {};
  const accuracy = metrics['eval/accuracy'];
  if (finite(accuracy)) return { short: `accuracy ${percent(accuracy)}`, long: `Latest held-out accuracy: ${percent(accuracy)} (greedy completions of the held-out prompts, exact match)` };
  const success = metrics['eval/success'];
  if (finite(success) && finite(metrics['train/mean_reward'])) return { short: `success ${percent(success)}`, long: `Latest held-out success: ${percent(success)} (greedy dialogues)` };
  const ret = latestReturn(run);
  if (!ret) return undefined;
  return { short: `return ${ret.value.toFixed(1)}`, long: `Latest ${ret.kind === 'eval' ? 'evaluation' : 'training'} return: ${ret.value.toFixed(2)}` };
}

/**
 * Seconds of training: the trainer's own count where status.json has one (a resumed run's time
 * stopped left out; a running run's grows from its last update to now), else start to end.
 */
export function runDuration(run: RunInfo, now: number): number | undefined {
  const s = run.status;
  if (!s) return undefined;
  const trained = trainedSeconds(s, run.state === 'running', now / 1000);
  if (trained !== undefined) return trained;
  const start = Date.parse(s.started);
  const end = s.ended ? Date.parse(s.ended) : run.state === 'running' ? now : Date.parse(s.updated);
  return Number.isFinite(start) && Number.isFinite(end) ? Math.max(0, (end - start) / 1000) : undefined;
}

/** A sweep member's tag from its id (`20261121-101010-LrScan2-seed1` -> `LrScan2`). */
function memberTag(runId: string): string | undefined {
  return /^\d{8}-\d{6}-(.+)-seed\d+(?:-\d+)?$/.exec(runId)?.[1];
}

/** When the run started, to the minute in local time (`2026-11-21 10:10`); its id where status.json has no start. */
export function startedAt(run: RunInfo): string {
  const iso = run.status?.started;
  const date = iso ? new Date(iso) : undefined;
  if (!date || Number.isNaN(date.getTime())) return run.runId;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** `member`: a sweep member's varied values (`lr=3e-4`), shown instead of the tag in its id. */
export function describeRun(run: RunInfo, now: number = Date.now(), member: string | undefined = memberTag(run.runId)): RunDescription {
  const seed = runSeed(run);
  const label = [member, seed !== undefined ? `seed ${seed}` : run.runId].filter(Boolean).join(' · ');
  const s = run.status;
  const parts: string[] = [];
  if (s) {
    parts.push(run.state === 'running' && s.budget > 0 ? `${formatCount(s.step)}/${formatCount(s.budget)} steps` : `${formatCount(s.step)} steps`);
  }
  const headline = runHeadline(run);
  // A sweep member's result first: it is what tells members apart, and a member's longer label
  // leaves its description cut off at the side bar's default width.
  if (headline) parts.splice(member ? 0 : parts.length, 0, headline.short);
  const duration = runDuration(run, now);
  if (duration !== undefined) parts.push(formatDuration(duration));
  // A status.json rlx refused to read (a link out of the run folder, a FIFO, too large): say so, not just "unknown".
  if (run.problem !== undefined) parts.push('status.json not read');

  const lines = [`**${run.experiment}** \`${run.runId}\``, '', `${stateWord(run.state)}${s?.reason ? `: ${s.reason}` : ''}`, '', `Started ${startedAt(run)}`];
  if (run.problem !== undefined) lines.push('', `Not read: ${run.problem}`);
  if (s?.error) lines.push('', `Error: ${s.error}`);
  if (s) lines.push('', `Steps: ${s.step.toLocaleString('en-US')} of ${s.budget.toLocaleString('en-US')}`);
  if (headline) lines.push('', headline.long);
  if (run.state === 'crashed') lines.push('', `The trainer (pid ${s?.pid}) is gone without writing an end: resume continues from the last checkpoint.`);
  return {
    label,
    description: parts.join(' · '),
    tooltip: lines.join('\n'),
    icon: ICONS[run.state],
    contextValue: `run.${run.state}`,
  };
}

export function stateWord(state: RunState): string {
  switch (state) {
    case 'running':
      return 'Running';
    case 'finished':
      return 'Finished';
    case 'stopped':
      return 'Stopped';
    case 'failed':
      return 'Failed';
    case 'crashed':
      return 'Crashed';
    default:
      return 'Unknown state (no readable status.json)';
  }
}

/** An experiment's line: how many runs, and how many are running. */
export function describeExperiment(runs: readonly RunInfo[]): string {
  const running = runs.filter((r) => r.state === 'running').length;
  const parts = [`${runs.length} run${runs.length === 1 ? '' : 's'}`];
  if (running > 0) parts.push(`${running} running`);
  return parts.join(' · ');
}
