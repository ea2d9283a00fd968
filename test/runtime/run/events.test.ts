// events.jsonl after a trainer died inside a write: readers skip (and count) a line that is
// not JSON wherever it is, and a resume cuts an unfinished last line before appending, saying so.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { readEventFile, readEvents, repairTornTail } from '../../../runtime/run/events.js';
import { resume, train } from '../../../runtime/train.js';
import { makePlan, tempDir } from '../helpers.js';

const line = (step: number) => JSON.stringify({ type: 'log', step, time: 1, level: 'info', message: `at ${step}` });

describe('events.jsonl', () => {
  it('readEvents skips and counts lines that are not JSON, in the middle as at the end', () => {
    const file = path.join(tempDir(), 'events.jsonl');
    fs.writeFileSync(file, `${line(0)}\n{"type":"metr${line(1)}\n${line(2)}\n{"type":"log","st`);
    assert.deepEqual(readEvents(file).map((e) => e.step), [0, 2]);
    assert.equal(readEventFile(file).skipped, 2, 'the glued line and the cut last one');
  });

  it('repairTornTail cuts an unfinished last line and nothing else', () => {
    const dir = tempDir();
    const file = path.join(dir, 'events.jsonl');
    fs.writeFileSync(file, `${line(0)}\n${line(1)}\n{"type":"log","st`);
    assert.equal(repairTornTail(file), '{"type":"log","st'.length);
    assert.equal(fs.readFileSync(file, 'utf8'), `${line(0)}\n${line(1)}\n`);
    assert.equal(repairTornTail(file), 0, 'a file of whole lines is left alone');
    assert.equal(fs.readFileSync(file, 'utf8'), `${line(0)}\n${line(1)}\n`);

    const long = `${line(0)}\n${'x'.repeat(200_000)}`;
    fs.writeFileSync(file, long);
    assert.equal(repairTornTail(file), 200_000, 'a cut line longer than one read');
    assert.equal(fs.readFileSync(file, 'utf8'), `${line(0)}\n`);
    fs.writeFileSync(file, '{"type"');
    assert.equal(repairTornTail(file), 7);
    assert.equal(fs.readFileSync(file, 'utf8'), '');
    assert.equal(repairTornTail(path.join(dir, 'missing.jsonl')), 0);
  });

  it('a resume after a death mid-write starts on a line of its own and logs the repair', async () => {
    const controller = new AbortController();
    const first = await train(makePlan({ budget: 2048 }), { out: tempDir(), signal: controller.signal, onProgress: (p) => p.step >= 1024 && controller.abort() });
    const file = path.join(first.runDir, 'events.jsonl');
    fs.appendFileSync(file, '{"type":"metrics","step":1536,"time":1.5,"values":{"charts/sp');
    const logged: string[] = [];
    const second = await resume(first.runDir, { log: (m) => logged.push(m) });
    assert.equal(second.status, 'finished');
    const { events, skipped } = readEventFile(file);
    assert.equal(skipped, 0, 'no line was glued to the cut one');
    const warning = 'events.jsonl ended in a line cut short (61 bytes, from a trainer killed while writing it); removed that line';
    assert.ok(logged.includes(warning), logged.join('\n'));
    assert.ok(events.some((e) => e.type === 'log' && e.level === 'warn' && e.message === warning));
    assert.deepEqual(events.filter((e) => e.type === 'status').map((e) => e.status), ['running', 'stopped', 'running', 'finished']);
  });
});
