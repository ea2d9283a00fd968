// rlx eval runs only the policy the run saved: a file of the run that is not a regular file
// inside it (a link to /dev/zero, a FIFO) is refused at once, and a policy whose bytes are not
// those its checkpoint recorded (one bit flipped) is refused naming the file.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import { listRollouts, readRollout } from '../../../runtime/run/reader.js';
import { train } from '../../../runtime/train.js';
import { makeFifo, makeLink } from '../../helpers/hostile-files.js';
import { makePlan } from '../../runtime/helpers.js';
import { scratch } from '../scratch.js';

const { work, rlx } = scratch('rlx-eval-');
let runDir = '';
const checkpoint = (name: string) => path.join(runDir, 'checkpoints', name);

/** Flips one bit in the middle of `file`; returns a function that puts it back. */
function flipBit(file: string): () => void {
  const original = fs.readFileSync(file);
  const flipped = Buffer.from(original);
  flipped[flipped.length >> 1] ^= 0x10;
  fs.writeFileSync(file, flipped);
  return () => fs.writeFileSync(file, original);
}

/** Puts `make` in place of `file` for one call of `run`, then the file back. */
function replaced<T>(file: string, make: (file: string) => void, run: () => T): T {
  const saved = `${file}.saved`;
  fs.renameSync(file, saved);
  try {
    make(file);
    return run();
  } finally {
    fs.rmSync(file, { force: true });
    fs.renameSync(saved, file);
  }
}

/** rlx eval, and how long it took. */
function evaluate(...args: string[]) {
  const started = Date.now();
  const r = rlx('eval', runDir, '--episodes', '2', ...args);
  return { ...r, ms: Date.now() - started };
}

describe('rlx eval checks the files it runs', () => {
  before(async () => {
    const result = await train(makePlan({ budget: 512, algorithmParams: { rollout_steps: 64 }, policyParams: { hidden: [8] } }), { out: path.join(work, 'runs'), checkpointEvery: 256 });
    assert.equal(result.status, 'finished');
    runDir = path.relative(work, result.runDir);
  });

  test('the saved policy, as it was written, evaluates', () => {
    const r = evaluate();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^mean return .*policy-final\.onnx, deterministic\)\n$/);
  });

  test('--record keeps one episode of the policy in rollouts/ for the inspector, named by the policy\'s step', () => {
    const r = evaluate('--record');
    assert.equal(r.code, 0, r.stderr);
    const said = /\nrecorded an episode \(return (\d+), (\d+) steps\) in (.*episode-512-rlx-eval\.jsonl)\n$/.exec(r.stdout);
    assert.ok(said, r.stdout);
    const file = path.join(work, runDir, 'rollouts', 'episode-512-rlx-eval.jsonl');
    assert.equal(path.resolve(work, said[3]!), file);
    const episode = readRollout(file);
    assert.ok(episode.kind === 'episode' && episode.header);
    assert.equal(episode.header.recorded, 'rlx-eval');
    assert.equal(episode.header.deterministic, true);
    assert.equal(episode.steps.length, Number(said[2]));
    assert.equal(episode.steps.reduce((sum, s) => sum + s.env_reward, 0), Number(said[1]));
    assert.ok(episode.steps.at(-1)!.terminated || episode.steps.at(-1)!.truncated, 'a whole episode');
    assert.deepEqual(listRollouts(path.join(work, runDir)).filter((e) => e.recorded === 'rlx-eval').map((e) => e.step), [512]);
    // Of a checkpoint: named by its step.
    assert.equal(evaluate('--record', '--checkpoint', checkpoint('policy-256.onnx')).code, 0);
    assert.ok(fs.existsSync(path.join(work, runDir, 'rollouts', 'episode-256-rlx-eval.jsonl')));
  });

  test('a bit flipped in policy-final.onnx or in a checkpoint policy: refused, naming the file', () => {
    let restore = flipBit(path.join(work, checkpoint('policy-final.onnx')));
    try {
      const r = evaluate();
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /^rlx eval: the policy .*policy-final\.onnx is not the one the run saved: it has \d+ bytes that differ from those written \(sha256 recorded in state-512\.json\); it was edited or damaged since/);
    } finally {
      restore();
    }
    restore = flipBit(path.join(work, checkpoint('policy-256.onnx')));
    try {
      const r = evaluate('--checkpoint', checkpoint('policy-256.onnx'));
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /the policy .*policy-256\.onnx is not the one the run saved: .*\(sha256 recorded in state-256\.json\)/);
    } finally {
      restore();
    }
    const cut = path.join(work, checkpoint('policy-256.onnx'));
    const original = fs.readFileSync(cut);
    fs.writeFileSync(cut, original.subarray(0, 100));
    try {
      assert.match(evaluate('--checkpoint', checkpoint('policy-256.onnx')).stderr, /policy-256\.onnx is not the one the run saved: it has 100 bytes, not \d+/);
    } finally {
      fs.writeFileSync(cut, original);
    }
    assert.equal(evaluate('--checkpoint', checkpoint('policy-256.onnx')).code, 0, 'restored: evaluates again');
  });

  test('a policy that is a link to /dev/zero or a FIFO fails at once with a message', () => {
    const final = path.join(work, checkpoint('policy-final.onnx'));
    const zero = replaced(final, (f) => makeLink(f, '/dev/zero'), () => evaluate());
    assert.equal(zero.code, 2, zero.stderr);
    assert.match(zero.stderr, /^rlx eval: the policy .*policy-final\.onnx is a symbolic link out of the run folder/);
    assert.ok(zero.ms < 15_000, `${zero.ms} ms`);
    const fifo = replaced(final, makeFifo, () => evaluate());
    assert.equal(fifo.code, 2, fifo.stderr);
    assert.match(fifo.stderr, /^rlx eval: the policy .*policy-final\.onnx is not a regular file/);
    // Named with --checkpoint outside the run: no record to check against, but a regular file still.
    makeLink(path.join(work, 'zero.onnx'), '/dev/zero');
    makeFifo(path.join(work, 'pipe.onnx'));
    for (const name of ['zero.onnx', 'pipe.onnx']) {
      const r = evaluate('--checkpoint', name);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`^rlx eval: the policy ${name.replace('.', '\\.')} is not a regular file \\(a device, pipe or socket\\)`));
      assert.ok(r.ms < 15_000, `${name}: ${r.ms} ms`);
    }
    fs.copyFileSync(final, path.join(work, 'copy.onnx'));
    assert.equal(evaluate('--checkpoint', 'copy.onnx').code, 0, 'a copy elsewhere, named on purpose, evaluates');
  });

  test("the run's plan.json or status.json as a link to /dev/zero or a FIFO: refused at once", () => {
    for (const name of ['plan.json', 'status.json']) {
      for (const make of [(f: string) => makeLink(f, '/dev/zero'), makeFifo]) {
        const r = replaced(path.join(work, runDir, name), make, () => evaluate());
        assert.equal(r.code, 2, `${name}: ${r.stderr}`);
        assert.match(r.stderr, new RegExp(`^rlx eval: the run's (plan|status) \\(${name.replace('.', '\\.')}\\) .*(symbolic link out of the run folder|not a regular file)`), name);
        assert.ok(r.ms < 15_000, `${name}: ${r.ms} ms`);
      }
    }
  });
});
