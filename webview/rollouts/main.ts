// The rollout inspector: pick a recorded episode of a run, step or play through it, and see
// the env, the observation, the action and every reward term at each step; for a text run,
// pick a recorded batch and see each group's samples (text-view.ts). Entry point of
// dist/webview/rollouts.js.
import type { HostMessage, PersistedPageState, RolloutContents, RolloutListing } from '../protocol.js';
import { Bridge, exposeTestHook } from '../shared/bridge.js';
import { h, replaceChildren, setText } from '../shared/dom.js';
import { formatSteps, formatValue } from '../shared/format.js';
import type { RunModel } from '../shared/run-model.js';
import { Runs } from '../shared/runs.js';
import { watchTheme } from '../shared/theme.js';
import { dropdown, progressRing } from '../ui/components.js';
import { drawingFor } from './draw/index.js';
import { FrameView } from './frame-view.js';
import { isTextPlan } from '../shared/metrics.js';
import { stepsPerSecond } from './env-info.js';
import { RewardChart } from './reward-chart.js';
import { stepFacts, StepView, type StepFacts } from './step-view.js';
import { TextBatchView } from './text-view.js';
import { Timeline } from './timeline.js';

interface InspectorState extends PersistedPageState {
  runId?: string;
  /** The episode's file as the host listed it. */
  file?: string;
  t: number;
  speed: number;
  /** The group shown of a text batch. */
  group?: number;
}

/** The file shown: a numeric episode (steps) or a text batch (groups). */
type Episode = { runId: string; file: string } & RolloutContents;

const runs = new Runs();
const listings = new Map<string, { episodes: RolloutListing[]; missing: boolean }>();
let episode: Episode | undefined;
let loading: string | undefined;
let facts: StepFacts | undefined;
let drawn: string | undefined;
let noticeText = '';
let episodeChoicesKey = '';
let runChoices = '';

const bridge = new Bridge<InspectorState>('rollouts', applyBatch);
const state = bridge.loadState({ runs: [], t: 0, speed: 1 });
let theme = watchTheme((next) => {
  theme = next;
  rewardChart.redraw();
  draw();
});

const title = h('h1', { text: 'Recorded episodes' });
const notice = h('p', { class: 'notice', hidden: true, attrs: { 'data-kind': 'info' } });
const runPicker = dropdown({ label: 'Run', id: 'run-picker', choices: [], value: '', onChange: (id) => selectRun(id) });
const episodePicker = dropdown({ label: 'Episode', id: 'episode-picker', choices: [], value: '', onChange: (file) => openEpisode(file) });
const loadingRing = h('span', { class: 'loading-episode', hidden: true }, progressRing('Loading the episode'), ' Loading the episode…');
const canvas = h('canvas', { class: 'env-canvas', tabIndex: 0, attrs: { role: 'img', 'aria-label': 'Drawing of the environment at this step' } });
const noDrawing = h('p', { class: 'no-drawing', hidden: true });
const frameView = new FrameView((runId, file, frame) => bridge.post({ type: 'openFrame', runId, file, frame }));
const stepView = new StepView();
const timeline = new Timeline({
  speed: state.speed,
  rate: () => stepsPerSecond(episode?.header?.env),
  onSeek: (t) => show(t),
  onSpeed: (speed) => {
    state.speed = speed;
    bridge.saveState(state);
  },
});
const rewardChart = new RewardChart(
  () => theme,
  (t) => {
    timeline.pause();
    timeline.seek(t);
  },
);
const textView = new TextBatchView((group) => {
  state.group = group;
  bridge.saveState(state);
});
const skippedNote = h('p', { class: 'hint', hidden: true });
const episodeView = h(
  'div',
  { class: 'episode-view' },
  h('div', { class: 'stage' }, h('div', { class: 'drawing' }, frameView.element, canvas, noDrawing), stepView.element),
  timeline.element,
  rewardChart.element,
);
const inspector = h('div', { class: 'inspector', hidden: true }, episodeView, textView.element, skippedNote);
// Keys on the drawing drive the timeline too.
canvas.addEventListener('keydown', (e) => timeline.onKey(e));

