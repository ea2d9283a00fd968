// The rollout inspector in headless Chromium: recorded episodes of the fixture runs, stepped
// through by mouse and keyboard, checked against the episode files themselves.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { listRollouts, readRollout, type RolloutHeader, type RolloutStep, type RunInfo, type TextGroup, type TextRolloutHeader } from '../../runtime/run/reader.js';
import { listRuns } from '../../runtime/run/reader.js';
import { RolloutRecorder } from '../../runtime/run/rollouts.js';
import { train } from '../../runtime/train.js';
import { makePlan, tempDir } from '../runtime/helpers.js';
import { eventsOf, FakeHost, fixtureRuns, snapshotOf } from './fake-host.js';
import { Browser, chromiumMissing, type PageUnderTest } from './harness.js';

interface StepFacts {
  t: number;
  obs: Record<string, number>;
  action: string;
  reward: number;
  terms: Record<string, number>;
  termSums: Record<string, number>;
  terminated: boolean;
  truncated: boolean;
}

interface SampleRow {
  index: number;
  text?: string;
  turns?: [string, string][];
  reward: number;
  terms: Record<string, number>;
  advantage: number | null;
  verdict: string;
}

interface InspectorSnapshot {
  runId?: string;
  episodes: string[];
  file?: string;
  loading: string | null;
  env?: string;
  kind?: 'episode' | 'text';
  steps: number;
  t: number;
  playing: boolean;
  speed: number;
  notice: string;
  drawn: string | null;
  /** The recorded frame on screen (envs that render), as the step line names it. */
  frame: string | null;
  step: StepFacts | null;
  text: { algorithm: string; step: number; groups: { start: string; target?: string }[]; selected: number; listed: number[]; recorded: string | null; rows: SampleRow[] } | null;
  episodeLabels: string[];
}

/** A numeric env's episode file, read as the host reads it. */
function readEpisode(file: string): { header: RolloutHeader; steps: RolloutStep[] } {
  const contents = readRollout(file);
  assert.ok(contents.kind === 'episode' && contents.header, `${file} is a numeric episode with a header`);
  return { header: contents.header, steps: contents.steps };
}

/** A text run's batch file, read as the host reads it. */
function readBatch(file: string): { header: TextRolloutHeader; groups: TextGroup[] } {
  const contents = readRollout(file);
  assert.ok(contents.kind === 'text', `${file} is a text batch`);
  return contents;
}

/** What the page must show at step t of an episode file: read straight from the file. */
function expected(file: string, t: number): { obs: Record<string, number>; terms: Record<string, number>; terminated: boolean; truncated: boolean; reward: number } {
  const { header, steps } = readEpisode(file);
  const step = steps[t];
  return {
    obs: Object.fromEntries(header.obs_fields.map((f, i) => [f, step.obs[i]])),
    terms: Object.fromEntries(header.terms.map((name) => [name, step.terms![name]])),
    terminated: step.terminated,
    truncated: step.truncated,
    reward: step.reward,
  };
}

