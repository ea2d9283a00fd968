// The run dashboard under load, in headless Chromium (the page as shipped: minified bundle,
// CSP, fake VS Code API from the test harness): time to first render of a run with 1,000,000
// logged updates (each with the 22 metrics a PPO run with three reward terms logs), posted in
// the columnar form a host should use for long histories and as plain events; then frame
// times while 1,000 new updates a second stream in. Measured inside the page with
// performance.now() and requestAnimationFrame. Figures are printed, never asserted.
import type { RunEvent } from '../runtime/run/reader.js';
import { Browser, chromiumMissing } from '../test/webview/harness.js';
import { foldHistory } from '../webview/columnar.js';
import { median, percentile, report } from './stats.js';

const ROWS = 1_000_000;

/**
 * A million updates, each with every metric (22 million values: the longest runs), in the
 * columnar form and as plain events; and a million points in all (45,455 updates x 22
 * metrics) as plain events, the size most long runs reach.
 */
const CASES: { form: 'columns' | 'events'; rows: number; stream: boolean }[] = [
  { form: 'columns', rows: ROWS, stream: true },
  { form: 'events', rows: ROWS, stream: false },
  { form: 'events', rows: Math.round(ROWS / 22), stream: true },
];
/** Events per message while loading: the host posts what it read in one go, in pieces. */
const CHUNK = 50_000;
const STREAM_PER_SECOND = 1000;
const STREAM_SECONDS = 8;
/** Messages a second while streaming (a host polling the file every 50 ms). */
const STREAM_MESSAGES_PER_SECOND = 20;

const KEYS = [
  'charts/episodes',
  'charts/episodic_return',
  'charts/episodic_length',
  'train/mean_return',
  'train/mean_length',
  'rewards/total',
  'rewards/alive',
  'rewards/centre',
  'rewards/tilt',
  'charts/learning_rate',
  'charts/clip',
  'charts/entropy_coef',
  'losses/policy_loss',
  'losses/value_loss',
  'losses/entropy',
  'losses/old_approx_kl',
  'losses/approx_kl',
  'losses/clipfrac',
  'losses/explained_variance',
  'losses/grad_norm',
  'losses/gradient_steps',
  'charts/sps',
];

interface InPage {
  /** Posting the history (the structured clone on the sender's side, here the same page). */
  postMs: number;
  /** The dashboard's own work per frame while loading. */
  loadWork: number[];
  firstRenderMs: number;
  shownPoints: number;
  charts: number;
  chartsDrawn: number;
  frames: number[];
  work: number[];
  streamed: number;
  rowsAfter: number;
  heapMb: number | null;
}

