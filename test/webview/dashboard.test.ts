// The run dashboard in headless Chromium, fed from fixture run directories by a fake host.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { RunEvent } from '../../webview/protocol.js';
import { ema } from '../../webview/shared/smoothing.js';
import { eventsOf, FakeHost, fixtureRuns, snapshotOf } from './fake-host.js';
import { Browser, chromiumMissing, screenshotDir, type PageUnderTest } from './harness.js';

interface ChartInfo {
  id: string;
  points: number;
  drawnRows: number;
  shown: number;
  zoom: { min: number; max: number } | null;
  smoothing: number;
  smoothedWith: number;
  visible: boolean;
  empty: boolean;
  lastSmoothed: number | null;
  marks?: { total: number; drawn: number; stopDrawn: boolean; dense?: boolean };
  yAxis?: { labels: string[]; size: number; font: string };
  title: string;
  latest: string;
  legend: string[];
  axisTitles: { x: string | null; y: string | null };
  references: { y: number; label: string; drawn: boolean }[];
}

interface DashboardSnapshot {
  messages: number;
  runId?: string;
  state?: string;
  header?: Record<string, string>;
  smoothing: number;
  xAxis: string;
  charts: ChartInfo[];
}

const chart = (s: DashboardSnapshot, id: string): ChartInfo => {
  const found = s.charts.find((c) => c.id === id);
  assert.ok(found, `no chart ${id} among ${s.charts.map((c) => c.id).join(', ')}`);
  return found;
};

/** Scrolls a chart into view and waits until it has drawn all its rows (charts out of view wait). */
async function showChart(page: PageUnderTest, id: string): Promise<DashboardSnapshot> {
  await page.page.locator(`[data-metric="${id}"]`).scrollIntoViewIfNeeded();
  return page.waitFor<DashboardSnapshot>((s) => {
    const c = s.charts.find((c) => c.id === id);
    return c !== undefined && c.points > 0 && c.drawnRows === c.points && c.shown > 0;
  }, `chart ${id} drawn`);
}

const metricValues = (events: RunEvent[], key: string) =>
  events.flatMap((e) => (e.type === 'metrics' && typeof e.values[key] === 'number' ? [e.values[key]] : []));