/** A string matched literally inside a RegExp. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function assertStep(s: InspectorSnapshot, file: string, t: number): void {
  const want = expected(file, t);
  assert.equal(s.t, t);
  assert.deepEqual(s.step!.obs, want.obs, `observation at step ${t}`);
  assert.deepEqual(s.step!.terms, want.terms, `reward terms at step ${t}`);
  assert.equal(s.step!.reward, want.reward);
  assert.equal(s.step!.terminated, want.terminated);
  assert.equal(s.step!.truncated, want.truncated);
}

describe('rollout inspector', { skip: chromiumMissing() }, () => {
  let browser: Browser;
  before(async () => {
    browser = await Browser.launch();
  });
  after(async () => {
    await browser?.close();
  });

  async function open(run: RunInfo, theme: 'light' | 'dark' = 'dark'): Promise<{ page: PageUnderTest; host: FakeHost }> {
    const host = new FakeHost([run]);
    const page = await browser.open('rollouts', { host: host.handle, theme });
    return { page, host };
  }

  test('a finished run opens on its final policy\'s episode; every episode is labelled by what it is', async () => {
    // A real run (a second of PPO on CartPole): the trainer records the episodes this page labels.
    const out = tempDir();
    const result = await train(makePlan({ experiment: 'Trained', budget: 2048, envs: 2, algorithmParams: { rollout_steps: 128 }, eval: { every: 1024, episodes: 2, deterministic: true } }), { out, rolloutEvery: 512 });
    const run = listRuns(out)[0];
    const episodes = listRollouts(run.dir);
    const final = episodes.at(-1)!;
    assert.equal(final.recorded, 'final');
    const finalSteps = readEpisode(final.file).steps.length;
    for (const theme of ['light', 'dark'] as const) {
      const { page } = await open(run, theme);
      const s = await page.waitFor<InspectorSnapshot>((s) => s.file === final.file && s.step !== null, 'the final policy\'s episode');
      assert.equal(s.steps, finalSteps);
      assert.equal(s.episodeLabels.length, episodes.length);
      const finalReturn = readEpisode(final.file).steps.reduce((sum, x) => sum + x.env_reward, 0);
      assert.equal(s.episodeLabels.at(-1), `final policy, return ${finalReturn} · ${finalSteps} steps`);
      assert.ok(s.episodeLabels.some((l) => /^eval at 1,024, return \d+ · \d+ steps$/.test(l)), s.episodeLabels.join('\n'));
      assert.match(s.episodeLabels[0], /^training at 0, return \d+ · \d+ steps$/);
      assert.equal(result.step, final.step);
      await page.screenshot('final-policy');
      assert.deepEqual(page.errors, []);
      await page.close();
    }
  });

  test('steps through a CartPole episode: observation, action, reward terms and done flags at each step', async () => {
    const run = fixtureRuns('Steady')[0];
    const episodes = listRollouts(run.dir);
    const latest = episodes[episodes.length - 1].file;
    const steps = readEpisode(latest).steps.length;
    const { page, host } = await open(run);
    let s = await page.waitFor<InspectorSnapshot>((s) => s.file === latest && s.step !== null, 'the latest episode');
    assert.deepEqual(
      host.received.map((m) => m.type),
      ['ready', 'openEpisode'],
    );
    assert.equal(s.steps, steps);
    assert.equal(s.env, 'CartPole');
    assert.equal(s.drawn, 'CartPole');
    assert.deepEqual(Object.keys(s.step!.obs), ['x', 'x_dot', 'theta', 'theta_dot']);
    assert.deepEqual(Object.keys(s.step!.terms), ['alive', 'centre', 'tilt']);
    assertStep(s, latest, 0);

    // Buttons, then keys on the timeline.
    await page.page.locator('#step-forward').click();
    s = await page.waitFor<InspectorSnapshot>((s) => s.t === 1, 'step 1');
    assertStep(s, latest, 1);
    await page.page.locator('.timeline').focus();
    await page.page.keyboard.press('ArrowRight');
    await page.page.keyboard.press('ArrowRight');
    s = await page.waitFor<InspectorSnapshot>((s) => s.t === 3, 'step 3');
    assertStep(s, latest, 3);
    await page.page.keyboard.press('ArrowLeft');
    s = await page.waitFor<InspectorSnapshot>((s) => s.t === 2, 'step 2');
    assertStep(s, latest, 2);
    const sums = readEpisode(latest).steps.slice(0, 3).reduce((sum, step) => sum + step.terms!.tilt, 0);
    assert.ok(Math.abs(s.step!.termSums.tilt - sums) < 1e-12, 'the tilt term summed over the first three steps');
    await page.page.keyboard.press('End');
    s = await page.waitFor<InspectorSnapshot>((s) => s.t === steps - 1, 'the last step');
    assertStep(s, latest, steps - 1);
    assert.ok(s.step!.terminated || s.step!.truncated, 'the episode ends at its last step');
    await page.page.keyboard.press('Home');
    await page.waitFor<InspectorSnapshot>((s) => s.t === 0, 'the first step');

    // The scrubber, and a click on the reward chart.
    await page.page.locator('#scrubber').fill('10');
    s = await page.waitFor<InspectorSnapshot>((s) => s.t === 10, 'step 10 by the scrubber');
    assertStep(s, latest, 10);
    const over = page.page.locator('.reward-chart .u-over');
    await over.scrollIntoViewIfNeeded();
    const box = (await over.boundingBox())!;
    await page.page.mouse.click(box.x + box.width * 0.5, box.y + box.height / 2);
    s = await page.waitFor<InspectorSnapshot>((s) => s.t !== 10, 'a seek by the reward chart');
    assert.ok(Math.abs(s.t - (steps - 1) / 2) <= 2, `the middle of the episode, got ${s.t} of ${steps}`);
    await page.screenshot('cartpole');

    // Play, then pause with Space; the position holds.
    await page.page.locator('#scrubber').fill('0');
    await page.page.locator('#play').click();
    await page.waitFor<InspectorSnapshot>((s) => s.playing && s.t > 3, 'playback');
    await page.page.locator('.timeline').focus();
    await page.page.keyboard.press(' ');
    s = await page.waitFor<InspectorSnapshot>((s) => !s.playing, 'the pause');
    const paused = s.t;
    await page.page.waitForTimeout(200);
    s = await page.snapshot<InspectorSnapshot>();
    assert.equal(s.t, paused, 'paused playback stays put');
    assertStep(s, latest, paused);

    // Another episode from the list; then the choice and the step survive a reload.
    const first = episodes[0].file;
    await page.page.locator('#episode-picker').click();
    await page.page.locator(`#episode-picker vscode-option[value="${first}"]`).click();
    s = await page.waitFor<InspectorSnapshot>((s) => s.file === first && s.step !== null, 'the first episode');
    assertStep(s, first, 0);
    await page.page.locator('#scrubber').fill('7');
    await page.waitFor<InspectorSnapshot>((s) => s.t === 7, 'step 7');
    await page.page.waitForTimeout(200);
    await page.reload();
    s = await page.waitFor<InspectorSnapshot>((s) => s.file === first && s.step !== null, 'the episode after the reload');
    assertStep(s, first, 7);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test("shows the env's own picture of each step when the episode has frames", async () => {
    // A copy of a fixture run with an episode recorded as `rlx eval --record` records an env
    // that renders (a Gymnasium env made with render_mode "rgb_array"): a frame per step, here
    // a square that moves right and turns from red to blue over the episode.
    const out = tempDir();
    const dir = path.join(out, 'Painted', '20261127-101500-seed1');
    fs.cpSync(fixtureRuns('Steady')[0]!.dir, dir, { recursive: true });
    fs.rmSync(path.join(dir, 'rollouts'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'rollouts'));
    let t = 0;
    const recorder = new RolloutRecorder(
      path.join(dir, 'rollouts'),
      { env: 'Paint', obsFields: ['cell'], actionSpace: { kind: 'discrete', n: 2 }, terms: [], frame: () => square(t) },
      () => {},
    );
    recorder.arm(4096, true, 'rlx-eval', true);
    for (; t < 12; t++) {
      recorder.beforeStep();
      recorder.transition({ obs: new Float32Array([t]), action: [1], reward: 1, envReward: 1, terms: null, terminated: t === 11, truncated: false });
    }
    const run = listRuns(out)[0]!;
    const file = listRollouts(run.dir).find((e) => e.recorded === 'rlx-eval')!.file;
    // The editor's host answers a frame some time after the page asks (over a second in
    // code-server): until the first arrives the page shows no broken image with its alt text.
    const host = new FakeHost([run]);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const page = await browser.open('rollouts', { host: async (m, p) => (m.type === 'openFrame' ? void released.then(() => host.handle(m, p)) : host.handle(m, p)), theme: 'dark' });
    await page.waitFor<InspectorSnapshot>((s) => s.file === file && s.step !== null, 'the episode, its frames not yet sent');
    assert.equal(await page.page.locator('.env-frame img').isVisible(), false, 'no picture yet, and no broken one');
    release();
    let s = await page.waitFor<InspectorSnapshot>((s) => s.file === file && s.frame === 'episode-4096-rlx-eval.frames/0.png', 'the first frame');
    assert.equal(s.drawn, null, 'the picture, not a drawing');
    assert.equal(s.episodeLabels.at(-1), 'rlx eval of the policy at 4,096 (episode-4096-rlx-eval.jsonl)');
    const image = page.page.locator('.env-frame img');
    assert.equal(await image.isVisible(), true);
    assert.equal(await image.getAttribute('src'), pngDataUrl(dir, 'episode-4096-rlx-eval.frames/0.png'));
    await page.page.locator('#scrubber').fill('7');
    s = await page.waitFor<InspectorSnapshot>((s) => s.t === 7 && s.frame === 'episode-4096-rlx-eval.frames/7.png', 'the frame of step 7');
    assert.equal(await image.getAttribute('src'), pngDataUrl(dir, 'episode-4096-rlx-eval.frames/7.png'));
    assert.deepEqual(await image.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]), [120, 60], 'the browser decoded the PNG');
    await page.screenshot('frames');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('draws each built-in env the runs recorded, in light and dark', async () => {
    const cases: [string, string, string[]][] = [
      ['SwingUp', 'Pendulum', ['cos_theta', 'sin_theta', 'theta_dot']],
      ['Climb', 'MountainCar', ['position', 'velocity']],
      ['Links', 'Acrobot', ['cos_theta1', 'sin_theta1', 'cos_theta2', 'sin_theta2', 'dtheta1', 'dtheta2']],
      ['Reach', 'GridWorld', ['x', 'y', 'goal_x', 'goal_y']],
    ];
    for (const [experiment, env, fields] of cases) {
      const run = fixtureRuns(experiment)[0];
      for (const theme of ['light', 'dark'] as const) {
        const { page } = await open(run, theme);
        let s = await page.waitFor<InspectorSnapshot>((s) => s.step !== null, `the ${env} episode`);
        assert.equal(s.drawn, env);
        assert.deepEqual(Object.keys(s.step!.obs), fields);
        await page.page.locator('#scrubber').fill(String(Math.floor(s.steps / 2)));
        s = await page.waitFor<InspectorSnapshot>((s) => s.t === Math.floor(s.steps / 2), 'the middle step');
        assertStep(s, s.file!, s.t);
        await page.screenshot(env);
        assert.deepEqual(page.errors, []);
        await page.close();
      }
    }
  });

  test('a run without a rollouts folder says so, and asks for nothing', async () => {
    const { page, host } = await open(fixtureRuns('NoRollouts')[0], 'light');
    const s = await page.waitFor<InspectorSnapshot>((s) => s.notice.startsWith('No recorded episodes'), 'the notice');
    assert.match(s.notice, /has no rollouts folder/);
    assert.equal(s.episodes.length, 0);
    assert.deepEqual(
      host.received.map((m) => m.type),
      ['ready'],
    );
    assert.equal(await page.page.locator('.inspector').isHidden(), true);
    await page.screenshot('no-rollouts');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a live run before its first recorded episode ended', async () => {
    const page = await browser.open('rollouts', {
      host: async (m, p) => {
        if (m.type !== 'ready') return;
        await p.post({ type: 'runs', runs: [{ id: 'Steady/live', experiment: 'Steady', runId: 'live', state: 'running' }] });
        await p.post({ type: 'rollouts', runId: 'Steady/live', episodes: [] });
      },
    });
    const s = await page.waitFor<InspectorSnapshot>((s) => s.notice.startsWith('No recorded episodes yet'), 'the notice');
    assert.match(s.notice, /writes it when that episode ends/);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  /** Waits for the batch `file` with group `group` selected, and checks the rows against the file. */
  async function assertGroup(page: PageUnderTest, file: string, group: number): Promise<InspectorSnapshot> {
    const s = await page.waitFor<InspectorSnapshot>((s) => s.file === file && s.text?.selected === group, `group ${group} of ${path.basename(file)}`);
    const { header, groups } = readBatch(file);
    const samples = groups[group].samples;
    assert.equal(s.text!.rows.length, samples.length);
    for (const row of s.text!.rows) {
      const sample = samples[row.index - 1];
      assert.equal(row.text, sample.text);
      assert.deepEqual(row.turns, sample.turns);
      assert.equal(row.reward, sample.reward);
      assert.equal(row.advantage, sample.advantage ?? null);
      assert.deepEqual(row.terms, Object.fromEntries(header.terms.map((t) => [t, sample.terms![t]])));
      assert.equal(row.verdict, sample.correct !== undefined ? (sample.correct ? 'correct' : 'wrong') : sample.success ? 'success' : 'failed');
    }
    const advantages = s.text!.rows.map((r) => r.advantage!);
    assert.deepEqual(advantages, [...advantages].sort((a, b) => b - a), 'highest advantage first');
    // What a user reads in the table, row by row, in the order shown.
    const shown = await page.page.locator('table.samples tbody tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));
    assert.equal(shown.length, samples.length);
    shown.forEach((cells, i) => {
      const row = s.text!.rows[i];
      assert.equal(cells[0], String(row.index));
      const advantage = cells[cells.length - 2]!;
      assert.match(advantage, row.advantage! > 0 ? /^\+/ : row.advantage! < 0 ? /^−/ : /^0$/, 'the advantage carries its sign');
      assert.equal(cells[cells.length - 1], { correct: '✓ correct', wrong: '✗ wrong', success: '✓ success', failed: '✗ failed' }[row.verdict]);
    });
    return s;
  }

  test('a text run: each prompt’s completions with their reward terms, signed advantages and verdicts', async () => {
    const run = fixtureRuns('Sums')[0];
    const episodes = listRollouts(run.dir);
    const batches = episodes.filter((e) => e.recorded === 'train');
    const latest = batches[batches.length - 1].file;
    const final = episodes[episodes.length - 1].file;
    const { page, host } = await open(run);
    // The run opens on its final policy's answers (the next test); the latest batch is a pick away.
    await page.waitFor<InspectorSnapshot>((s) => s.file === final && s.text !== null, 'the final answers');
    await page.page.locator('#episode-picker').click();
    await page.page.locator(`#episode-picker vscode-option[value="${latest}"]`).click();
    let s = await assertGroup(page, latest, 0);
    assert.equal(s.kind, 'text');
    assert.equal(s.env, 'TextTask');
    assert.equal(s.drawn, null);
    assert.equal(await page.page.locator('.timeline').isHidden(), true, 'no timeline for a batch');
    assert.equal(await page.page.locator('.reward-chart').isHidden(), true);
    assert.deepEqual(s.text!.groups, readBatch(latest).groups.map((g) => ({ start: g.start, target: g.target })));
    assert.deepEqual(
      await page.page.locator('table.samples thead th').allTextContents(),
      ['#', 'completion', 'reward', 'term: answer', 'term: format', 'advantage', 'verdict'],
    );
    assert.match((await page.page.locator('.group-title').textContent()) ?? '', new RegExp(`^Prompt ${escape(readBatch(latest).groups[0].start)} · target \\d+$`));

    // The picker: the step, the algorithm and the batch's mean reward (from the run's rollout events).
    const notes = eventsOf(run).filter((e) => e.type === 'rollout');
    assert.deepEqual(
      s.episodeLabels.slice(0, -1),
      batches.map((e) => {
        const note = notes.find((n) => n.type === 'rollout' && n.step === e.step)!;
        return `step ${e.step.toLocaleString('en-US')} · GRPO · mean reward ${Number((note as { return: number }).return.toPrecision(4))}`;
      }),
    );
    assert.match(s.episodeLabels[0], /^step 1,920 · GRPO · mean reward 0\.\d+$/);

    // Keyboard: the list of prompts takes arrows, Home and End; a click picks too.
    await page.page.locator('#group-list').focus();
    await page.page.keyboard.press('ArrowDown');
    await assertGroup(page, latest, 1);
    await page.page.keyboard.press('End');
    const last = readBatch(latest).groups.length - 1;
    await assertGroup(page, latest, last);
    await page.page.keyboard.press('Home');
    await assertGroup(page, latest, 0);
    await page.page.locator('#group-1').click();
    await assertGroup(page, latest, 1);
    await page.screenshot('text');

    // The first batch, then the choice of batch and group survives a reload.
    const first = episodes[0].file;
    await page.page.locator('#episode-picker').click();
    await page.page.locator(`#episode-picker vscode-option[value="${first}"]`).click();
    await assertGroup(page, first, 0);
    await page.page.locator('#group-list').focus();
    await page.page.keyboard.press('ArrowDown');
    await assertGroup(page, first, 1);
    await page.page.waitForTimeout(200);
    await page.reload();
    s = await assertGroup(page, first, 1);
    assert.deepEqual(
      host.received.filter((m) => m.type === 'openEpisode').map((m) => (m as { file: string }).file),
      [final, latest, first, first],
    );
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a text batch in the light theme, and a completion that reads as markup stays text', async () => {
    const run = fixtureRuns('Sums')[0];
    const episodes = listRollouts(run.dir);
    const file = episodes.at(-1)!.file;
    const batch = readBatch(file);
    const markup = '<script>window.injected = 1</script><img src=x onerror="window.injected = 2">';
    // The real batch, one completion replaced: the page must show it as the characters it is.
    batch.groups[0].samples[0].text = markup;
    const host = new FakeHost([run]);
    const page = await browser.open('rollouts', {
      theme: 'light',
      host: async (m, p) => {
        if (m.type === 'openEpisode' && m.file === file) await p.post({ type: 'episode', runId: m.runId, file: m.file, kind: 'text', header: batch.header, groups: batch.groups, skipped: 0 });
        else await host.handle(m, p);
      },
    });
    const s = await page.waitFor<InspectorSnapshot>((s) => s.text?.rows.some((r) => r.text === markup) === true, 'the batch with markup');
    const row = s.text!.rows.find((r) => r.text === markup)!;
    const cell = page.page.locator(`tr[data-sample="${row.index}"] td.sample`);
    assert.equal(await cell.textContent(), markup);
    assert.equal(await cell.locator('script, img').count(), 0, 'no element made from the completion');
    assert.equal(await page.page.evaluate(() => (window as { injected?: number }).injected), undefined);
    await page.screenshot('text');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a dialogue run: each sample’s dialogue turn by turn, each message with its role (the env as user, the agent as assistant), with its verdict', async () => {
    const run = fixtureRuns('Guesses')[0];
    const episodes = listRollouts(run.dir);
    const { page } = await open(run);
    await page.waitFor<InspectorSnapshot>((s) => s.file === episodes.at(-1)!.file && s.text !== null, 'the final answers');
    // The first batch: sampled before training, some dialogues found the number and some did not.
    const first = episodes[0].file;
    await page.page.locator('#episode-picker').click();
    await page.page.locator(`#episode-picker vscode-option[value="${first}"]`).click();
    const s = await assertGroup(page, first, 0);
    assert.equal(s.env, 'GuessNumber');
    const { groups } = readBatch(first);
    assert.ok(s.text!.rows.some((r) => r.verdict === 'success') && s.text!.rows.some((r) => r.verdict === 'failed'), 'the fixture batch has both verdicts');
    assert.deepEqual(s.text!.groups, [{ start: '1..8', target: undefined }]);
    assert.deepEqual(await page.page.locator('table.samples thead th').allTextContents(), ['#', 'dialogue', 'reward', 'advantage', 'verdict']);
    assert.equal(await page.page.locator('.group-title').textContent(), 'Opening 1..8');
    for (const row of s.text!.rows) {
      const turns = page.page.locator(`tr[data-sample="${row.index}"] .dialogue li`);
      const sample = groups[0].samples[row.index - 1];
      assert.deepEqual(sample.turns![0], ['user', '1..8'], 'the dialogue from its opening, the user\'s');
      assert.deepEqual(sample.turns!.map(([role]) => role), sample.turns!.map((_, i) => (i % 2 === 0 ? 'user' : 'assistant')));
      assert.equal(await turns.count(), sample.turns!.length);
      for (const [i, [who, said]] of sample.turns!.entries()) {
        const turn = turns.nth(i);
        assert.equal(await turn.getAttribute('class'), `turn ${who}`);
        assert.equal(await turn.locator('.speaker').textContent(), who);
        assert.equal((await turn.textContent())!.slice(who.length), said === '' ? '(empty)' : said);
      }
    }
    assert.match(s.episodeLabels[0], /^step 0 · REINFORCE · mean reward [\d.]+$/);
    await page.screenshot('dialogue');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a finished text run opens on its final policy\'s held-out answers, the wrong ones listed first', async () => {
    const run = fixtureRuns('Sums')[0];
    const final = listRollouts(run.dir).at(-1)!;
    assert.equal(final.recorded, 'final', 'the trainer wrote the final answers');
    const { header, groups } = readBatch(final.file);
    const wrong = groups.flatMap((g, i) => (g.samples[0].correct ? [] : [i]));
    const right = groups.flatMap((g, i) => (g.samples[0].correct ? [i] : []));
    assert.ok(wrong.length > 0 && right.length > 0, 'the fixture policy gets some held-out prompts wrong');
    const { page } = await open(run);
    const s = await page.waitFor<InspectorSnapshot>((s) => s.file === final.file && s.text !== null, 'the final answers');
    const lastEval = eventsOf(run).filter((e) => e.type === 'eval').at(-1)!;
    assert.equal(s.text!.recorded, 'final');
    assert.equal(s.episodeLabels.at(-1), `final policy · held-out accuracy ${(100 * lastEval.values['eval/accuracy']).toFixed(1)}% · ${groups.length} prompts`);
    assert.deepEqual(s.text!.listed, [...wrong, ...right], 'the prompts it got wrong first');
    assert.equal(await page.page.locator('nav.groups h3').textContent(), 'Held-out prompts');
    assert.equal(
      await page.page.locator('.batch-summary').textContent(),
      `TextTask ${header.task} · final policy, greedy (GRPO, stage main, step ${header.step.toLocaleString('en-US')}) · ${groups.length} held-out prompts: ` +
        `${right.length} correct (${((100 * right.length) / groups.length).toFixed(1)}%), ${wrong.length} wrong, listed first · mean reward ${Number((groups.reduce((a, g) => a + g.samples[0].reward, 0) / groups.length).toPrecision(4))}`,
    );
    // The first one listed is selected: one greedy completion, its verdict, and no advantage (nothing trained on it).
    await assertHeldOut(page, final.file, wrong[0]);
    assert.deepEqual(await page.page.locator('table.samples thead th').allTextContents(), ['#', 'completion', 'reward', 'term: answer', 'term: format', 'verdict']);
    const item = page.page.locator(`#group-${wrong[0]} .group-summary`);
    assert.match((await item.textContent()) ?? '', new RegExp(`^✗ wrong: ${escape(groups[wrong[0]].samples[0].text!)} · reward `));
    // The keyboard walks the list as shown.
    await page.page.locator('#group-list').focus();
    await page.page.keyboard.press('End');
    await assertHeldOut(page, final.file, right.at(-1)!);
    await page.page.keyboard.press('Home');
    await assertHeldOut(page, final.file, wrong[0]);
    await page.screenshot('held-out');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('held-out dialogues open on the first one the policy failed, numbered (their openings are alike)', async () => {
    const run = fixtureRuns('Guesses')[0];
    const final = listRollouts(run.dir).at(-1)!;
    const { groups } = readBatch(final.file);
    const failed = groups.findIndex((g) => g.samples[0].success === false);
    assert.ok(failed > 0, 'the fixture policy fails a dialogue after the first');
    const { page } = await open(run);
    const s = await page.waitFor<InspectorSnapshot>((s) => s.file === final.file && s.text !== null, 'the final answers');
    assert.equal(s.text!.selected, failed, 'the first one listed, not the first in the file');
    assert.equal(s.text!.listed[0], failed);
    assert.equal(await page.page.locator(`#group-${failed} .group-index`).textContent(), `#${failed + 1} `);
    assert.equal(await page.page.locator('nav.groups h3').textContent(), 'Held-out dialogues');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  async function assertHeldOut(page: PageUnderTest, file: string, group: number): Promise<void> {
    const s = await page.waitFor<InspectorSnapshot>((s) => s.file === file && s.text?.selected === group, `held-out group ${group}`);
    const sample = readBatch(file).groups[group].samples[0];
    assert.deepEqual(s.text!.rows.map((r) => [r.text, r.reward, r.advantage, r.verdict]), [[sample.text, sample.reward, null, sample.correct ? 'correct' : 'wrong']]);
  }

  test('a live text run in its SFT warm-up: no batch yet, and the notice says when batches come', async () => {
    const plan = snapshotOf(fixtureRuns('Sums')[0]).plan;
    const page = await browser.open('rollouts', {
      host: async (m, p) => {
        if (m.type !== 'ready') return;
        await p.post({ type: 'runs', runs: [{ id: 'Sums/live', experiment: 'Sums', runId: 'live', state: 'running', plan }] });
        await p.post({ type: 'rollouts', runId: 'Sums/live', episodes: [] });
      },
    });
    const s = await page.waitFor<InspectorSnapshot>((s) => s.notice.startsWith('No recorded batches yet'), 'the notice');
    assert.match(s.notice, /an SFT stage records none/);
    assert.match((await page.page.locator('h1').textContent()) ?? '', /^Recorded batches: Sums/);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('the episode files are the ones the host listed (no path is made up by the page)', async () => {
    const run = fixtureRuns('Crashed')[0];
    const { page, host } = await open(run);
    await page.waitFor<InspectorSnapshot>((s) => s.step !== null, 'the episode');
    const asked = host.received.filter((m) => m.type === 'openEpisode').map((m) => (m as { file: string }).file);
    assert.deepEqual(asked, [path.join(run.dir, 'rollouts', 'episode-0.jsonl')]);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
});

/** A 120 x 60 picture: a square at column 8t, red at t = 0 turning blue. */
function square(t: number): { width: number; height: number; channels: 3; pixels: Uint8Array } {
  const width = 120;
  const height = 60;
  const pixels = new Uint8Array(width * height * 3).fill(235);
  for (let y = 20; y < 40; y++) {
    for (let x = 8 * t; x < 8 * t + 20; x++) pixels.set([255 - 20 * t, 40, 20 * t], (y * width + x) * 3);
  }
  return { width, height, channels: 3, pixels };
}

function pngDataUrl(runDir: string, frame: string): string {
  return `data:image/png;base64,${fs.readFileSync(path.join(runDir, 'rollouts', frame)).toString('base64')}`;
}
