// The host side of the panels' protocol, against a run directory that grows as a trainer's does.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { feedRun, RunFeed, type SnapshotOptions } from '../../../extension/panels/run-feed.js';
import type { HostMessage } from '../../../webview/protocol.js';
import { RunModel } from '../../../webview/shared/run-model.js';
import { Runs } from '../../../webview/shared/runs.js';
import { inChild, makeFifo, makeLink } from '../../helpers/hostile-files.js';

/** What a snapshot posts, in order, once it has read everything. */
async function snapshot(feed: RunFeed, options?: SnapshotOptions): Promise<HostMessage[]> {
  const posted: HostMessage[] = [];
  await feed.snapshot((m) => posted.push(m), options);
  return posted;
}

function runDir(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-feed-'));
  const dir = path.join(root, 'runs', 'Balance', '20261121-101010-seed1');
  fs.mkdirSync(path.join(dir, 'rollouts'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'plan.json'), JSON.stringify({ rlx_plan: 1, experiment: 'Balance' }));
  status(dir, 'running', 0);
  fs.writeFileSync(path.join(dir, 'events.jsonl'), '{"type":"status","step":0,"time":1,"status":"running","pid":1}\n');
  return dir;
}

function status(dir: string, state: string, step: number): void {
  const s = { status: state, pid: process.pid, experiment: 'Balance', seed: 1, started: '2026-11-21T10:10:10Z', updated: '2026-11-21T10:10:10Z', step, budget: 1000, metrics: {} };
  fs.writeFileSync(path.join(dir, 'status.json'), JSON.stringify(s));
}

test('a snapshot, then only what changed: events, status, rollouts', async () => {
  const dir = runDir();
  const run = feedRun(dir);
  assert.equal(run.id, 'Balance/20261121-101010-seed1');
  const feed = new RunFeed([run]);
  const first = await snapshot(feed);
  assert.deepEqual(first.map((m) => m.type), ['runs', 'events', 'rollouts']);
  const runs = first[0];
  assert.ok(runs.type === 'runs' && runs.runs[0].state === 'running' && (runs.runs[0].plan as { experiment: string }).experiment === 'Balance');
  assert.ok(first[1].type === 'events' && first[1].reset === true && first[1].events.length === 1);
  assert.deepEqual(feed.poll(), [], 'nothing new');
  assert.equal(feed.live, true, 'a training run: the panel looks more often');

  // A line written in two parts is sent once it is whole.
  fs.appendFileSync(path.join(dir, 'events.jsonl'), '{"type":"metrics","step":128,"time":2,"values":{"train/mean_return":21}}\n{"type":"metr');
  const second = feed.poll();
  assert.equal(second.length, 1);
  assert.ok(second[0].type === 'columns' && second[0].keep === 0 && Array.from(second[0].steps).join() === '128' && second[0].columns['train/mean_return'][0] === 21);
  fs.appendFileSync(path.join(dir, 'events.jsonl'), 'ics","step":256,"time":3,"values":{}}\n{"type":"log","step":256,"time":3,"level":"info","message":"done"}\n');
  status(dir, 'finished', 256);
  fs.writeFileSync(path.join(dir, 'rollouts', 'episode-0.jsonl'), '{"type":"header","env":"CartPole","obs_fields":["x"],"action":{"kind":"discrete","n":2},"terms":[],"step":0}\n{"type":"step","t":0,"obs":[0.1],"action":1,"reward":1,"env_reward":1,"terminated":false,"truncated":false}\n');
  const third = feed.poll();
  assert.deepEqual(third.map((m) => m.type), ['events', 'status', 'rollouts']);
  assert.ok(third[0].type === 'events' && third[0].events.length === 1 && !third[0].reset, 'the log; the update without values adds no point');
  assert.ok(third[1].type === 'status' && third[1].state === 'finished');
  assert.equal(feed.live, false, 'nothing trains any more');
});

