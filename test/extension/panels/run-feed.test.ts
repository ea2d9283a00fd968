// The host side of the panels' protocol, against a run directory that grows as a trainer's does.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { feedRun, RunFeed } from '../../../extension/panels/run-feed.js';
import { inChild, makeFifo, makeLink } from '../../helpers/hostile-files.js';

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

test('a snapshot, then only what changed: events, status, rollouts', () => {
  const dir = runDir();
  const run = feedRun(dir);
  assert.equal(run.id, 'Balance/20261121-101010-seed1');
  const feed = new RunFeed([run]);
  const first = feed.snapshot();
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
  assert.ok(second[0].type === 'events' && second[0].events[0].step === 128 && !second[0].reset);
  fs.appendFileSync(path.join(dir, 'events.jsonl'), 'ics","step":256,"time":3,"values":{}}\n');
  status(dir, 'finished', 256);
  fs.writeFileSync(path.join(dir, 'rollouts', 'episode-0.jsonl'), '{"type":"header","env":"CartPole","obs_fields":["x"],"action":{"kind":"discrete","n":2},"terms":[],"step":0}\n{"type":"step","t":0,"obs":[0.1],"action":1,"reward":1,"env_reward":1,"terminated":false,"truncated":false}\n');
  const third = feed.poll();
  assert.deepEqual(third.map((m) => m.type), ['events', 'status', 'rollouts']);
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

test('a run without a rollouts folder says so', () => {
  const dir = runDir();
  fs.rmSync(path.join(dir, 'rollouts'), { recursive: true });
  const rollouts = new RunFeed([feedRun(dir)]).snapshot().find((m) => m.type === 'rollouts');
  assert.ok(rollouts?.type === 'rollouts' && rollouts.missing === true);
});

test('a long history reaches the page as columns after one reset events message', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-feed-long-'));
  try {
    const dir = path.join(root, 'Big', '20261121-000000-seed1');
    fs.mkdirSync(dir, { recursive: true });
    const lines: string[] = [];
    for (let i = 1; i <= 5000; i++) lines.push(JSON.stringify({ type: 'metrics', step: i * 512, time: i, values: { 'charts/sps': i } }));
    fs.writeFileSync(path.join(dir, 'events.jsonl'), lines.join('\n') + '\n');
    fs.writeFileSync(path.join(dir, 'status.json'), JSON.stringify({ status: 'finished', pid: 1, experiment: 'Big', seed: 1, step: 5000 * 512, budget: 1, metrics: {} }));
    const feed = new RunFeed([feedRun(dir)]);
    const messages = feed.snapshot().filter((m) => m.type === 'events' || m.type === 'columns');
    assert.deepEqual(messages.map((m) => [m.type, m.type === 'events' ? m.reset : undefined]), [['events', true], ['columns', undefined]]);
    const columns = messages[1] as Extract<typeof messages[number], { type: 'columns' }>;
    assert.equal(columns.steps.length, 5000);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a run whose files cannot be read is reported once, and the other runs are shown', () => {
  const good = runDir();
  const bad = runDir();
  // An events.jsonl that is a folder: refused, as a file without permission would be.
  fs.rmSync(path.join(bad, 'events.jsonl'));
  fs.mkdirSync(path.join(bad, 'events.jsonl'));
  const feed = new RunFeed([feedRun(bad), feedRun(good)]);
  const first = feed.snapshot();
  assert.ok(first[0].type === 'runs' && first[0].runs.length === 2, 'both runs are listed');
  const events = first.filter((m) => m.type === 'events');
  assert.equal(events.length, 1);
  assert.ok(events[0].type === 'events' && events[0].events.length === 1, "the readable run's events");
  const [problem, ...more] = feed.takeProblems();
  assert.match(problem ?? '', /^run Balance\/20261121-101010-seed1: the run's events \(events\.jsonl\) .*events\.jsonl is a folder, not a file$/);
  assert.deepEqual(more, []);
  // The same problem is not said again at every poll, nor at the next page load.
  assert.deepEqual(feed.poll(), []);
  feed.snapshot();
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
    const snapshot = feed.snapshot();
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
