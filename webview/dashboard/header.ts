// The run's header: what it is (experiment, run, seed, device, algorithm) and how it is doing
// (state, steps of the budget, speed, elapsed time and ETA, measured memory against its
// estimate), with the error of a failed run or
// the explanation of a crashed one where nobody can miss it.
import { h, replaceChildren, setText } from '../shared/dom.js';
import { formatDuration, formatRate, formatSteps, formatTime } from '../shared/format.js';
import { memorySummary } from '../shared/memory.js';
import { returnsSummary, type ReturnsFacts } from '../../shared/returns-summary.js';
import type { RunModel } from '../shared/run-model.js';
import { trainedSeconds } from '../../shared/training-time.js';

export interface HeaderFacts {
  state: string;
  experiment: string;
  runId: string;
  seed: string;
  device: string;
  algorithm: string;
  steps: string;
  sps: string;
  elapsed: string;
  eta: string;
  /** The latest evaluation and training returns, each with how it was measured ('' before either). */
  returns: string;
  /** The latest measured peak beside the run's memory estimate ('' for a run without an estimate). */
  memory: string;
  /** The failed run's error, the crash explanation, or the reason a run ended. */
  notice: string;
  noticeKind: 'error' | 'warning' | 'info' | 'none';
}

const STATE_LABELS: Record<string, string> = {
  running: 'running',
  finished: 'finished',
  stopped: 'stopped',
  failed: 'failed',
  crashed: 'crashed',
  unknown: 'status unknown',
};

/** What the header says about a run at `now` (Unix seconds); pure, so tests can check it. */
export function headerFacts(run: RunModel, now: number): HeaderFacts {
  const status = run.status;
  const state = run.state;
  const step = run.step;
  const budget = run.budget;
  const sps = run.latestMetric('charts/sps');
  const started = status?.started ? Date.parse(status.started) / 1000 : run.startTime;
  // A running run's clock runs to now; a crashed one stopped at its last sign of life.
  const end =
    state === 'running'
      ? now
      : status?.ended
        ? Date.parse(status.ended) / 1000
        : Math.max(status?.updated ? Date.parse(status.updated) / 1000 : 0, run.lastTime ?? 0) || undefined;
  // Training time where the trainer counts it; else wall time from start to end.
  const trained = status ? trainedSeconds(status, state === 'running', now) : undefined;
  const elapsed = trained ?? (started !== undefined && end !== undefined ? end - started : undefined);
  const eta = state === 'running' && budget !== undefined && sps && sps > 0 ? Math.max(0, budget - step) / sps : undefined;
  const notice = noticeOf(run);
  return {
    state: STATE_LABELS[state] ?? state,
    experiment: run.snapshot.experiment,
    runId: run.snapshot.runId,
    seed: run.seed === undefined ? '–' : String(run.seed),
    device: run.device ?? '–',
    algorithm: run.algorithm ?? planAlgorithm(run) ?? '–',
    steps: budget !== undefined ? `${formatSteps(step)} / ${formatSteps(budget)}` : formatSteps(step),
    sps: formatRate(sps),
    elapsed: formatDuration(elapsed),
    eta: state === 'running' ? formatDuration(eta) : '–',
    returns: returnsSummary(returnsFacts(run)),
    memory: memorySummary(run),
    ...notice,
  };
}

function noticeOf(run: RunModel): Pick<HeaderFacts, 'notice' | 'noticeKind'> {
  const status = run.status;
  switch (run.state) {
    case 'failed':
      return { notice: `Training failed: ${run.error ?? 'no error message was recorded'}`, noticeKind: 'error' };
    case 'crashed': {
      const pid = status?.pid !== undefined ? ` (pid ${status.pid})` : '';
      const last = status?.updated ? `; its last sign of life was at ${formatTime(status.updated)}` : '';
      return {
        notice: `The trainer${pid} is gone but status.json still says running: it crashed or was killed${last}. Resume it with rlx train --resume on this run's folder.`,
        noticeKind: 'error',
      };
    }
    case 'stopped':
      return { notice: `Stopped: ${status?.reason ?? run.lastStatusEvent?.reason ?? 'by a signal'} (resumable with rlx train --resume).`, noticeKind: 'warning' };
    case 'finished':
      return { notice: `Finished: ${status?.reason ?? run.lastStatusEvent?.reason ?? 'budget reached'}.`, noticeKind: 'info' };
    case 'unknown':
      return { notice: 'status.json is missing or unreadable; what follows comes from events.jsonl alone.', noticeKind: 'warning' };
    default:
      return { notice: '', noticeKind: 'none' };
  }
}