export async function benchWebview(): Promise<void> {
  let skip: string | undefined;
  try {
    skip = chromiumMissing();
  } catch (err) {
    skip = (err as Error).message;
  }
  if (skip) {
    console.log(`\n== webview dashboard: not measured (${skip})`);
    return;
  }
  hostFold();
  const browser = await Browser.launch();
  try {
    for (const { form, rows, stream } of CASES) {
      const page = await browser.open('dashboard', { minified: true, width: 1400, height: 1000 });
      const result = (await page.page.evaluate(runInPage, {
        form,
        rows,
        chunk: CHUNK,
        keys: KEYS,
        perSecond: STREAM_PER_SECOND,
        seconds: stream ? STREAM_SECONDS : 0,
        messagesPerSecond: STREAM_MESSAGES_PER_SECOND,
      })) as InPage;
      if (page.errors.length > 0) console.log(`page errors:\n${page.errors.join('\n')}`);
      printResult(form, rows, result);
      await page.close();
    }
  } finally {
    await browser.close();
  }
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

function printResult(form: 'columns' | 'events', rows: number, result: InPage): void {
  const how = form === 'columns' ? `as a 'columns' message (what webview/columnar.ts makes of a long history)` : `as 'events' messages of up to ${CHUNK.toLocaleString('en-US')} events`;
  report(`webview dashboard: first render of ${rows.toLocaleString('en-US')} updates x ${KEYS.length} metrics (${(rows * KEYS.length).toLocaleString('en-US')} points), posted ${how}`, [
    ['time to first render', `${ms(result.firstRenderMs)}  (target < 1000 ms; from the first message posted to the frame showing every row)`],
    ['of which posting (clone, sender side)', ms(result.postMs)],
    ['of which the page applying it', `${ms(result.loadWork.reduce((a, b) => a + b, 0))} in ${result.loadWork.length} frames (max ${ms(Math.max(...result.loadWork))})`],
    ['charts drawn / all charts', `${result.chartsDrawn} / ${result.charts} (the others draw when scrolled into view)`],
    ['points drawn by one chart', `${result.shownPoints} (decimated from ${rows.toLocaleString('en-US')} rows)`],
    ['JS heap after loading', result.heapMb === null ? 'n/a' : `${result.heapMb.toFixed(0)} MB`],
  ]);
  if (result.frames.length === 0) return;
  report(`webview dashboard: then ${STREAM_PER_SECOND} new updates/s (as events, ${STREAM_MESSAGES_PER_SECOND} messages/s) for ${STREAM_SECONDS} s`, [
    ['frame interval', `p50 ${ms(median(result.frames))}, p95 ${ms(percentile(result.frames, 95))}, p99 ${ms(percentile(result.frames, 99))}, max ${ms(Math.max(...result.frames))} over ${result.frames.length} frames`],
    ['frames longer than 1.5 vsync (25 ms)', `${result.frames.filter((f) => f > 25).length}`],
    ['page work per frame with updates', `p50 ${ms(median(result.work))}, p95 ${ms(percentile(result.work, 95))}, max ${ms(Math.max(...result.work))} (target < 16 ms; ${result.work.length} frames)`],
    ['rows at the end', `${result.rowsAfter.toLocaleString('en-US')} (${result.streamed.toLocaleString('en-US')} streamed)`],
  ]);
}

/**
 * The host's side of a long history, in Node: parsing the lines of events.jsonl (as EventTail
 * does), then folding them into columns (webview/columnar.ts).
 */
function hostFold(): void {
  const lines: string[] = [];
  for (let i = 0; i < ROWS; i++) {
    const values: Record<string, number> = {};
    for (let k = 0; k < KEYS.length; k++) values[KEYS[k]] = Math.sin(i * 0.001 + k);
    lines.push(JSON.stringify({ type: 'metrics', step: (i + 1) * 512, time: 1_795_000_000 + i * 0.01, values }));
  }
  const t0 = performance.now();
  const events = lines.map((line) => JSON.parse(line) as RunEvent);
  const parseMs = performance.now() - t0;
  lines.length = 0;
  const t1 = performance.now();
  const messages = foldHistory('Bench/run', events);
  const foldMs = performance.now() - t1;
  report(`webview host side (Node): a history of ${ROWS.toLocaleString('en-US')} updates`, [
    ['parsing the lines (JSON.parse)', ms(parseMs)],
    ['folding them into columns (foldHistory)', `${ms(foldMs)} (${messages.length} messages)`],
  ]);
}

/** Runs inside the page: feeds the dashboard as the host would, and times it. */
async function runInPage(args: { form: 'columns' | 'events'; rows: number; chunk: number; keys: string[]; perSecond: number; seconds: number; messagesPerSecond: number }): Promise<InPage> {
  type Snapshot = { charts: { id: string; points: number; drawnRows: number; shown: number }[] };
  const hook = (window as unknown as { __rlxTest: { snapshot(): Snapshot; frameWork(): number[] } }).__rlxTest;
  const frame = () => new Promise<number>((resolve) => requestAnimationFrame(resolve));
  const runId = 'Bench/20261121-000000-seed1';
  const t0 = 1_795_000_000;
  const stepsPerUpdate = 512;
  const value = (i: number, k: number) => Math.sin(i * 0.001 + k) * (1 - i / args.rows) + (i / args.rows) * (k + 1) + Math.random() * 0.1;
  const event = (i: number) => {
    const values: Record<string, number> = {};
    for (let k = 0; k < args.keys.length; k++) values[args.keys[k]] = value(i, k);
    return { type: 'metrics', step: (i + 1) * stepsPerUpdate, time: t0 + i * 0.01, values };
  };
  const started = new Date(t0 * 1000).toISOString();
  const status = { status: 'running', pid: 1, experiment: 'Bench', seed: 1, started, updated: started, step: 0, budget: 2 * args.rows * stepsPerUpdate, metrics: {} };
  window.postMessage({ type: 'runs', runs: [{ id: runId, experiment: 'Bench', runId: '20261121-000000-seed1', state: 'running', status }] }, '*');
  await frame();
  await frame();

  // The history, made before the clock starts.
  const messages: unknown[] = [];
  if (args.form === 'columns') {
    const steps = new Float64Array(args.rows);
    const times = new Float64Array(args.rows);
    const columns: Record<string, Float64Array> = {};
    for (let i = 0; i < args.rows; i++) {
      steps[i] = (i + 1) * stepsPerUpdate;
      times[i] = t0 + i * 0.01;
    }
    args.keys.forEach((key, k) => {
      const column = new Float64Array(args.rows);
      for (let i = 0; i < args.rows; i++) column[i] = value(i, k);
      columns[key] = column;
    });
    messages.push({ type: 'columns', runId, table: 'metrics', steps, times, columns });
  } else {
    for (let start = 0; start < args.rows; start += args.chunk) {
      const events: unknown[] = [];
      for (let i = start; i < Math.min(args.rows, start + args.chunk); i++) events.push(event(i));
      messages.push({ type: 'events', runId, events });
    }
  }
  await frame();

  // First render: from posting the history to the frame whose visible charts hold every row.
  const probe = 'rewards/total';
  const start = performance.now();
  const workStart = hook.frameWork().length;
  for (const message of messages) window.postMessage(message, '*');
  messages.length = 0;
  const postMs = performance.now() - start;
  const loaded = () => {
    const chart = hook.snapshot().charts.find((c) => c.id === probe);
    return chart !== undefined && chart.drawnRows === args.rows && chart.shown > 0;
  };
  while (!loaded()) await frame();
  await frame(); // the frame that paints it
  const firstRenderMs = performance.now() - start;
  const loadWork = hook.frameWork().slice(workStart);
  const charts = hook.snapshot().charts;
  const shownPoints = charts.find((c) => c.id === probe)!.shown;
  const memory = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;

  // Streaming: a message every 1/messagesPerSecond s with perSecond/messagesPerSecond rows.
  for (let i = 0; i < 30; i++) await frame(); // settle
  const workBefore = hook.frameWork().length;
  let next = args.rows;
  const perMessage = Math.round(args.perSecond / args.messagesPerSecond);
  const timer = setInterval(() => {
    const events = [];
    for (let k = 0; k < perMessage; k++) events.push(event(next++));
    window.postMessage({ type: 'events', runId, events }, '*');
  }, 1000 / args.messagesPerSecond);
  const frames: number[] = [];
  const end = performance.now() + args.seconds * 1000;
  let last = await frame();
  while (last < end) {
    const now = await frame();
    frames.push(now - last);
    last = now;
  }
  clearInterval(timer);
  for (let i = 0; i < 5; i++) await frame();
  const work = hook.frameWork().slice(workBefore);
  const rowsAfter = hook.snapshot().charts.find((c) => c.id === probe)!.points;
  return {
    postMs,
    loadWork,
    firstRenderMs,
    shownPoints,
    charts: charts.length,
    chartsDrawn: charts.filter((c) => c.drawnRows === args.rows).length,
    frames,
    work,
    streamed: next - args.rows,
    rowsAfter,
    heapMb: memory ? memory.usedJSHeapSize / 1e6 : null,
  };
}