const root = document.getElementById('root')!;
replaceChildren(
  root,
  h('header', { class: 'inspector-head' }, title, h('div', { class: 'toolbar' }, runPicker.element, episodePicker.element, loadingRing)),
  notice,
  inspector,
);
root.removeAttribute('aria-busy');
runPicker.element.hidden = true;
episodePicker.element.hidden = true;
setNotice('Waiting for the run from the editor…', 'info');

new ResizeObserver(() => {
  rewardChart.resize();
  draw();
}).observe(inspector);

function applyBatch(messages: HostMessage[]): void {
  for (const message of messages) {
    if (runs.apply(message)) {
      if (message.type === 'runs') {
        state.runs = runs.order;
        bridge.saveState(state);
      }
    } else if (message.type === 'rollouts') {
      listings.set(message.runId, { episodes: message.episodes, missing: message.missing === true });
    } else if (message.type === 'episode' && message.runId === state.runId && message.file === loading) {
      // Only the episode asked for last: a slow answer for an earlier pick is dropped.
      loading = undefined;
      const { type: _type, ...contents } = message;
      episode = contents;
      loadEpisode();
    } else if (message.type === 'frame') {
      frameView.receive(message);
    }
  }
  refresh();
}

function currentRun(): RunModel | undefined {
  return runs.get(state.runId) ?? runs.get(runs.order[0]);
}

function selectRun(id: string): void {
  if (!id || id === state.runId) return;
  state.runId = id;
  state.file = undefined;
  state.t = 0;
  episode = undefined;
  bridge.saveState(state);
  refresh();
}

function openEpisode(file: string): void {
  const run = currentRun();
  if (!run || !file || (file === state.file && (episode?.file === file || loading === file))) return;
  timeline.pause();
  if (file !== state.file) {
    state.t = 0;
    // The first group listed (of held-out answers: the first wrong one) until the user picks one.
    state.group = undefined;
  }
  state.file = file;
  bridge.saveState(state);
  loading = file;
  bridge.post({ type: 'openEpisode', runId: run.id, file });
  refresh();
}

/** Brings pickers and notices in line with what the host has sent so far. */
function refresh(): void {
  const run = currentRun();
  runPicker.element.hidden = runs.size < 2;
  const runList = runs.order.join('\n');
  if (runs.size >= 2 && runList !== runChoices) {
    runChoices = runList;
    runPicker.setChoices(runs.order.map((id) => ({ value: id, label: id })), run?.id ?? '');
  }
  if (!run) {
    setNotice('Waiting for the run from the editor…', 'info');
    return;
  }
  state.runId = run.id;
  const text = isTextRun(run);
  setText(title, `Recorded ${text ? 'batches' : 'episodes'}: ${run.snapshot.experiment} / ${run.snapshot.runId}`);
  setText(episodePicker.element.querySelector('.control-label')!, text ? 'Batch' : 'Episode');
  const listing = listings.get(run.id);
  if (!listing) {
    setNotice('Looking for recorded episodes…', 'info');
    episodePicker.element.hidden = true;
    return;
  }
  if (listing.episodes.length === 0) {
    episodePicker.element.hidden = true;
    inspector.hidden = true;
    setNotice(whyNoEpisodes(run, listing.missing), 'warning');
    return;
  }
  episodePicker.element.hidden = false;
  const choices = listing.episodes.map((e) => ({ value: e.file, label: episodeLabel(run, e) }));
  // The saved episode if it is still there (the state outlives the files), else the latest.
  const wanted = listing.episodes.some((e) => e.file === state.file) ? state.file! : listing.episodes[listing.episodes.length - 1].file;
  // Rebuilding the options would close the list under the user's pointer: only on change.
  const key = JSON.stringify(choices);
  if (key !== episodeChoicesKey) {
    episodeChoicesKey = key;
    episodePicker.setChoices(choices, wanted);
  } else episodePicker.setValue(wanted);
  if (wanted !== state.file || (!episode && !loading)) openEpisode(wanted);
  loadingRing.hidden = loading === undefined;
  if (episode?.kind === 'episode' && episode.steps.length === 0) setNotice('This episode file holds no steps.', 'warning');
  else if (episode?.kind === 'text' && episode.groups.length === 0) setNotice('This batch file holds no groups.', 'warning');
  else setNotice('', 'none');
}