/** The same facts `rlx train` prints on its last line, from the events (status.json's metrics before they arrive). */
function returnsFacts(run: RunModel): ReturnsFacts {
  const last = run.evals.at(-1);
  const planned = (run.snapshot.plan as { eval?: { deterministic?: unknown; episodes?: unknown } | null } | undefined)?.eval;
  return {
    evalMean: last?.values['eval/mean_return'] ?? run.status?.metrics?.['eval/mean_return'],
    evalEpisodes: last && last.returns.length > 0 ? last.returns.length : typeof planned?.episodes === 'number' ? planned.episodes : undefined,
    evalDeterministic: last?.deterministic ?? (typeof planned?.deterministic === 'boolean' ? planned.deterministic : undefined),
    trainMean: run.latestMetric('train/mean_return'),
    trainEpisodes: run.trainingEpisodes(),
    evalAccuracy: last?.values['eval/accuracy'] ?? run.status?.metrics?.['eval/accuracy'],
    evalSuccess: last?.values['eval/success'] ?? run.status?.metrics?.['eval/success'],
    trainReward: run.latestMetric('train/mean_reward'),
  };
}

function planAlgorithm(run: RunModel): string | undefined {
  const stages = (run.snapshot.plan as { stages?: { algorithm?: { kind?: unknown } }[] } | undefined)?.stages;
  const kind = stages?.[0]?.algorithm?.kind;
  return typeof kind === 'string' ? kind : undefined;
}

const FIELDS: [keyof HeaderFacts, string][] = [
  ['seed', 'seed'],
  ['device', 'device'],
  ['algorithm', 'algorithm'],
  ['steps', 'steps'],
  ['sps', 'steps/s'],
  ['elapsed', 'elapsed'],
  ['eta', 'ETA'],
];

export class RunHeader {
  readonly element: HTMLElement;
  private readonly title = h('h1', { class: 'run-title' });
  private readonly stateBadge = h('span', { class: 'state', attrs: { role: 'status' } });
  private readonly progress = h('div', { class: 'progress', attrs: { role: 'progressbar', 'aria-label': 'steps of the budget', 'aria-valuemin': 0, 'aria-valuemax': 100 } });
  private readonly progressFill = h('div', { class: 'progress-fill' });
  private readonly values = new Map<keyof HeaderFacts, HTMLElement>();
  private readonly returns = h('p', { class: 'returns', attrs: { 'data-field': 'returns' }, hidden: true });
  private readonly memory = h('p', { class: 'memory', attrs: { 'data-field': 'memory' }, hidden: true });
  private readonly notice = h('p', { class: 'notice', hidden: true });
  private readonly logs = h('details', { class: 'logs', hidden: true });
  private logCount = -1;

  constructor() {
    this.progress.append(this.progressFill);
    const facts = h('dl', { class: 'facts' });
    for (const [key, label] of FIELDS) {
      const value = h('dd', { attrs: { 'data-field': key } });
      this.values.set(key, value);
      facts.append(h('div', { class: 'fact' }, h('dt', { text: label }), value));
    }
    this.element = h('header', { class: 'run-header' }, h('div', { class: 'title-row' }, this.stateBadge, this.title), facts, this.returns, this.memory, this.progress, this.notice, this.logs);
  }

  update(run: RunModel, now: number): HeaderFacts {
    const facts = headerFacts(run, now);
    setText(this.title, `${facts.experiment} / ${facts.runId}`);
    setText(this.stateBadge, facts.state);
    this.stateBadge.dataset.state = run.state;
    for (const [key, el] of this.values) setText(el, facts[key]);
    const budget = run.budget;
    const fraction = budget ? Math.min(1, run.step / budget) : 0;
    this.progressFill.style.width = `${(fraction * 100).toFixed(1)}%`;
    this.progress.setAttribute('aria-valuenow', (fraction * 100).toFixed(0));
    this.progress.dataset.state = run.state;
    this.returns.hidden = facts.returns === '';
    setText(this.returns, facts.returns);
    this.memory.hidden = facts.memory === '';
    setText(this.memory, facts.memory);
    this.notice.hidden = facts.noticeKind === 'none';
    this.notice.dataset.kind = facts.noticeKind;
    // Errors are announced; the other notices are read when reached.
    if (facts.noticeKind === 'error') this.notice.setAttribute('role', 'alert');
    else this.notice.removeAttribute('role');
    setText(this.notice, facts.notice);
    this.updateLogs(run);
    return facts;
  }

  private updateLogs(run: RunModel): void {
    const shown = run.logs.filter((l) => l.level !== 'info');
    if (shown.length === this.logCount) return;
    this.logCount = shown.length;
    this.logs.hidden = shown.length === 0;
    const errors = shown.filter((l) => l.level === 'error').length;
    const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
    const parts = [shown.length - errors > 0 ? count(shown.length - errors, 'warning') : '', errors > 0 ? count(errors, 'error') : ''];
    replaceChildren(
      this.logs,
      h('summary', { text: `Log: ${parts.filter(Boolean).join(', ')}` }),
      h('ul', {}, ...shown.map((l) => h('li', { class: `log-${l.level}` }, h('span', { class: 'log-step', text: `step ${formatSteps(l.step)}` }), ' ', l.message))),
    );
  }
}