test('episodes and files only from inside the run', () => {
  const dir = runDir();
  fs.writeFileSync(path.join(dir, 'rollouts', 'episode-512.jsonl'), '{"type":"header","env":"CartPole","obs_fields":["x"],"action":{"kind":"discrete","n":2},"terms":[],"step":512}\n{"type":"step","t":0,"obs":[0],"action":0,"reward":1,"env_reward":1,"terminated":true,"truncated":false}\nnot json\n');
  const feed = new RunFeed([feedRun(dir)]);
  const id = 'Balance/20261121-101010-seed1';
  const episode = feed.episode(id, path.join(dir, 'rollouts', 'episode-512.jsonl'));
  assert.ok(episode?.type === 'episode' && episode.kind === 'episode' && episode.steps.length === 1 && episode.skipped === 1 && episode.header?.env === 'CartPole');
  assert.ok(feed.episode(id, 'rollouts/episode-512.jsonl'), 'relative to the run');
  assert.equal(feed.episode(id, path.join(dir, 'plan.json')), undefined, 'not an episode');
  assert.equal(feed.episode('Other/run', 'rollouts/episode-512.jsonl'), undefined);
  assert.equal(feed.resolveFile(id, 'plan.json'), path.join(dir, 'plan.json'));
  assert.equal(feed.resolveFile(id, '../../../../etc/passwd'), undefined);
  assert.equal(feed.resolveFile(id, 'missing.json'), undefined);
});

test("a recorded step's frame as a data URL, only the episode's own and only from inside the run", () => {
  const dir = runDir();
  const rollouts = path.join(dir, 'rollouts');
  fs.writeFileSync(path.join(rollouts, 'episode-512.jsonl'), '{"type":"header","env":"Paint","obs_fields":["x"],"action":{"kind":"discrete","n":2},"terms":[],"step":512}\n');
  fs.mkdirSync(path.join(rollouts, 'episode-512.frames'));
  const png = Buffer.from('89504e470d0a1a0a', 'hex');
  fs.writeFileSync(path.join(rollouts, 'episode-512.frames', '0.png'), png);
  fs.writeFileSync(path.join(dir, 'secret.png'), png);
  makeLink(path.join(rollouts, 'episode-512.frames', '1.png'), '/etc/passwd');
  const feed = new RunFeed([feedRun(dir)]);
  const id = 'Balance/20261121-101010-seed1';
  const file = 'rollouts/episode-512.jsonl';
  assert.deepEqual(feed.frame(id, file, 'episode-512.frames/0.png'), { type: 'frame', runId: id, file, frame: 'episode-512.frames/0.png', data: `data:image/png;base64,${png.toString('base64')}` });
  const refused = (frame: string) => {
    const message = feed.frame(id, file, frame);
    assert.ok(message?.type === 'frame' && message.data === undefined && typeof message.problem === 'string', `${frame}: ${JSON.stringify(message)}`);
    return message.problem!;
  };
  assert.match(refused('../secret.png'), /is not a frame of the recorded episode/);
  assert.match(refused('episode-0.frames/0.png'), /is not a frame of the recorded episode/);
  assert.match(refused('episode-512.frames/../../secret.png'), /is not a frame of the recorded episode/);
  assert.match(refused('episode-512.frames/1.png'), /symbolic link out of the run folder/);
  assert.match(refused('episode-512.frames/2.png'), /cannot read the recorded frame/);
  assert.equal(feed.frame(id, 'plan.json', 'episode-512.frames/0.png'), undefined, 'not an episode of the run');
  assert.deepEqual(feed.takeProblems(), [], 'a frame that cannot be read is said in its place, not in a popup per frame');
});

test('a run without a rollouts folder says so', async () => {
  const dir = runDir();
  fs.rmSync(path.join(dir, 'rollouts'), { recursive: true });
  const rollouts = (await snapshot(new RunFeed([feedRun(dir)]))).find((m) => m.type === 'rollouts');
  assert.ok(rollouts?.type === 'rollouts' && rollouts.missing === true);
});