function whyNoEpisodes(run: RunModel, missing: boolean): string {
  if (isTextRun(run)) {
    if (missing) return 'No recorded batches: this run has no rollouts folder; the folder may have been deleted, or not copied with the run.';
    const when = 'A text run records a learner’s batch about 20 times per run, from the first step of a GRPO or REINFORCE stage (an SFT stage records none).';
    return run.state === 'running' ? `No recorded batches yet. ${when} Step ${formatSteps(run.step)} so far.` : `No recorded batches: the run ${run.state === 'unknown' ? 'has no readable status' : `is ${run.state}`} and its rollouts folder is empty. ${when}`;
  }
  if (missing) {
    return 'No recorded episodes: this run has no rollouts folder. The trainer writes about 20 sampled training episodes there over a run (the first from step 0); the folder may have been deleted, or not copied with the run.';
  }
  if (run.state === 'running') {
    return `No recorded episodes yet: the trainer records env copy 0's episode from step 0 and writes it when that episode ends (then about 20 over the run). Step ${formatSteps(run.step)} so far.`;
  }
  return `No recorded episodes: the run ${run.state === 'unknown' ? 'has no readable status' : `is ${run.state}`} and its rollouts folder is empty; it ended before its first recorded episode did.`;
}

/**
 * What an episode is, then what it did: `final policy, return 500 · 500 steps`, `eval at 40k,
 * return 212 · 212 steps`, `training at 25k, return 37 · 37 steps`; for a text batch
 * `step 1,920 · GRPO · mean reward 0.34`. The return and length come from the run's rollout
 * events (for a batch: its mean reward and its number of groups), the algorithm from the
 * plan's stage of the event.
 */
function episodeLabel(run: RunModel, listing: RolloutListing): string {
  const name = listing.file.split(/[\\/]/).pop()!;
  const note = run.rollouts.find((r) => r.file.split('/').pop() === name);
  // The listing knows from the file's name; older hosts list no `recorded`.
  const recorded = listing.recorded ?? note?.recorded ?? 'train';
  if (isTextRun(run)) {
    if (recorded === 'final') return heldOutLabel(run, listing, note?.length, name);
    const algorithm = algorithmOf(run, note?.stage);
    const parts = [`step ${formatSteps(listing.step)}`, algorithm, note ? `mean reward ${formatValue(note.return)}` : name];
    return parts.filter(Boolean).join(' · ');
  }
  const what =
    recorded === 'final' ? 'final policy'
    : recorded === 'eval' ? `eval at ${formatSteps(listing.step)}`
    : recorded === 'rlx-eval' ? `rlx eval of the policy at ${formatSteps(listing.step)}`
    : `training at ${formatSteps(listing.step)}`;
  return note ? `${what}, return ${formatValue(note.return)} · ${note.length} steps` : `${what} (${name})`;
}

/**
 * The final policy's held-out answers, by what its evaluation at that step found:
 * `final policy · held-out accuracy 99.6% · 256 prompts`.
 */
function heldOutLabel(run: RunModel, listing: RolloutListing, count: number | undefined, name: string): string {
  const evaluation = run.evals.find((e) => e.step === listing.step)?.values ?? {};
  const percent = (v: number) => `${(100 * v).toFixed(1)}%`;
  const dialogues = (run.snapshot.plan as { env?: { kind?: unknown } } | undefined)?.env?.kind !== 'TextTask';
  const found = Number.isFinite(evaluation['eval/accuracy'])
    ? `held-out accuracy ${percent(evaluation['eval/accuracy'])}`
    : Number.isFinite(evaluation['eval/success'])
      ? `held-out success ${percent(evaluation['eval/success'])}`
      : 'held-out answers';
  return ['final policy', found, count !== undefined ? `${count} ${dialogues ? 'dialogues' : 'prompts'}` : name].join(' · ');
}

function isTextRun(run: RunModel): boolean {
  return isTextPlan(run.snapshot.plan);
}

/** The algorithm of the plan's stage by that name (or of its only stage). */
function algorithmOf(run: RunModel, stage: string | undefined): string | undefined {
  const plan = run.snapshot.plan as { stages?: { name?: string; algorithm?: { kind?: string } }[] } | undefined;
  const stages = Array.isArray(plan?.stages) ? plan.stages : [];
  const found = stages.find((s) => s?.name === stage) ?? (stages.length === 1 ? stages[0] : undefined);
  return typeof found?.algorithm?.kind === 'string' ? found.algorithm.kind : undefined;
}

