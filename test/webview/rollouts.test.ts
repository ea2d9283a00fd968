// The rollout inspector in headless Chromium: recorded episodes of the fixture runs, stepped
// through by mouse and keyboard, checked against the episode files themselves.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { listRollouts, readRollout, type RunInfo } from '../../runtime/run/reader.js';
import { FakeHost, fixtureRuns } from './fake-host.js';
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
  text?: { prompt?: string; completion?: string; target?: string };
}

interface InspectorSnapshot {
  runId?: string;
  episodes: string[];
  file?: string;
  loading: string | null;
  env?: string;
  steps: number;
  t: number;
  playing: boolean;
  speed: number;
  notice: string;
  drawn: string | null;
  step: StepFacts | null;
}

/** What the page must show at step t of an episode file: read straight from the file. */
function expected(file: string, t: number): { obs: Record<string, number>; terms: Record<string, number>; terminated: boolean; truncated: boolean; reward: number } {
  const { header, steps } = readRollout(file);
  const step = steps[t];
  return {
    obs: Object.fromEntries(header!.obs_fields.map((f, i) => [f, step.obs[i]])),
    terms: Object.fromEntries(header!.terms.map((name) => [name, step.terms![name]])),
    terminated: step.terminated,
    truncated: step.truncated,
    reward: step.reward,
  };
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

  test('steps through a CartPole episode: observation, action, reward terms and done flags at each step', async () => {
    const run = fixtureRuns('Steady')[0];
    const episodes = listRollouts(run.dir);
    const latest = episodes[episodes.length - 1].file;
    const steps = readRollout(latest).steps.length;
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
    const sums = readRollout(latest).steps.slice(0, 3).reduce((sum, step) => sum + step.terms!.tilt, 0);
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

  test('a text task shows prompt, completion and the verifiers’ verdicts', async () => {
    const run = fixtureRuns('Sums')[0];
    const { page } = await open(run);
    let s = await page.waitFor<InspectorSnapshot>((s) => s.step !== null, 'the text episode');
    assert.equal(s.env, 'TextTask');
    assert.equal(s.drawn, null);
    assert.deepEqual(s.step!.text, { prompt: '37+45=', completion: '82', target: '82' });
    assert.deepEqual(s.step!.terms, { answer: 1, format: 0.1 });
    assert.equal(await page.page.locator('pre.completion').textContent(), '82');
    await page.page.locator('#step-forward').click();
    s = await page.waitFor<InspectorSnapshot>((s) => s.t === 1, 'the second turn');
    assert.deepEqual(s.step!.terms, { answer: 0, format: 0.1 });
    assert.match((await page.page.locator('[data-table="rewards"]').textContent()) ?? '', /answer ✗/);
    await page.screenshot('text');
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