test('a long history reaches the page as columns after one reset events message', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-feed-long-'));
  try {
    const dir = path.join(root, 'Big', '20261121-000000-seed1');
    fs.mkdirSync(dir, { recursive: true });
    const lines: string[] = [];
    for (let i = 1; i <= 5000; i++) lines.push(JSON.stringify({ type: 'metrics', step: i * 512, time: i, values: { 'charts/sps': i } }));
    fs.writeFileSync(path.join(dir, 'events.jsonl'), lines.join('\n') + '\n');
    fs.writeFileSync(path.join(dir, 'status.json'), JSON.stringify({ status: 'finished', pid: 1, experiment: 'Big', seed: 1, step: 5000 * 512, budget: 1, metrics: {} }));
    const feed = new RunFeed([feedRun(dir)]);
    const messages = (await snapshot(feed)).filter((m) => m.type === 'events' || m.type === 'columns');
    assert.deepEqual(messages.map((m) => [m.type, m.type === 'events' ? m.reset : undefined]), [['events', true], ['columns', undefined]]);
    const columns = messages[1] as Extract<typeof messages[number], { type: 'columns' }>;
    assert.ok(columns.steps.length <= 4096, `${columns.steps.length} rows: each series within its budget`);
    assert.equal(columns.steps.at(-1), 5000 * 512);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a run whose files cannot be read is reported once, and the other runs are shown', async () => {
  const good = runDir();
  const bad = runDir();
  // An events.jsonl that is a folder: refused, as a file without permission would be.
  fs.rmSync(path.join(bad, 'events.jsonl'));
  fs.mkdirSync(path.join(bad, 'events.jsonl'));
  const feed = new RunFeed([feedRun(bad), feedRun(good)]);
  const first = await snapshot(feed);
  assert.ok(first[0].type === 'runs' && first[0].runs.length === 2, 'both runs are listed');
  const events = first.filter((m) => m.type === 'events');
  assert.equal(events.length, 1);
  assert.ok(events[0].type === 'events' && events[0].events.length === 1, "the readable run's events");
  const [problem, ...more] = feed.takeProblems();
  assert.match(problem ?? '', /^run Balance\/20261121-101010-seed1: the run's events \(events\.jsonl\) .*events\.jsonl is a folder, not a file$/);
  assert.deepEqual(more, []);
  // The same problem is not said again at every poll, nor at the next page load.
  assert.deepEqual(feed.poll(), []);
  await snapshot(feed);
  assert.deepEqual(feed.takeProblems(), []);
  // Once readable, its events come, and a later breakage is reported again.
  fs.rmdirSync(path.join(bad, 'events.jsonl'));
  fs.writeFileSync(path.join(bad, 'events.jsonl'), '{"type":"status","step":0,"time":1,"status":"running","pid":1}\n');
  assert.ok(feed.poll().some((m) => m.type === 'events'));
  fs.rmSync(path.join(bad, 'events.jsonl'));
  fs.mkdirSync(path.join(bad, 'events.jsonl'));
  fs.appendFileSync(path.join(good, 'events.jsonl'), '');
  feed.poll();
  assert.equal(feed.takeProblems().length, 1);
});

test("a stranger's run folder: a FIFO, a link to /dev/zero or out of the run is refused at once and said, the other runs shown", () => {
  const good = runDir();
  const hostile = runDir();
  fs.rmSync(path.join(hostile, 'events.jsonl'));
  makeFifo(path.join(hostile, 'events.jsonl'));
  fs.rmSync(path.join(hostile, 'status.json'));
  makeLink(path.join(hostile, 'status.json'), '/dev/zero');
  fs.rmSync(path.join(hostile, 'plan.json'));
  makeLink(path.join(hostile, 'plan.json'), path.join(good, 'plan.json'));
  makeLink(path.join(hostile, 'rollouts', 'episode-1.jsonl'), '/dev/zero');
  makeFifo(path.join(hostile, 'rollouts', 'episode-2.jsonl'));
  const { value, ms, stderr } = inChild(`
    const { RunFeed, feedRun } = await import(out + '/extension/panels/run-feed.js');
    const feed = new RunFeed([feedRun(arg.hostile), feedRun(arg.good)]);
    const snapshot = [];
    await feed.snapshot((m) => snapshot.push(m));
    const polled = feed.poll();
    const id = feedRun(arg.hostile).id;
    const episodes = [feed.episode(id, 'rollouts/episode-1.jsonl'), feed.episode(id, 'rollouts/episode-2.jsonl')];
    return {
      runs: snapshot[0].runs.map((r) => [r.state, r.plan === undefined, r.status === undefined]),
      events: snapshot.filter((m) => m.type === 'events').length, polled: polled.length,
      episodes, problems: feed.takeProblems(),
      opened: [feed.resolveFile(id, 'events.jsonl'), feed.resolveFile(id, 'status.json'), feed.resolveFile(id, 'plan.json')],
    };`, { hostile, good }, 15_000);
  assert.ok(value !== undefined, `the feed did not answer within 15 s (${ms} ms): ${stderr}`);
  const v = value as { runs: [string, boolean, boolean][]; events: number; polled: number; episodes: unknown[]; problems: string[]; opened: unknown[] };
  assert.deepEqual(v.runs, [['unknown', true, true], ['running', false, false]], "the hostile run's status and plan are not read; the good run is whole");
  assert.equal(v.events, 1, "the good run's events");
  assert.deepEqual(v.episodes, [null, null]);
  assert.equal(v.problems.length, 3, v.problems.join('\n'));
  assert.match(v.problems[0], /events\.jsonl is not a regular file/);
  assert.match(v.problems[1], /episode-1\.jsonl is a symbolic link out of the run folder/);
  assert.match(v.problems[2], /episode-2\.jsonl is not a regular file/);
  assert.deepEqual(v.opened, [null, null, null], 'the page cannot have them opened in the editor either');
});

/** A run folder whose events.jsonl holds `updates` updates of a few metrics (about 200 bytes each). */
function longRun(updates: number, state = 'finished'): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-feed-long-'));
  const dir = path.join(root, 'Long', '20261121-000000-seed1');
  fs.mkdirSync(dir, { recursive: true });
  const fd = fs.openSync(path.join(dir, 'events.jsonl'), 'w');
  fs.writeSync(fd, '{"type":"status","step":0,"time":1795000000,"status":"running","pid":1}\n');
  const lines: string[] = [];
  for (let i = 1; i <= updates; i++) {
    const spike = i === Math.floor(updates / 3) ? 1000 : 0;
    lines.push(JSON.stringify({ type: 'metrics', step: i * 512, time: 1_795_000_000 + i, values: { 'losses/value_loss': Math.sin(i / 100) + spike, 'charts/sps': 2000 + (i % 17), 'charts/episodes': 2 } }));
    if (lines.length === 10_000) fs.writeSync(fd, lines.splice(0).join('\n') + '\n');
  }
  if (lines.length > 0) fs.writeSync(fd, lines.join('\n') + '\n');
  fs.closeSync(fd);
  fs.writeFileSync(path.join(dir, 'status.json'), JSON.stringify({ status: state, pid: process.pid, experiment: 'Long', seed: 1, step: updates * 512, budget: 1, metrics: {} }));
  return dir;
}