function setNotice(text: string, kind: 'info' | 'warning' | 'none'): void {
  noticeText = text;
  notice.hidden = kind === 'none' || text === '';
  notice.dataset.kind = kind;
  setText(notice, text);
}

function loadEpisode(): void {
  const ep = episode!;
  inspector.hidden = false;
  inspector.dataset.env = ep.header?.env ?? '';
  inspector.dataset.kind = ep.kind;
  skippedNote.hidden = ep.skipped === 0;
  skippedNote.textContent = `${ep.skipped} line${ep.skipped === 1 ? '' : 's'} of the ${ep.kind === 'text' ? 'batch' : 'episode'} file could not be read and were skipped.`;
  episodeView.hidden = ep.kind === 'text';
  textView.element.hidden = ep.kind !== 'text';
  if (ep.kind === 'text') {
    timeline.pause();
    facts = undefined;
    textView.load(ep.header, ep.groups, state.group);
    return;
  }
  const env = ep.header?.env;
  // The env's own pictures where it drew them (render_mode "rgb_array"), else rlx's drawing of a built-in env.
  const framed = frameView.load(ep.runId, ep.file, ep.steps);
  const drawing = framed ? undefined : drawingFor(env);
  canvas.hidden = !drawing;
  noDrawing.hidden = framed || Boolean(drawing);
  noDrawing.textContent = env ? `No drawing for ${env}; its observation is listed beside.` : 'The episode file has no header: the env and its fields are unknown.';
  rewardChart.load(ep.header, ep.steps);
  timeline.load(ep.steps.length, state.t);
}

function show(t: number): void {
  if (episode?.kind !== 'episode') return;
  if (state.t !== t) {
    state.t = t;
    bridge.saveState(state);
  }
  facts = stepFacts(episode.header, episode.steps, t);
  stepView.render(facts, episode.header);
  rewardChart.setStep(t);
  frameView.show(t);
  draw();
}

function draw(): void {
  const ep = episode?.kind === 'episode' ? episode : undefined;
  const drawing = drawingFor(ep?.header?.env);
  drawn = undefined;
  if (!ep || !drawing || canvas.hidden) return;
  const width = Math.max(200, canvas.clientWidth);
  const height = Math.max(150, canvas.clientHeight);
  const ratio = devicePixelRatio || 1;
  if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
  }
  const ctx = canvas.getContext('2d')!;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.fillStyle = theme.background;
  ctx.fillRect(0, 0, width, height);
  const plan = runs.get(ep.runId)?.snapshot.plan as { env?: { params?: Record<string, unknown> } } | undefined;
  // The params the episode ran with (a curriculum changes them over the run), else the plan's.
  const params = { ...(plan?.env?.params ?? {}), ...(ep.header?.env_params ?? {}) };
  drawing({ ctx, width, height, header: ep.header, steps: ep.steps, t: timeline.t, params, theme });
  drawn = ep.header?.env;
}

exposeTestHook(() => ({
  page: 'rollouts',
  runId: state.runId,
  episodes: listings.get(state.runId ?? '')?.episodes.map((e) => e.file) ?? [],
  file: episode?.file,
  loading: loading ?? null,
  env: episode?.header?.env,
  kind: episode?.kind,
  steps: episode?.kind === 'episode' ? episode.steps.length : 0,
  t: timeline.t,
  playing: timeline.isPlaying,
  speed: timeline.currentSpeed,
  notice: noticeText,
  drawn: drawn ?? null,
  frame: frameView.shown,
  step: facts ?? null,
  text:
    episode?.kind === 'text'
      ? {
          algorithm: episode.header.algorithm,
          step: episode.header.step,
          groups: episode.groups.map((g) => ({ start: g.start, target: g.target })),
          selected: textView.selected,
          listed: textView.listed,
          recorded: episode.header.recorded ?? null,
          rows: textView.rows,
        }
      : null,
  episodeLabels: JSON.parse(episodeChoicesKey || '[]').map((c: { label: string }) => c.label),
}));

bridge.ready();