describe('run dashboard', { skip: chromiumMissing() }, () => {
  let browser: Browser;
  before(async () => {
    browser = await Browser.launch();
  });
  after(async () => {
    await browser?.close();
  });

  async function open(experiment: string, theme: 'light' | 'dark' = 'dark'): Promise<{ page: PageUnderTest; host: FakeHost }> {
    const host = new FakeHost(fixtureRuns(experiment).slice(0, 1));
    const page = await browser.open('dashboard', { host: host.handle, theme });
    return { page, host };
  }

  const loaded = (s: DashboardSnapshot) => s.charts.some((c) => c.id === 'episode/return' && c.points > 0);

  test('charts a finished run: one point per episode and per update, reward terms included', async () => {
    const { page, host } = await open('Steady');
    const s = await page.waitFor<DashboardSnapshot>(loaded, 'the episodes');
    const events = eventsOf(host.runs[0]);
    const episodes = events.filter((e) => e.type === 'episode').length;
    const updates = events.filter((e) => e.type === 'metrics').length;
    assert.equal(chart(s, 'episode/return').points, episodes);
    assert.equal(chart(s, 'episode/length').points, episodes);
    for (const id of ['losses/policy_loss', 'losses/value_loss', 'losses/entropy', 'losses/approx_kl', 'losses/clipfrac', 'charts/learning_rate']) {
      assert.equal(chart(s, id).points, updates, id);
    }
    for (const term of ['alive', 'centre', 'tilt']) assert.equal(chart(s, `rewards/${term}`).points, updates, term);
    assert.equal(s.header?.state, 'finished');
    assert.equal(s.header?.experiment, 'Steady');
    assert.equal(s.header?.seed, '1');
    assert.equal(s.header?.device, 'cpu');
    assert.equal(s.header?.steps, '8,192 / 8,192');
    assert.match(s.header?.notice ?? '', /^Finished: budget reached/);
    const lastEval = events.filter((e) => e.type === 'eval').at(-1)!;
    assert.match(s.header?.returns ?? '', /^eval (\d+\.\d) \((deterministic|sampled actions), (\d+) episodes\) · train \d+\.\d \(sampled actions, last 20 episodes\)$/);
    assert.equal(s.header?.returns.split(' ')[1], lastEval.values['eval/mean_return'].toFixed(1), 'the latest evaluation');
    assert.equal(await page.page.locator('[data-field="returns"]').textContent(), s.header?.returns, 'shown under the facts');
    assert.deepEqual(
      host.received.map((m) => m.type),
      ['ready'],
    );
    await page.page.waitForTimeout(200);
    assert.deepEqual((await page.savedState<{ runs: string[] }>())?.runs, [snapshotOf(host.runs[0]).id], 'the runs, for the host to show again after a reload');
    await page.screenshot('finished');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a history posted as columns (webview/columnar.ts) charts the same points as its events', async () => {
    const run = fixtureRuns('Steady')[1];
    const page = await browser.open('dashboard', { host: new FakeHost([run], { columnar: true }).handle });
    const s = await page.waitFor<DashboardSnapshot>(loaded, 'the episodes');
    const events = eventsOf(run);
    assert.equal(chart(s, 'episode/return').points, events.filter((e) => e.type === 'episode').length);
    assert.equal(chart(s, 'losses/value_loss').points, events.filter((e) => e.type === 'metrics').length);
    assert.equal(s.header?.device, 'cpu', 'the other events came as events');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  /** The dashboard's section headings as shown, in page order. */
  const sections = (page: PageUnderTest) => page.page.locator('section.chart-section:not([hidden]) > h2').allInnerTexts();

  test('a text run: held-out accuracy first, its learners\' metrics under readable titles, no episode or PPO charts', async () => {
    const { page, host } = await open('Sums');
    const s = await page.waitFor<DashboardSnapshot>((s) => s.charts.some((c) => c.id === 'eval/accuracy' && c.points > 0), 'the evaluations');
    const evals = eventsOf(host.runs[0]).filter((e) => e.type === 'eval');
    assert.equal(s.charts[0].id, 'eval/accuracy', 'the run\'s headline comes first');
    assert.equal(chart(s, 'eval/accuracy').title, 'Held-out accuracy');
    assert.equal(chart(s, 'eval/accuracy').points, evals.length, 'one point per evaluation');
    for (const id of ['episode/return', 'episode/length', 'losses/value_loss', 'losses/approx_kl', 'losses/clipfrac']) {
      assert.ok(!s.charts.some((c) => c.id === id), `no ${id} chart: a text task has no episodes, GRPO and SFT no value loss`);
    }
    assert.equal(chart(s, 'losses/kl').title, 'KL to the reference');
    assert.equal(chart(s, 'losses/clip_fraction').title, 'Clip fraction');
    assert.equal(chart(s, 'losses/sft_loss').title, 'SFT loss (cross-entropy)');
    for (const c of s.charts) assert.doesNotMatch(c.title, /^[a-z]+\//, `${c.id}: a title, not the raw name`);
    assert.deepEqual(await sections(page), ['Evaluation', 'Training samples', 'Reward terms', 'Losses', 'Schedules and speed']);
    await page.screenshot('text-run');
    assert.deepEqual(page.errors, []);
    await page.close();

    // Before its first event, a text run waits for what its learners log, and nothing else.
    const waiting = await browser.open('dashboard', {
      host: async (m, p) => {
        if (m.type === 'ready') await p.post({ type: 'runs', runs: [{ ...snapshotOf(host.runs[0]), state: 'running' }] });
      },
    });
    const w = await waiting.waitFor<DashboardSnapshot>((s) => s.charts.length > 0, 'the waiting charts');
    assert.deepEqual(
      w.charts.map((c) => c.id),
      ['eval/accuracy', 'train/token_accuracy', 'rewards/total', 'rewards/answer', 'rewards/format', 'losses/policy_loss', 'losses/sft_loss', 'losses/entropy', 'losses/kl', 'losses/clip_fraction', 'charts/learning_rate'],
    );
    assert.equal(await waiting.page.locator('[data-metric="eval/accuracy"] .chart-empty').textContent(), 'Waiting for the first evaluation');
    await waiting.close();
  });

  test('a dialogue run: held-out success first, then its episodes (dialogues); no accuracy chart waits in vain', async () => {
    const { page } = await open('Guesses');
    const s = await page.waitFor<DashboardSnapshot>((s) => s.charts.some((c) => c.id === 'episode/return' && c.points > 0) && s.charts.some((c) => c.id === 'eval/success' && c.points > 0), 'the run');
    assert.deepEqual(s.charts.slice(0, 3).map((c) => [c.id, c.title]), [['eval/success', 'Held-out success rate'], ['episode/return', 'Episode return'], ['episode/length', 'Episode length']]);
    assert.ok(!s.charts.some((c) => c.id === 'eval/accuracy' || c.id === 'losses/value_loss'), s.charts.map((c) => c.id).join(', '));
    assert.equal(chart(s, 'train/batch_success').title, 'Success rate (sampled)');
    assert.ok(!(await sections(page)).includes('More'), 'every metric it logs has its place');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('each chart says what its number is, titles its axes, and lists evaluations in its legend only when there are some', async () => {
    // Climb has no eval block: no "eval: –" entry.
    const { page } = await open('Climb');
    await page.waitFor<DashboardSnapshot>(loaded, 'the episodes');
    let s = await showChart(page, 'episode/return');
    await page.settle();
    s = await page.snapshot<DashboardSnapshot>();
    const ret = chart(s, 'episode/return');
    assert.ok(!ret.legend.includes('eval'), `no evaluations, no eval entry: ${ret.legend.join(', ')}`);
    assert.match(ret.latest, /^latest -?[\d.]+$/, 'the header\'s number is labelled');
    assert.deepEqual(ret.axisTitles, { x: 'env steps', y: 'return' });
    await page.page.getByRole('radio', { name: 'Wall time' }).click();
    await page.waitFor<DashboardSnapshot>((s) => s.xAxis === 'time', 'the wall-time axis');
    await page.settle();
    assert.equal(chart(await page.snapshot<DashboardSnapshot>(), 'episode/return').axisTitles.x, 'wall time');
    await page.page.locator('[data-metric="episode/return"]').screenshot({ path: `${screenshotDir()}/dashboard-axis-titles-${page.theme}.png` });
    assert.deepEqual(page.errors, []);
    await page.close();
    // Steady evaluates: its episode chart lists them.
    const steady = await open('Steady');
    await steady.page.waitFor<DashboardSnapshot>(loaded, 'the episodes');
    await showChart(steady.page, 'episode/return');
    await steady.page.settle();
    assert.ok(chart(await steady.page.snapshot<DashboardSnapshot>(), 'episode/return').legend.includes('eval'));
    await steady.page.close();
  });

  test('smoothing and the x axis switch; the smoothed value is the debiased EMA of the raw one', async () => {
    const { page, host } = await open('Steady');
    await page.waitFor<DashboardSnapshot>(loaded, 'the episodes');
    const values = metricValues(eventsOf(host.runs[0]), 'losses/value_loss');
    await showChart(page, 'losses/value_loss');
    const slider = page.page.locator('#smoothing');
    await slider.fill('0.9');
    await showChart(page, 'losses/value_loss');
    let s = await page.waitFor<DashboardSnapshot>((s) => chart(s, 'losses/value_loss').smoothedWith === 0.9, 'smoothing 0.9');
    const expected = ema(values, 0.9);
    assert.ok(Math.abs(chart(s, 'losses/value_loss').lastSmoothed! - expected[expected.length - 1]) < 1e-9);
    await slider.fill('0');
    s = await page.waitFor<DashboardSnapshot>((s) => chart(s, 'losses/value_loss').smoothedWith === 0, 'no smoothing');
    s = await showChart(page, 'losses/value_loss');
    assert.equal(chart(s, 'losses/value_loss').lastSmoothed, values[values.length - 1]);
    await page.settle();
    s = await page.snapshot<DashboardSnapshot>();
    const stale = s.charts.filter((c) => c.visible && c.smoothedWith !== 0).map((c) => c.id);
    assert.deepEqual(stale, [], 'every chart in view follows the smoothing');
    assert.ok(s.charts.filter((c) => c.visible).length >= 4);

    await page.page.getByRole('radio', { name: 'Wall time' }).click();
    s = await page.waitFor<DashboardSnapshot>((s) => s.xAxis === 'time', 'the wall-time axis');
    assert.equal(chart(s, 'losses/value_loss').points, values.length, 'same rows on another axis');
    await page.screenshot('wall-time');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('zoom by keyboard and by dragging, reset by double-click; zoom and settings survive a reload', async () => {
    const { page } = await open('Steady');
    await page.waitFor<DashboardSnapshot>(loaded, 'the episodes');
    const card = page.page.locator('[data-metric="losses/value_loss"]');
    await showChart(page, 'losses/value_loss');
    await card.focus();
    await page.page.keyboard.press('+');
    let s = await page.waitFor<DashboardSnapshot>((s) => chart(s, 'losses/value_loss').zoom !== null, 'a keyboard zoom');
    const zoomed = chart(s, 'losses/value_loss').zoom!;
    await page.page.keyboard.press('ArrowLeft');
    s = await page.waitFor<DashboardSnapshot>((s) => chart(s, 'losses/value_loss').zoom!.min < zoomed.min, 'a pan to the left');

    await page.page.locator('#smoothing').fill('0.8');
    await page.waitFor<DashboardSnapshot>((s) => s.smoothing === 0.8, 'smoothing 0.8');
    const before = chart(s, 'losses/value_loss').zoom!;
    await page.page.waitForTimeout(200); // the state is saved shortly after the last change
    await page.reload();
    s = await page.waitFor<DashboardSnapshot>(loaded, 'the episodes after the reload');
    s = await showChart(page, 'losses/value_loss');
    assert.equal(s.smoothing, 0.8);
    assert.deepEqual(chart(s, 'losses/value_loss').zoom, before);

    await card.locator('.u-over').dblclick();
    s = await page.waitFor<DashboardSnapshot>((s) => chart(s, 'losses/value_loss').zoom === null, 'the zoom reset');
    const other = page.page.locator('[data-metric="losses/entropy"] .u-over');
    await showChart(page, 'losses/entropy');
    const obox = (await other.boundingBox())!;
    await page.page.mouse.move(obox.x + obox.width * 0.2, obox.y + obox.height / 2);
    await page.page.mouse.down();
    await page.page.mouse.move(obox.x + obox.width * 0.6, obox.y + obox.height / 2, { steps: 5 });
    await page.page.mouse.up();
    await page.waitFor<DashboardSnapshot>((s) => chart(s, 'losses/entropy').zoom !== null, 'a drag zoom');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('every evaluation is drawn, the last one (at the run\'s last step) too', async () => {
    const { page, host } = await open('Steady');
    await page.waitFor<DashboardSnapshot>(loaded, 'the episodes');
    const evals = eventsOf(host.runs[0]).filter((e) => e.type === 'eval');
    assert.equal(evals.at(-1)!.step, host.runs[0].status!.step, 'the fixture evaluates at its last step');
    const s = await showChart(page, 'episode/return');
    await page.settle();
    const marks = chart(await page.snapshot<DashboardSnapshot>(), 'episode/return').marks;
    assert.deepEqual(marks, { total: evals.length, drawn: evals.length, stopDrawn: false, dense: false }, JSON.stringify(chart(s, 'episode/return')));
    const legend = await page.page.locator('[data-metric="episode/return"] .u-legend').innerText();
    assert.ok(legend.includes('eval') && !legend.includes('met stop'), `a run that ran its budget has no 'met stop' entry: ${legend}`);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('two hundred evaluations are drawn as small faint dots, not rings that hide the curve', async () => {
    const run = fixtureRuns('Steady')[0];
    const all = eventsOf(run);
    const template = all.find((e) => e.type === 'eval')!;
    // The same history evaluated every 40 steps: 200 evaluations on a chart a few hundred pixels wide.
    const evals = Array.from({ length: 200 }, (_, i) => ({ ...template, step: 40 * (i + 1), values: { ...template.values, 'eval/mean_return': 20 + (i % 7) } }));
    const events = [...all.filter((e) => e.type !== 'eval'), ...evals].sort((a, b) => a.step - b.step);
    const snapshot = snapshotOf(run);
    const page = await browser.open('dashboard', {
      host: async (m, p) => {
        if (m.type !== 'ready') return;
        await p.post({ type: 'runs', runs: [snapshot] });
        await p.post({ type: 'events', runId: snapshot.id, events, reset: true });
      },
    });
    await page.waitFor<DashboardSnapshot>(loaded, 'the episodes');
    await showChart(page, 'episode/return');
    await page.settle();
    assert.deepEqual(chart(await page.snapshot<DashboardSnapshot>(), 'episode/return').marks, { total: 200, drawn: 200, stopDrawn: false, dense: true }, 'every one drawn, small');
    await page.page.locator('[data-metric="episode/return"]').screenshot({ path: `${screenshotDir()}/dashboard-dense-evals-${page.theme}.png` });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a run stopped by its condition after one evaluation: that evaluation is drawn, marked as the one that met the stop', async () => {
    const run = fixtureRuns('Steady')[0];
    const all = eventsOf(run);
    const lastEval = all.filter((e) => e.type === 'eval').at(-1)!;
    const reason = `stop condition eval.mean_return >= 100 met (eval.mean_return = ${lastEval.values['eval/mean_return']})`;
    // The same history with only its last evaluation, ended by a stop condition instead of the budget.
    const events = all
      .filter((e) => e.type !== 'eval' || e === lastEval)
      .map((e) => (e.type === 'status' && e.status === 'finished' ? { ...e, reason } : e));
    const snapshot = { ...snapshotOf(run), status: { ...run.status!, reason } };
    const page = await browser.open('dashboard', {
      host: async (m, p) => {
        if (m.type !== 'ready') return;
        await p.post({ type: 'runs', runs: [snapshot] });
        await p.post({ type: 'events', runId: snapshot.id, events, reset: true });
      },
    });
    await page.waitFor<DashboardSnapshot>(loaded, 'the episodes');
    await showChart(page, 'episode/return');
    await page.settle();
    for (const id of ['episode/return', 'episode/length']) {
      await showChart(page, id);
      await page.settle();
      assert.deepEqual(chart(await page.snapshot<DashboardSnapshot>(), id).marks, { total: 1, drawn: 1, stopDrawn: true, dense: false }, id);
      assert.match(await page.page.locator(`[data-metric="${id}"] .u-legend`).innerText(), /met stop/, id);
    }
    await page.page.locator('[data-metric="episode/return"]').screenshot({ path: `${screenshotDir()}/dashboard-stop-marker-${page.theme}.png` });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a run with a memory estimate: the estimate across the peak\'s chart, sizes in GiB, the header\'s memory line; none of it without one', async () => {
    const GiB = 2 ** 30;
    const id = 'memory/peak_rss_bytes';
    const run = fixtureRuns('Measured')[0];
    const snapshot = snapshotOf(run);
    /** The dashboard of Measured's history with its hparams' estimate replaced (undefined: removed). */
    const openWith = async (estimate: number | undefined) => {
      const events = eventsOf(run).map((e) => {
        if (e.type !== 'hparams') return e;
        const { memory_estimate_bytes: _, ...values } = e.values;
        return { ...e, values: estimate === undefined ? values : { ...values, memory_estimate_bytes: estimate } };
      });
      const page = await browser.open('dashboard', {
        host: async (m, p) => {
          if (m.type !== 'ready') return;
          await p.post({ type: 'runs', runs: [snapshot] });
          await p.post({ type: 'events', runId: snapshot.id, events, reset: true });
          await p.post({ type: 'status', runId: snapshot.id, state: run.state, status: run.status });
        },
      });
      await page.waitFor<DashboardSnapshot>((s) => s.charts.some((c) => c.id === id && c.points > 0), 'the peak');
      await showChart(page, id);
      await page.settle();
      return { page, s: await page.snapshot<DashboardSnapshot>() };
    };
    const memoryLine = (page: PageUnderTest) => page.page.locator('[data-field="memory"]');

    const { page, s } = await openWith(5.5 * GiB);
    const peak = chart(s, id);
    assert.equal(peak.title, 'Peak memory (resident)');
    assert.deepEqual(peak.references, [{ y: 5.5 * GiB, label: 'estimate 5.5 GiB', drawn: true }]);
    assert.equal(peak.latest, 'latest 6.3 GiB');
    assert.ok(peak.yAxis!.labels.length >= 2 && peak.yAxis!.labels.every((l) => /^\d+(\.\d+)? GiB$/.test(l)), `ticks in GiB: ${peak.yAxis!.labels.join(', ')}`);
    assert.equal(s.header?.memory, 'memory: peak 6.3 GiB, estimate 5.5 GiB (1.15x)');
    assert.equal(await memoryLine(page).textContent(), s.header?.memory);
    assert.ok(await memoryLine(page).isVisible());
    assert.ok((await sections(page)).includes('Memory'));
    assert.deepEqual(chart(s, 'losses/sft_loss').references, [], 'the estimate is the peak\'s line only');
    await page.page.locator(`[data-metric="${id}"]`).screenshot({ path: `${screenshotDir()}/dashboard-memory-estimate-${page.theme}.png` });
    await page.page.locator('header.run-header').screenshot({ path: `${screenshotDir()}/dashboard-memory-header-${page.theme}.png` });
    assert.deepEqual(page.errors, []);
    await page.close();

    // An estimate above every measured peak is still in view: the y range takes it in.
    const high = await openWith(8 * GiB);
    assert.deepEqual(chart(high.s, id).references, [{ y: 8 * GiB, label: 'estimate 8.0 GiB', drawn: true }]);
    assert.deepEqual(high.page.errors, []);
    await high.page.close();

    // No estimate (a model trained from scratch, an older run): the peak's chart alone, no memory line.
    const none = await openWith(undefined);
    assert.deepEqual(chart(none.s, id).references, []);
    assert.equal(none.s.header?.memory, '');
    assert.ok(await memoryLine(none.page).isHidden());
    assert.deepEqual(none.page.errors, []);
    await none.page.close();
  });

  test('long y tick labels (a value of -0.000325 to -0.000335) fit the axis; hovering never moves the legend', async () => {
    const run = fixtureRuns('Steady')[0];
    // The same history with a learning rate whose ticks need long labels.
    const events = eventsOf(run).map((e) => (e.type === 'metrics' ? { ...e, values: { ...e.values, 'charts/learning_rate': -(3.25e-4 + (1e-5 * e.step) / 8192) } } : e));
    const snapshot = snapshotOf(run);
    const page = await browser.open('dashboard', {
      host: async (m, p) => {
        if (m.type !== 'ready') return;
        await p.post({ type: 'runs', runs: [snapshot] });
        await p.post({ type: 'events', runId: snapshot.id, events, reset: true });
      },
    });
    await page.waitFor<DashboardSnapshot>(loaded, 'the episodes');
    const id = 'charts/learning_rate';
    await showChart(page, id);
    await page.settle();
    const axis = chart(await page.snapshot<DashboardSnapshot>(), id).yAxis!;
    const widths = await page.page.evaluate(({ labels, font }) => {
      const ctx = document.createElement('canvas').getContext('2d')!;
      ctx.font = font;
      return labels.map((l) => ctx.measureText(l).width);
    }, axis);
    assert.ok(axis.labels.some((l) => l.length >= 8), `long labels: ${axis.labels.join(' ')}`);
    const widest = Math.max(...widths);
    assert.ok(widest + 4 <= axis.size, `the widest label (${widest.toFixed(1)} px, ${axis.labels[widths.indexOf(widest)]}) fits the axis (${axis.size} px) with its tick`);

    // The legend's entries stay where they are while the pointer moves over the plot.
    const card = page.page.locator(`[data-metric="${id}"]`);
    const boxes = () => card.locator('.u-legend .u-series').evaluateAll((rows) => rows.map((r) => { const b = r.getBoundingClientRect(); return [b.x, b.y, b.width, b.height].map(Math.round); }));
    const before = await boxes();
    const over = (await card.locator('.u-over').boundingBox())!;
    for (const f of [0.1, 0.5, 0.9]) {
      await page.page.mouse.move(over.x + over.width * f, over.y + over.height / 2);
      await page.settle();
      assert.match((await card.locator('.u-legend .u-series').nth(1).textContent()) ?? '', /\d/, 'a value is read out');
      assert.deepEqual(await boxes(), before, `the legend at ${f * 100}% across`);
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a chart exports as PNG (the canvas) and SVG (built from its data: axes, series, evaluations, legend) through the host', async () => {
    const { page, host } = await open('Steady');
    await page.waitFor<DashboardSnapshot>(loaded, 'the episodes');
    await showChart(page, 'episode/return');
    await page.settle();
    const card = page.page.locator('[data-metric="episode/return"]');
    await card.getByRole('button', { name: 'PNG' }).click();
    await card.getByRole('button', { name: 'SVG' }).click();
    const saves = await page.waitForSaves(2);
    assert.deepEqual(saves.map((m) => [m.name, m.format, m.encoding]), [['episode-return.png', 'png', 'base64'], ['episode-return.svg', 'svg', 'utf8']]);
    const png = Buffer.from(saves[0].data, 'base64');
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG file');
    assert.ok(png.length > 2000, `a drawn chart, ${png.length} bytes`);
    // The SVG parses as SVG and holds the run's data: one line per series, a circle per evaluation, the legend's labels.
    const svg = await page.page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      const root = doc.documentElement;
      return {
        root: root.nodeName,
        error: doc.querySelector('parsererror')?.textContent ?? null,
        lines: [...root.querySelectorAll('polyline')].map((p) => p.getAttribute('points')!.split(' ').length),
        circles: root.querySelectorAll('circle').length,
        texts: [...root.querySelectorAll('text')].map((t) => t.textContent),
      };
    }, saves[1].data);
    const events = eventsOf(host.runs[0]);
    assert.equal(svg.error, null);
    assert.equal(svg.root, 'svg');
    assert.equal(svg.lines.length, 2, 'raw and smoothed');
    assert.ok(svg.lines[0] > 10, 'the raw series');
    assert.equal(svg.circles, events.filter((e) => e.type === 'eval').length, 'every evaluation');
    for (const text of ['Episode return', 'raw', 'smoothed', 'eval', '100', '4k']) assert.ok(svg.texts.includes(text), `"${text}" in ${svg.texts.join(' | ')}`);
    fs.writeFileSync(path.join(screenshotDir(), 'dashboard-export-episode-return.svg'), saves[1].data);
    fs.writeFileSync(path.join(screenshotDir(), 'dashboard-export-episode-return.png'), png);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a live run: the header is right before the first episode, then updates stream in', async () => {
    const run = fixtureRuns('Steady')[0];
    const events = eventsOf(run);
    const snapshot = { ...snapshotOf(run), state: 'running' as const, status: { ...run.status!, status: 'running' as const, step: 0, ended: undefined, reason: undefined, metrics: {} } };
    const page = await browser.open('dashboard', {
      host: async (m, p) => {
        if (m.type === 'ready') await p.post({ type: 'runs', runs: [snapshot] });
      },
    });
    // Status, log, hparams: the trainer has started, no episode has ended.
    const firstEpisode = events.findIndex((e) => e.type === 'episode');
    await page.waitFor<DashboardSnapshot>((s) => s.state === 'running', 'the run');
    await page.post({ type: 'events', runId: snapshot.id, events: events.slice(0, firstEpisode) });
    let s = await page.waitFor<DashboardSnapshot>((s) => s.header?.device === 'cpu', 'the hparams');
    assert.equal(chart(s, 'episode/return').empty, true);
    assert.equal(chart(s, 'episode/return').points, 0);
    assert.equal(s.header?.state, 'running');
    assert.equal(s.header?.seed, '1');
    assert.equal(await page.page.locator('[data-metric="episode/return"] .chart-empty').textContent(), 'Waiting for the first episode');
    await page.screenshot('waiting');

    // The rest arrives in small pieces, as a tail of a growing file would post it.
    const rest = events.slice(firstEpisode);
    for (let i = 0; i < rest.length; i += 7) await page.post({ type: 'events', runId: snapshot.id, events: rest.slice(i, i + 7) });
    const episodes = events.filter((e) => e.type === 'episode').length;
    s = await page.waitFor<DashboardSnapshot>((s) => chart(s, 'episode/return').points === episodes, 'every episode');
    assert.equal(chart(s, 'episode/return').empty, false);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a failed run shows its error; a crashed run says so; a cut-off last line is never shown', async () => {
    const failed = await open('Failing', 'light');
    let s = await failed.page.waitFor<DashboardSnapshot>((s) => s.state === 'failed' && s.charts.length > 0, 'the failed run');
    assert.equal(s.header?.state, 'failed');
    assert.equal(s.header?.notice, 'Training failed: ENOSPC: no space left on device, write');
    assert.equal(await failed.page.page.getByRole('alert').textContent(), s.header?.notice);
    await failed.page.screenshot('failed');
    assert.deepEqual(failed.page.errors, []);
    await failed.page.close();

    const crashed = await open('Crashed');
    const events = eventsOf(crashed.host.runs[0]);
    s = await crashed.page.waitFor<DashboardSnapshot>((s) => s.state === 'crashed' && chart(s, 'episode/return').points > 0, 'the crashed run');
    assert.equal(s.header?.state, 'crashed');
    assert.match(s.header?.notice ?? '', /is gone but status\.json still says running/);
    assert.equal(chart(s, 'episode/return').points, events.filter((e) => e.type === 'episode').length);
    assert.equal(chart(s, 'losses/value_loss').points, events.filter((e) => e.type === 'metrics').length);
    await crashed.page.screenshot('crashed');
    assert.deepEqual(crashed.page.errors, []);
    await crashed.page.close();
  });

  test('light and dark themes, and a live switch to high contrast', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const { page } = await open('Steady', theme);
      await page.waitFor<DashboardSnapshot>(loaded, 'the episodes');
      await page.screenshot('theme');
      if (theme === 'dark') {
        await page.setTheme('high-contrast');
        await page.screenshot('theme');
      }
      assert.deepEqual(page.errors, []);
      await page.close();
    }
  });
});
