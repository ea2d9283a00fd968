// The run dashboard: one run's header and live learning curves. Entry point of
// dist/webview/dashboard.js.
import type { HostMessage, PersistedPageState } from '../protocol.js';
import { Bridge, exposeTestHook } from '../shared/bridge.js';
import { h, replaceChildren } from '../shared/dom.js';
import type { Range } from '../shared/live-chart.js';
import type { RunModel } from '../shared/run-model.js';
import { Runs } from '../shared/runs.js';
import { watchTheme } from '../shared/theme.js';
import { xAxisPicker } from '../shared/x-axis.js';
import { dropdown, slider } from '../ui/components.js';
import { ChartBoard, type XMode } from './charts.js';
import { RunHeader, type HeaderFacts } from './header.js';

interface DashboardState extends PersistedPageState {
  runId?: string;
  smoothing: number;
  xAxis: XMode;
  /** Per chart, the zoomed x range (in the units of xAxis). */
  zoom: Record<string, Range>;
}

const DEFAULT_STATE: DashboardState = { runs: [], smoothing: 0.6, xAxis: 'step', zoom: {} };

const runs = new Runs();
let current: RunModel | undefined;
let lastFacts: HeaderFacts | undefined;
let messagesSeen = 0;
let runChoices = '';

const bridge = new Bridge<DashboardState>('dashboard', applyBatch);
const state = bridge.loadState(DEFAULT_STATE);
let theme = watchTheme((next) => {
  theme = next;
  board.redraw();
});

const header = new RunHeader();
const board = new ChartBoard({
  theme: () => theme,
  onExport: (file) => bridge.post(file),
  xMode: state.xAxis,
  smoothing: state.smoothing,
  zoom: state.zoom,
  onZoom: (id, range) => {
    if (range) state.zoom[id] = range;
    else delete state.zoom[id];
    bridge.saveState(state);
    board.render();
  },
});

const runPicker = dropdown({
  label: 'Run',
  choices: [],
  value: '',
  id: 'run-picker',
  onChange: (id) => {
    if (!id || id === current?.id) return;
    state.runId = id;
    state.zoom = {};
    bridge.saveState(state);
    show(runs.get(id));
  },
});
runPicker.element.hidden = true;

const smoothing = slider({
  label: 'Smoothing',
  min: 0,
  max: 0.99,
  step: 0.01,
  value: state.smoothing,
  id: 'smoothing',
  format: (v) => v.toFixed(2),
  onInput: (value) => {
    state.smoothing = value;
    bridge.saveState(state);
    board.setSmoothing(value);
  },
});

const xAxis = xAxisPicker(
  () => state.xAxis,
  (mode) => {
    state.xAxis = mode;
    state.zoom = {};
    bridge.saveState(state);
    board.setXMode(state.xAxis);
  },
);

const waiting = h('p', { class: 'placeholder', text: 'Waiting for the run’s data from the editor…' });
const toolbar = h(
  'div',
  { class: 'toolbar', role: 'toolbar', attrs: { 'aria-label': 'Chart settings' } },
  runPicker.element,
  smoothing.element,
  xAxis,
  h('span', { class: 'hint', text: 'Drag to zoom · Ctrl+wheel zooms · Shift+wheel pans · double-click resets' }),
);

const root = document.getElementById('root')!;
replaceChildren(root, waiting);
root.removeAttribute('aria-busy');

function applyBatch(messages: HostMessage[]): void {
  messagesSeen += messages.length;
  for (const message of messages) {
    // Rollouts and episodes are the inspector's: a dashboard ignores them.
    runs.apply(message);
    if (message.type === 'runs') {
      state.runs = runs.order;
      bridge.saveState(state);
    }
  }
  show(runs.get(state.runId) ?? runs.get(runs.order[0]));
}

function show(run: RunModel | undefined): void {
  if (run !== current) {
    current = run;
    if (run) replaceChildren(root, header.element, toolbar, board.element);
    else replaceChildren(root, waiting);
    board.setRun(run);
  }
  runPicker.element.hidden = runs.size < 2;
  // Rebuilding the options would close the list under the user's pointer: only on change.
  const choices = runs.order.join('\n');
  if (runs.size >= 2 && choices !== runChoices) {
    runChoices = choices;
    runPicker.setChoices(runs.order.map((id) => ({ value: id, label: id })), run?.id ?? '');
  } else if (run) runPicker.setValue(run.id);
  if (run) {
    lastFacts = header.update(run, Date.now() / 1000);
    board.update();
  }
}

// Elapsed time and ETA move while a run is running, even when no event arrives.
setInterval(() => {
  if (current?.state === 'running') lastFacts = header.update(current, Date.now() / 1000);
}, 1000);

exposeTestHook(() => ({
  page: 'dashboard',
  messages: messagesSeen,
  runId: current?.id,
  state: current?.state,
  header: lastFacts,
  smoothing: state.smoothing,
  xAxis: state.xAxis,
  charts: board.describe(),
  busy: board.busy,
}));

bridge.ready();