/** The page's model of the one run the messages are about, as the page builds it. */
function pageModel(messages: HostMessage[]): RunModel {
  const runs = new Runs();
  for (const m of messages) runs.apply(m);
  return runs.list()[0];
}

test('a long history: the host stays responsive while it is read, and the page gets each curve within its budget, spikes and the last update kept', async () => {
  const updates = 60_000;
  const dir = longRun(updates);
  try {
    const feed = new RunFeed([feedRun(dir)]);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    const progress: [number, number][] = [];
    const posted = await snapshot(feed, { budget: 512, onProgress: (read, total) => progress.push([read, total]) });
    clearInterval(ticker);
    assert.ok(ticks >= 3, `the event loop ran ${ticks} times while the history was read`);
    const size = fs.statSync(path.join(dir, 'events.jsonl')).size;
    assert.ok(progress.length >= 5, `${progress.length} progress reports`);
    assert.deepEqual(progress.at(-1), [size, size]);
    const run = pageModel(posted);
    const t = run.metrics;
    const points = (key: string) => Array.from(t.values(key)).filter(Number.isFinite);
    for (const key of ['losses/value_loss', 'charts/sps']) assert.ok(points(key).length <= 512, `${key}: ${points(key).length} points`);
    assert.equal(Math.max(...points('losses/value_loss')), Math.sin(Math.floor(updates / 3) / 100) + 1000, 'the spike');
    assert.equal(t.steps.get(t.length - 1), updates * 512, 'the last update');
    assert.equal(run.latestMetric('charts/sps'), 2000 + (updates % 17));
    assert.equal(run.trainingEpisodes(), 2 * updates, 'the header counts every update, not the points kept');
  } finally {
    fs.rmSync(path.dirname(path.dirname(dir)), { recursive: true, force: true });
  }
});

