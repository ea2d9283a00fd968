// The run comparison in headless Chromium: seeds of one experiment and the members of a sweep,
// from fixture run directories.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RunInfo } from '../../runtime/run/reader.js';
import { eventsOf, FakeHost, fixtureRuns, snapshotOf } from './fake-host.js';
import { Browser, chromiumMissing, type PageUnderTest } from './harness.js';

interface CompareSnapshot {
  runs: string[];
  included: string[];
  metric: string;
  mode: string;
  groups: { label: string; runIds: string[] }[];
  best?: string;
  summary: string;
  legend: string[];
  colors: string[];
  chart?: { xs: number[]; series: { label: string; values: (number | null)[]; counts?: number[] }[] };
  table?: { columns: { key: string; label: string; differs: boolean }[]; rows: string[]; sort: { key: string; descending: boolean } };
}

/** The value of a metric at each update step of a run. */
function metricByStep(run: RunInfo, key: string): Map<number, number> {
  const values = new Map<number, number>();
  for (const e of eventsOf(run)) if (e.type === 'metrics' && typeof e.values[key] === 'number') values.set(e.step, e.values[key]);
  return values;
}

/** RFC 4180 CSV: fields quoted when they hold commas, quotes or line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  for (const line of text.trimEnd().split('\r\n')) {
    const fields: string[] = [];
    const re = /("(?:[^"]|"")*"|[^,]*)(,|$)/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(line)) !== null) {
      fields.push(m[1].startsWith('"') ? m[1].slice(1, -1).replace(/""/g, '"') : m[1]);
      if (m[2] === '') break;
    }
    rows.push(fields);
  }
  return rows;
}

async function choose(page: PageUnderTest, selector: string, value: string): Promise<void> {
  await page.page.locator(selector).click();
  await page.page.locator(`${selector} vscode-option[value="${value}"]`).click();
}

describe('run comparison', { skip: chromiumMissing() }, () => {
  let browser: Browser;
  before(async () => {
    browser = await Browser.launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('seeds of one experiment: the mean and min-max band are those of the runs at each step', async () => {
    const runs = fixtureRuns('Steady');
    assert.equal(runs.length, 3);
    const host = new FakeHost(runs);
    const page = await browser.open('compare', { host: host.handle });
    await page.waitFor<CompareSnapshot>((s) => s.runs.length === 3 && (s.chart?.xs.length ?? 0) > 0, 'three runs');
    await page.page.locator('#smoothing').fill('0');
    await choose(page, '#metric', 'losses/value_loss');
    const s = await page.waitFor<CompareSnapshot>((s) => s.metric === 'losses/value_loss' && s.chart!.series.length === 3, 'the value loss band');
    assert.equal(s.mode, 'band');
    assert.equal(s.groups.length, 1, 'seeds of one experiment are one configuration');
    const [mean, max, min] = s.chart!.series;
    assert.match(mean.label, /^Steady \(mean of 3 runs\)$/);
    const byRun = runs.map((r) => metricByStep(r, 'losses/value_loss'));
    assert.deepEqual(s.chart!.xs, [...byRun[0].keys()], 'the runs log at the same steps: those are the grid');
    s.chart!.xs.forEach((step, i) => {
      const values = byRun.map((m) => m.get(step)!);
      assert.ok(Math.abs(mean.values[i]! - values.reduce((a, b) => a + b) / values.length) < 1e-9, `mean at step ${step}`);
      assert.equal(min.values[i], Math.min(...values), `min at step ${step}`);
      assert.equal(max.values[i], Math.max(...values), `max at step ${step}`);
    });
    assert.deepEqual(
      s.table!.columns.filter((c) => c.differs),
      [],
      'seeds share every hyperparameter',
    );
    await page.screenshot('seeds');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a sweep: configurations grouped by the differing hyperparameter, highlighted in the table, sortable', async () => {
    const runs = fixtureRuns('Quick');
    assert.equal(runs.length, 4);
    const page = await browser.open('compare', { host: new FakeHost(runs).handle, theme: 'light' });
    let s = await page.waitFor<CompareSnapshot>((s) => s.runs.length === 4 && (s.table?.rows.length ?? 0) === 4, 'four runs');
    assert.equal(s.groups.length, 2);
    assert.deepEqual(
      s.groups.map((g) => g.label),
      ['lr=3e-4', 'lr=3e-3'],
      'configurations labelled by the values they vary',
    );
    // The best configuration by the metric shown, each run judged by the mean of its last 20
    // episodes (one last episode is noise), averaged over the configuration's runs.
    const lastReturn = (r: RunInfo) => {
      const last = eventsOf(r).filter((e) => e.type === 'episode').slice(-20).map((e) => e.return as number);
      return last.reduce((a, b) => a + b) / last.length;
    };
    const meanOf = (g: { runIds: string[] }) => g.runIds.map((id) => lastReturn(runs.find((r) => snapshotOf(r).id === id)!)).reduce((a, b) => a + b) / g.runIds.length;
    const best = [...s.groups].sort((a, b) => meanOf(b) - meanOf(a))[0];
    assert.notEqual(meanOf(s.groups[0]), meanOf(s.groups[1]), 'the fixture has a better configuration');
    s = await page.waitFor<CompareSnapshot>((s) => s.best === best.label && s.chart!.series.every((x) => x.values.some((v) => v !== null)), 'every run\'s history and the best configuration');
    assert.match(s.summary, /^4 runs of sweep LrScan in 2 configurations .* Best by Episode return, the mean of its last 20 episodes per run, averaged over the configuration's runs \(highest\): ★ lr=3e-\d \([\d.]+\)\.$/);
    assert.equal(
      await page.page.locator('.compare-table .best').first().getAttribute('title'),
      "the best configuration by Episode return, the mean of its last 20 episodes per run, averaged over the configuration's runs (highest)",
      'the star says how it was chosen',
    );
    assert.ok(s.chart!.series.some((x) => x.label === `${best.label} (mean of 2 runs) ★ best`), s.chart!.series.map((x) => x.label).join(' | '));
    assert.equal(await page.page.locator('.compare-table .best').count(), 2, 'the best configuration\'s runs starred in the table');
    assert.deepEqual(
      s.table!.columns.filter((c) => c.differs).map((c) => c.key),
      ['hp:algorithm.learning_rate'],
    );
    assert.equal(await page.page.locator('td.differs').count(), 4, 'one highlighted cell per run');
    const differing = await page.page.locator('tr td.differs').allTextContents();
    assert.deepEqual(differing.sort(), ['0.0003', '0.0003', '0.003', '0.003']);

    // Every hyperparameter on request; still only the learning rate highlighted.
    await page.page.getByText('Show every hyperparameter').click();
    s = await page.waitFor<CompareSnapshot>((s) => s.table!.columns.some((c) => c.key === 'hp:algorithm.gamma'), 'every hyperparameter');
    assert.deepEqual(
      s.table!.columns.filter((c) => c.differs).map((c) => c.key),
      ['hp:algorithm.learning_rate'],
    );
    assert.ok(s.table!.columns.filter((c) => c.key.startsWith('hp:')).length > 20);

    // Sorted by the final train return, by mouse, then descending by keyboard.
    const finalReturn = new Map(runs.map((r) => [snapshotOf(r).id, r.status!.metrics['train/mean_return']]));
    const byReturn = [...finalReturn.keys()].sort((a, b) => finalReturn.get(a)! - finalReturn.get(b)!);
    await page.page.locator('button[data-sort-key="final:train/mean_return"]').click();
    s = await page.waitFor<CompareSnapshot>((s) => s.table!.sort.key === 'final:train/mean_return', 'the sort');
    assert.deepEqual(s.table!.rows, byReturn);
    await page.page.keyboard.press('Enter'); // the header button kept the focus
    s = await page.waitFor<CompareSnapshot>((s) => s.table!.sort.descending, 'the descending sort');
    assert.deepEqual(s.table!.rows, [...byReturn].reverse());

    // The table as CSV, in the order shown, with the final metrics' full digits.
    await page.page.getByRole('button', { name: 'CSV' }).click();
    const [csv] = await page.waitForSaves(1);
    assert.equal(csv.name, 'compare-runs.csv');
    const [header, ...rows] = parseCsv(csv.data);
    assert.equal(rows.length, 4);
    assert.deepEqual(header.slice(0, 2), ['run', 'run id'], 'a sweep member by its name, and its id');
    assert.deepEqual(rows.map((r) => r[1]), [...byReturn].reverse().map((id) => id.split('/').pop()));
    assert.ok(rows.every((r) => /^lr=3e-[34] · seed [12]$/.test(r[0])), rows.map((r) => r[0]).join(' | '));
    assert.ok(header.includes('algorithm.learning_rate') && header.includes('train/mean_return'), header.join(','));
    assert.ok(rows.every((r) => r.length === header.length), 'quoted fields (lists like [64, 64]) stay one field');
    const column = header.indexOf('train/mean_return');
    assert.deepEqual(rows.map((r) => Number(r[column])), [...byReturn].reverse().map((id) => finalReturn.get(id)));
    await page.page.getByRole('button', { name: 'SVG' }).click();
    const svg = (await page.waitForSaves(2))[1];
    assert.match(svg.data, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.equal((svg.data.match(/<polygon /g) ?? []).length, 2, 'a band per configuration');

    // Each run on its own, one taken off the chart.
    await page.page.getByRole('radio', { name: 'Each run' }).click();
    await page.page.getByRole('checkbox', { name: 'show lr=3e-4 · seed 1 on the chart' }).uncheck();
    s = await page.waitFor<CompareSnapshot>((s) => s.mode === 'runs' && s.included.length === 3, 'three runs on the chart');
    assert.equal(s.chart!.series.length, 3);
    assert.deepEqual(s.chart!.series.map((x) => x.label).sort(), ['lr=3e-3 · seed 1', 'lr=3e-3 · seed 2', 'lr=3e-4 · seed 2'].filter((l) => s.chart!.series.some((x) => x.label === l)));
    for (const label of s.chart!.series.map((x) => x.label)) assert.match(label, /^lr=3e-[34] · seed [12]$/);
    assert.equal(new Set(s.colors).size, 4, `each run its own colour: ${s.colors.join(', ')}`);
    await page.screenshot('sweep');

    // All of it survives a reload.
    await page.page.waitForTimeout(200);
    await page.reload();
    s = await page.waitFor<CompareSnapshot>((s) => (s.table?.rows.length ?? 0) === 4, 'the runs after the reload');
    assert.equal(s.mode, 'runs');
    assert.equal(s.included.length, 3);
    assert.deepEqual(s.table!.sort, { key: 'final:train/mean_return', descending: true });
    assert.ok(s.table!.columns.some((c) => c.key === 'hp:algorithm.gamma'));
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a sweep\'s runs in the table: named by what they vary (the run id under it), by configuration then seed', async () => {
    // Members start in any order when a sweep runs in parallel: their ids (start times) sort
    // seed 2 before seed 1, and the second configuration before the first.
    const started = ['220535', '220533', '220534', '220532'];
    const sweep = fixtureRuns('Quick').map((r, i) => ({ ...r, runId: r.runId.replace('220533', started[i]) }));
    const plain = fixtureRuns('Steady')[0];
    const ids = sweep.map((r) => snapshotOf(r).id);
    const page = await browser.open('compare', { host: new FakeHost([...[...sweep].reverse(), plain]).handle });
    let s = await page.waitFor<CompareSnapshot>((s) => (s.table?.rows.length ?? 0) === 5, 'five runs');
    const rowHeaders = () => page.page.locator('.compare-table tbody th[scope="row"]');
    const names = async () => (await rowHeaders().locator('.run-name').allTextContents());
    assert.deepEqual(s.table!.sort, { key: 'run', descending: false }, 'the default order');
    assert.deepEqual(s.table!.rows, [...ids, snapshotOf(plain).id], 'configuration by configuration, seed 1 before seed 2; the plain run after the sweep');
    assert.deepEqual(await names(), ['Quick / lr=3e-4 · seed 1', 'Quick / lr=3e-4 · seed 2', 'Quick / lr=3e-3 · seed 1', 'Quick / lr=3e-3 · seed 2', `Steady / ${plain.runId}`]);
    // The run id stays at hand (its directory): under the name, and as the cell's tooltip.
    const first = rowHeaders().first();
    assert.equal(await first.locator('.run-id').textContent(), `Quick / ${sweep[0].runId}`);
    assert.equal(await first.getAttribute('title'), `Quick / ${sweep[0].runId}`);
    assert.equal(await rowHeaders().last().locator('.run-id').count(), 0, 'a plain run\'s name is its id: not twice');
    assert.ok(await page.page.getByRole('checkbox', { name: 'show Quick / lr=3e-3 · seed 2 on the chart' }).isChecked());
    assert.equal(await page.page.getByRole('rowheader', { name: /^Quick \/ lr=3e-4 · seed 2/ }).count(), 1, 'the name is the row header');

    // The run column still sorts both ways by its header; another column as before.
    await page.page.locator('button[data-sort-key="run"]').click();
    s = await page.waitFor<CompareSnapshot>((s) => s.table!.sort.descending, 'the descending sort');
    assert.deepEqual(s.table!.rows, [snapshotOf(plain).id, ...[...ids].reverse()]);
    await page.page.locator('button[data-sort-key="seed"]').click();
    s = await page.waitFor<CompareSnapshot>((s) => s.table!.sort.key === 'seed', 'the sort by seed');
    assert.deepEqual(await page.page.locator('.compare-table tbody td[data-column="seed"]').allTextContents(), ['1', '1', '1', '2', '2']);

    // The CSV keeps both: the name shown and the run id.
    await page.page.getByRole('button', { name: 'CSV' }).click();
    const [csv] = await page.waitForSaves(1);
    const [header, ...rows] = parseCsv(csv.data);
    assert.deepEqual(header.slice(0, 2), ['run', 'run id']);
    assert.deepEqual(rows.find((r) => r[0] === 'Quick / lr=3e-3 · seed 1')?.[1], `Quick / ${sweep[2].runId}`);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a mean over runs of different lengths says how many runs it averages; its band stops where fewer than two remain', async () => {
    const runs = fixtureRuns('Steady');
    const cut = 4096;
    const ids = runs.map((r) => snapshotOf(r).id);
    // Seeds 2 and 3 as if they had stopped at step 4096: only seed 1 goes on.
    const page = await browser.open('compare', {
      host: async (m, p) => {
        if (m.type !== 'ready') return;
        await p.post({ type: 'runs', runs: runs.map(snapshotOf) });
        runs.forEach(async (r, i) => {
          const events = eventsOf(r).filter((e) => i === 0 || e.step <= cut);
          await p.post({ type: 'events', runId: ids[i], events, reset: true });
        });
      },
    });
    await page.waitFor<CompareSnapshot>((s) => s.runs.length === 3 && (s.chart?.xs.length ?? 0) > 0, 'three runs');
    await page.page.locator('#smoothing').fill('0');
    await choose(page, '#metric', 'losses/value_loss');
    const s = await page.waitFor<CompareSnapshot>((s) => s.metric === 'losses/value_loss' && s.chart!.series.length === 3 && s.chart!.xs.at(-1)! > cut, 'the value loss band');
    const [mean, max, min] = s.chart!.series;
    s.chart!.xs.forEach((x, i) => {
      assert.equal(mean.counts![i], x <= cut ? 3 : 1, `runs at step ${x}`);
      assert.equal(max.values[i] === null, x > cut, `band at step ${x}`);
      assert.equal(min.values[i] === null, x > cut, `band at step ${x}`);
      assert.notEqual(mean.values[i], null, `the mean goes on at step ${x}`);
    });
    // The hover says it: n=3 of 3 early, n=1 of 3 past the shorter runs' end.
    const over = (await page.page.locator('.compare-chart .u-over').boundingBox())!;
    for (const [f, n] of [[0.2, 3], [0.95, 1]] as const) {
      await page.page.mouse.move(over.x + over.width * f, over.y + over.height / 2);
      await page.settle();
      const legend = (await page.snapshot<CompareSnapshot>()).legend;
      assert.match(legend[1], new RegExp(`\\(n=${n} of 3\\)$`), legend.join(' | '));
    }
    await page.screenshot('ragged');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a sweep in light and dark: mean and band per configuration, the best one marked', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const page = await browser.open('compare', { host: new FakeHost(fixtureRuns('Quick')).handle, theme });
      await page.waitFor<CompareSnapshot>((s) => s.best !== undefined && s.chart!.series.length === 6 && s.chart!.series.every((x) => x.values.some((v) => v !== null)), 'the sweep');
      await page.screenshot('sweep-band');
      assert.deepEqual(page.errors, []);
      await page.close();
    }
  });

  test('a text run with stages (the Sums fixture) beside a CartPole run: the table shows both plans, the page does not go blank', async () => {
    const runs = [...fixtureRuns('Sums'), fixtureRuns('Steady')[0]];
    const sums = snapshotOf(runs[0]).id;
    const page = await browser.open('compare', { host: new FakeHost(runs).handle });
    const s = await page.waitFor<CompareSnapshot>((s) => (s.table?.rows.length ?? 0) === 2, 'both runs in the table');
    assert.ok(s.table!.columns.some((c) => c.key === 'hp:env.task' && c.differs), 'the text task is a differing hyperparameter');
    const cell = (run: string, column: string) => page.page.locator(`tr[data-run="${run}"] td[data-column="${column}"]`).textContent();
    assert.equal(await cell(sums, 'env.task'), 'addition(digits: 1, pad: false)', 'a task in the language\'s words');
    assert.equal(await cell(sums, 'main.algorithm'), 'GRPO');
    await page.screenshot('text-run');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a run with a memory estimate beside one without: the measured peak and the estimate as final figures, in GiB', async () => {
    const runs = [...fixtureRuns('Measured'), ...fixtureRuns('Sums')];
    const [measured, sums] = runs.map((r) => snapshotOf(r).id);
    const page = await browser.open('compare', { host: new FakeHost(runs).handle });
    const s = await page.waitFor<CompareSnapshot>((s) => (s.table?.rows.length ?? 0) === 2 && s.table!.columns.some((c) => c.key === 'final:memory_estimate_bytes'), 'the memory columns');
    assert.deepEqual(
      s.table!.columns.filter((c) => c.key.includes('memory')).map((c) => [c.key, c.label]),
      [['final:memory/peak_rss_bytes', 'peak memory'], ['final:memory_estimate_bytes', 'memory estimate']],
    );
    const cell = (run: string, column: string) => page.page.locator(`tr[data-run="${run}"] td[data-column="${column}"]`).textContent();
    assert.equal(await cell(measured, 'memory/peak_rss_bytes'), '6.3 GiB');
    assert.equal(await cell(measured, 'memory_estimate_bytes'), '5.5 GiB');
    assert.equal(await cell(sums, 'memory/peak_rss_bytes'), '–', 'a run of an earlier version measured nothing');
    assert.equal(await cell(sums, 'memory_estimate_bytes'), '–');
    assert.deepEqual(page.errors, []);
    await page.close();

    // Runs without an estimate: no memory columns.
    const plain = await browser.open('compare', { host: new FakeHost([...fixtureRuns('Sums'), fixtureRuns('Steady')[0]]).handle });
    const p = await plain.waitFor<CompareSnapshot>((s) => (s.table?.rows.length ?? 0) === 2, 'both runs');
    assert.ok(!p.table!.columns.some((c) => c.key.includes('memory')), p.table!.columns.map((c) => c.key).join(', '));
    await plain.close();
  });

  test('runs of different experiments and states side by side, in dark and light', async () => {
    const runs = [...fixtureRuns('Steady').slice(0, 2), ...fixtureRuns('Failing'), ...fixtureRuns('Crashed')];
    for (const theme of ['dark', 'light'] as const) {
      const page = await browser.open('compare', { host: new FakeHost(runs).handle, theme });
      const s = await page.waitFor<CompareSnapshot>((s) => (s.table?.rows.length ?? 0) === 4 && (s.chart?.xs.length ?? 0) > 0, 'four runs');
      assert.ok(s.groups.length >= 2);
      await page.screenshot('mixed');
      assert.deepEqual(page.errors, []);
      await page.close();
    }
  });
});
