// Reading run directories as the editor does: while they grow, after crashes, with parts missing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { isInputError } from '../../../shared/input-error.js';
import { processAlive } from '../../../runtime/run/lock.js';
import { EventTail, listRollouts, listRuns, readRollout, readRun, type RunEvent } from '../../../runtime/run/reader.js';
import { inChild, makeFifo, makeHuge, makeLink } from '../../helpers/hostile-files.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-reader-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

function status(dir: string, fields: Record<string, unknown>): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'status.json'), JSON.stringify({ experiment: 'E', seed: 1, step: 0, budget: 10, metrics: {}, ...fields }));
}

/** A pid that surely belongs to no process: one that just exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

test('EventTail returns only new whole lines, waits for a line still being written, restarts on a replaced file', () => {
  const file = path.join(root, 'events.jsonl');
  fs.writeFileSync(file, '{"type":"log","step":0,"time":1,"level":"info","message":"a"}\n{"type":"met');
  const tail = new EventTail(file);
  assert.deepEqual(tail.poll().map((e) => e.step), [0]);
  assert.deepEqual(tail.poll(), [], 'nothing new');
  fs.appendFileSync(file, 'rics","step":5,"time":2,"values":{}}\n');
  assert.deepEqual(tail.poll().map((e) => [e.type, e.step]), [['metrics', 5]]);
  fs.appendFileSync(file, 'not json\n{"type":"log","step":6,"time":3,"level":"info","message":"b"}\n');
  assert.deepEqual(tail.poll().map((e) => e.step), [6]);
  assert.equal(tail.skipped, 1);
  fs.writeFileSync(file, '{"type":"log","step":1,"time":1,"level":"info","message":"new"}\n');
  assert.deepEqual(tail.poll().map((e) => e.step), [1], 'a shorter file is read from the start');
  assert.deepEqual(new EventTail(path.join(root, 'missing.jsonl')).poll(), []);
});

test('listRuns finds runs newest first per experiment and tells a crashed trainer from a running one', () => {
  const runs = path.join(root, 'runs');
  status(path.join(runs, 'Balance', '20261121-100000-seed1'), { status: 'finished', pid: deadPid() });
  status(path.join(runs, 'Balance', '20261121-110000-seed2'), { status: 'running', pid: deadPid() });
  status(path.join(runs, 'Reach', '20261121-090000-seed7'), { status: 'running', pid: process.pid });
  fs.mkdirSync(path.join(runs, 'Balance', 'not-a-run'), { recursive: true });
  const found = listRuns(runs).map((r) => [r.experiment, r.runId, r.state]);
  assert.deepEqual(found, [
    ['Balance', '20261121-110000-seed2', 'crashed'],
    ['Balance', '20261121-100000-seed1', 'finished'],
    ['Reach', '20261121-090000-seed7', 'running'],
  ]);
  assert.deepEqual(listRuns(path.join(root, 'no-runs-here')), []);
  const broken = path.join(runs, 'Broken', 'x');
  fs.mkdirSync(broken, { recursive: true });
  fs.writeFileSync(path.join(broken, 'events.jsonl'), '');
  fs.writeFileSync(path.join(broken, 'status.json'), '{"status": "runn');
  assert.equal(readRun(broken).state, 'unknown', 'an unreadable status.json is unknown, not an error');
});

test('rollouts are listed by step and read with their header; a missing folder is empty', () => {
  const dir = path.join(root, 'run-with-rollouts');
  fs.mkdirSync(path.join(dir, 'rollouts'), { recursive: true });
  const header = { type: 'header', env: 'CartPole', obs_fields: ['x'], action: { kind: 'discrete', n: 2 }, terms: [], step: 512 };
  const step = { type: 'step', t: 0, obs: [0.1], action: 1, reward: 1, env_reward: 1, terminated: false, truncated: false };
  fs.writeFileSync(path.join(dir, 'rollouts', 'episode-512.jsonl'), `${JSON.stringify(header)}\n${JSON.stringify(step)}\n{"type":"st`);
  fs.writeFileSync(path.join(dir, 'rollouts', 'episode-0.jsonl'), `${JSON.stringify({ ...header, step: 0 })}\n`);
  fs.writeFileSync(path.join(dir, 'rollouts', 'notes.txt'), 'ignored');
  assert.deepEqual(listRollouts(dir).map((r) => r.step), [0, 512]);
  const episode = readRollout(listRollouts(dir)[1].file);
  assert.ok(episode.kind === 'episode', 'a header without kind: a numeric episode');
  assert.equal(episode.header?.env, 'CartPole');
  assert.deepEqual(episode.steps.map((s) => s.action), [1]);
  assert.equal(episode.skipped, 1);
  assert.deepEqual(listRollouts(path.join(root, 'nothing')), []);
});

test('a text batch (header kind text) is read as its groups', () => {
  const dir = path.join(root, 'text-run');
  fs.mkdirSync(path.join(dir, 'rollouts'), { recursive: true });
  const header = { type: 'header', kind: 'text', env: 'TextTask', task: 'addition(digits: 1)', terms: ['answer'], algorithm: 'GRPO', stage: 'main', group_size: 2, step: 64 };
  const group = { type: 'group', start: '1+2=', target: '3', samples: [{ text: '3', reward: 1, terms: { answer: 1 }, advantage: 0.5, correct: true }] };
  fs.writeFileSync(path.join(dir, 'rollouts', 'episode-64.jsonl'), `${JSON.stringify(header)}\n${JSON.stringify(group)}\n{"type":"gro`);
  const batch = readRollout(listRollouts(dir)[0].file);
  assert.ok(batch.kind === 'text');
  assert.equal(batch.header.algorithm, 'GRPO');
  assert.deepEqual(batch.groups, [group]);
  assert.equal(batch.skipped, 1);
});


test("a stranger's run folder cannot stall listRuns: a link to /dev/zero, a FIFO, a huge file, a link out of it", () => {
  const runs = path.join(root, 'hostile-runs');
  status(path.join(runs, 'Good', 'r1'), { status: 'finished', pid: deadPid() });
  makeLink(path.join(runs, 'Hostile', 'zero', 'status.json'), '/dev/zero');
  makeFifo(path.join(runs, 'Hostile', 'fifo', 'status.json'));
  makeHuge(path.join(runs, 'Hostile', 'huge', 'status.json'), 3 * 2 ** 30);
  // A status.json elsewhere on the machine, well formed: still not the run's own.
  status(path.join(root, 'elsewhere'), { status: 'finished', pid: deadPid(), step: 7 });
  makeLink(path.join(runs, 'Hostile', 'outside', 'status.json'), path.join(root, 'elsewhere', 'status.json'));
  const { value, ms, stderr } = inChild(`
    const { listRuns } = await import(out + '/runtime/run/reader.js');
    return listRuns(arg).map((r) => [r.experiment, r.runId, r.state, r.status?.step ?? null, r.problem ?? null]);`, runs, 15_000);
  assert.ok(value !== undefined, `listRuns did not return within 15 s (${ms} ms): ${stderr}`);
  assert.ok(ms < 10_000, `listRuns took ${ms} ms`);
  const byId = new Map((value as [string, string, string, number | null, string | null][]).map(([, id, ...rest]) => [id, rest]));
  assert.deepEqual(byId.get('r1'), ['finished', 0, null], 'the other runs still list');
  const reasons: Record<string, RegExp> = {
    zero: /status\.json is a symbolic link out of the run folder/,
    fifo: /status\.json is not a regular file \(a device, pipe or socket\)/,
    huge: /status\.json is 3\.0 GiB, more than the 4\.0 MiB rlx reads for it/,
    outside: /status\.json is a symbolic link out of the run folder/,
  };
  for (const [id, reason] of Object.entries(reasons)) {
    const [state, step, problem] = byId.get(id) ?? [];
    assert.equal(state, 'unknown', id);
    assert.equal(step, null, `${id}: nothing of the file is taken`);
    assert.match(String(problem), reason, id);
  }
});

test('EventTail and readRollout refuse what a trainer never writes, and a link inside the run folder is followed', () => {
  const run = path.join(root, 'hostile-run');
  makeFifo(path.join(run, 'events.jsonl'));
  assert.throws(() => new EventTail(path.join(run, 'events.jsonl')).poll(), (e: Error) => isInputError(e) && /events\.jsonl is not a regular file/.test(e.message));
  makeLink(path.join(run, 'rollouts', 'episode-0.jsonl'), '/dev/zero');
  assert.throws(() => readRollout(path.join(run, 'rollouts', 'episode-0.jsonl')), (e: Error) => isInputError(e) && /symbolic link out of the run folder/.test(e.message));
  makeHuge(path.join(run, 'rollouts', 'episode-1.jsonl'), 2 ** 30);
  assert.throws(() => readRollout(path.join(run, 'rollouts', 'episode-1.jsonl')), /1\.0 GiB, more than the 64\.0 MiB/);
  // rlx never links inside a run folder, but a link that stays in it is harmless.
  fs.writeFileSync(path.join(run, 'rollouts', 'real.jsonl'), '{"type":"step","t":0,"obs":[1],"action":0,"reward":1,"env_reward":1,"terminated":true,"truncated":false}\n');
  makeLink(path.join(run, 'rollouts', 'episode-2.jsonl'), 'real.jsonl');
  assert.equal(readRollout(path.join(run, 'rollouts', 'episode-2.jsonl')).kind, 'episode');
});

test('EventTail reads a long history in pieces: lines across pieces, a line longer than any event skipped', () => {
  const run = path.join(root, 'long-history');
  fs.mkdirSync(run, { recursive: true });
  const file = path.join(run, 'events.jsonl');
  const line = (step: number) => JSON.stringify({ type: 'log', step, time: 1, level: 'info', message: 'é'.repeat(1000) });
  // 20k lines of ~2 KB: 40 MB, five 8 MiB pieces, with multi-byte characters cut at their edges.
  fs.writeFileSync(file, Array.from({ length: 20_000 }, (_, i) => line(i)).join('\n') + '\n');
  fs.appendFileSync(file, `{"type":"log","message":"${'x'.repeat(17 * 2 ** 20)}"}\n${line(20_000)}\n`);
  const tail = new EventTail(file);
  const events = tail.poll();
  assert.equal(events.length, 20_001);
  assert.ok(events.every((e, i) => e.step === i && (e as { message: string }).message.length === 1000));
  assert.equal(tail.skipped, 1, 'the 17 MiB line');
});

test('a status.json whose pid names no single process (0, -1, a string) is no live trainer: Stop sends nothing there', () => {
  for (const pid of [0, -1, -process.pid, '1', 1.5, null]) {
    const dir = path.join(root, 'odd-pid', String(pid));
    status(dir, { status: 'running', pid });
    assert.equal(readRun(dir).state, 'crashed', `pid ${JSON.stringify(pid)}`);
  }
  assert.equal(processAlive(process.pid), true);
});