test('stopping the read shows what was read, and the run is followed from the end of its file', async () => {
  const dir = longRun(60_000, 'running');
  try {
    const feed = new RunFeed([feedRun(dir)]);
    const stop = new AbortController();
    const posted: HostMessage[] = [];
    const complete = await feed.snapshot((m) => posted.push(m), {
      signal: stop.signal,
      onProgress: (read, total) => {
        if (read > total / 4) stop.abort();
      },
    });
    assert.equal(complete, false);
    const run = pageModel(posted);
    const last = run.metrics.steps.get(run.metrics.length - 1);
    assert.ok(last > 0 && last < 30_000 * 512, `read up to step ${last}`);
    assert.ok(posted.some((m) => m.type === 'rollouts'), 'the run is shown whole otherwise');
    fs.appendFileSync(path.join(dir, 'events.jsonl'), JSON.stringify({ type: 'metrics', step: 70_000 * 512, time: 1_795_100_000, values: { 'charts/sps': 7 } }) + '\n');
    const next = feed.poll();
    for (const m of next) posted.push(m);
    const after = pageModel(posted);
    assert.equal(after.metrics.steps.get(after.metrics.length - 1), 70_000 * 512, 'what the run writes next is shown');
    assert.equal(after.latestMetric('charts/sps'), 7);
  } finally {
    fs.rmSync(path.dirname(path.dirname(dir)), { recursive: true, force: true });
  }
});

test('the live tail goes on from where the read stopped, into the same budget: the page holds what the host holds', async () => {
  const dir = runDir();
  const file = path.join(dir, 'events.jsonl');
  const feed = new RunFeed([feedRun(dir)]);
  const posted = await snapshot(feed, { budget: 16 });
  const values = (i: number) => ({ a: Math.sin(i * 0.7) * (i % 5), b: i });
  for (let i = 1; i <= 400; i++) {
    fs.appendFileSync(file, JSON.stringify({ type: 'metrics', step: i, time: i, values: values(i) }) + '\n');
    if (i % 7 === 0) posted.push(...feed.poll());
  }
  posted.push(...feed.poll());
  const page = pageModel(posted);
  const a = Array.from(page.metrics.values('a')).filter(Number.isFinite);
  assert.ok(a.length <= 16, `${a.length} points of a`);
  assert.equal(Math.max(...a), Math.max(...Array.from({ length: 400 }, (_, i) => values(i + 1).a)));
  assert.equal(page.latestMetric('b'), 400);
  // What the page holds is what a fresh read of the whole file gives.
  const fresh = pageModel(await snapshot(new RunFeed([feedRun(dir)]), { budget: 16 }));
  assert.deepEqual(Array.from(page.metrics.steps.values.subarray(0, page.metrics.length)), Array.from(fresh.metrics.steps.values.subarray(0, fresh.metrics.length)));
  for (const key of ['a', 'b']) assert.deepEqual(Array.from(page.metrics.values(key)), Array.from(fresh.metrics.values(key)), key);
});

test('a page that loads again while a long history is read: the first read stops, posts nothing more, and the second is whole', async () => {
  const dir = longRun(40_000);
  try {
    const feed = new RunFeed([feedRun(dir)]);
    const first: HostMessage[] = [];
    const second: HostMessage[] = [];
    let again: Promise<boolean> | undefined;
    const firstDone = feed.snapshot((m) => first.push(m), {
      budget: 256,
      onProgress: (read, total) => {
        if (!again && read > total / 5) again = feed.snapshot((m) => second.push(m), { budget: 256 });
      },
    });
    assert.equal(await firstDone, false);
    const postedBefore = first.length;
    assert.equal(await again, true);
    assert.equal(first.length, postedBefore, 'nothing more from the first read');
    const run = pageModel(second);
    assert.equal(run.metrics.steps.get(run.metrics.length - 1), 40_000 * 512);
    assert.equal(run.trainingEpisodes(), 2 * 40_000);
    assert.deepEqual(feed.poll(), [], 'the tail stands at the end: nothing read twice');
  } finally {
    fs.rmSync(path.dirname(path.dirname(dir)), { recursive: true, force: true });
  }
});
