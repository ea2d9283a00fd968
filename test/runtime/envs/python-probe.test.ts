// Probing a gymnasium(...) env at check time (runtime/envs/python/probe.ts, probe-cache.ts):
// one worker started with --probe gives the env's spaces; a probe that hangs is killed at its
// timeout; answers are kept on disk, so a second process asks no Python; a failure says
// Python's last line and is not written to disk.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import type { PythonEnvQuery } from '../../../dsl/index.js';
import { MAX_CONCURRENT_PROBES, PythonEnvProbes } from '../../../runtime/envs/python/probe-cache.js';
import { probePythonEnv } from '../../../runtime/envs/python/probe.js';
import { testPython } from '../../helpers/python.js';
import { repoRoot } from '../../helpers/repo.js';

const python = testPython();
const skip = python === null ? 'python3 with numpy is not available' : false;
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-probe-test-'));
after(() => fs.rmSync(temp, { recursive: true, force: true }));

function query(over: Partial<PythonEnvQuery> = {}): PythonEnvQuery {
  return { id: 'CartPole-v1', kwargs: {}, imports: [], python: '', envTimeout: 30, ...over };
}

/** An interpreter that notes each start in `log`, then runs `then` (a shell command line; "$@" holds the arguments). */
function recordingInterpreter(name: string, then: string): { python: string; starts: () => number } {
  const file = path.join(temp, name);
  const log = path.join(temp, `${name}.log`);
  fs.writeFileSync(file, `#!/bin/sh\necho started >> '${log}'\n${then}\n`, { mode: 0o755 });
  return { python: file, starts: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0) };
}

describe('probing a Python env', { skip }, () => {
  it('learns CartPole-v1\'s observation size and names, its discrete actions and its episode limit', async () => {
    const facts = await probePythonEnv(query(), { python: python!.python, processEnv: python!.env });
    assert.deepEqual(facts, { kind: 'facts', observationNames: ['x0', 'x1', 'x2', 'x3'], observationShape: [4], action: { kind: 'discrete', n: 2 }, maxSteps: 500, goalConditioned: false, image: null });
    const pendulum = await probePythonEnv(query({ id: 'Pendulum-v1' }), { python: python!.python, processEnv: python!.env });
    assert.deepEqual(pendulum.kind === 'facts' ? [pendulum.action, pendulum.maxSteps] : pendulum, [{ kind: 'continuous', dims: 1 }, 200]);
  });

  it('probes a class in a file with its kwargs, as the trainer would make it', async () => {
    const file = path.join(repoRoot(), 'test/fixtures/python/user_envs/drift.py');
    const facts = await probePythonEnv(query({ id: '', file, className: 'Drift', kwargs: { limit: 3.0 } }), { python: python!.python, processEnv: python!.env });
    assert.equal(facts.kind, 'facts', JSON.stringify(facts));
    const missing = await probePythonEnv(query({ id: '', file, className: 'NoSuchEnv' }), { python: python!.python, processEnv: python!.env });
    assert.equal(missing.kind, 'failed');
    assert.match((missing as { message: string }).message, /NoSuchEnv/);
  });

  it('learns MultiBinary actions as bits, and keeps them so on disk', async () => {
    const bits = query({ id: 'RlxBits-v0', imports: ['rlx_bits_envs'] });
    const facts = await probePythonEnv(bits, { python: python!.python, processEnv: python!.env });
    assert.deepEqual(facts.kind === 'facts' ? facts.action : facts, { kind: 'multibinary', n: 4 });
    const cacheDir = path.join(temp, 'bits-cache');
    const first = new PythonEnvProbes({ cacheDir, processEnv: python!.env });
    const q = { ...bits, python: python!.python };
    assert.equal(first.lookup(q), 'pending');
    await first.idle();
    const second = new PythonEnvProbes({ cacheDir, processEnv: python!.env });
    const kept = second.lookup(q);
    assert.equal(second.probesStarted, 0, 'read from the disk cache');
    assert.deepEqual(kept !== undefined && kept !== 'pending' && kept.kind === 'facts' ? kept.action : kept, { kind: 'multibinary', n: 4 });
  });

  it('learns that a goal env is goal-conditioned, and keeps it so on disk', async () => {
    const goal = query({ id: 'PointGoal-v0', imports: ['point_goal'] });
    const facts = await probePythonEnv(goal, { python: python!.python, processEnv: python!.env });
    assert.equal(facts.kind === 'facts' ? facts.goalConditioned : facts, true);
    const cacheDir = path.join(temp, 'goal-cache');
    const q = { ...goal, python: python!.python };
    const first = new PythonEnvProbes({ cacheDir, processEnv: python!.env });
    assert.equal(first.lookup(q), 'pending');
    await first.idle();
    const second = new PythonEnvProbes({ cacheDir, processEnv: python!.env });
    const kept = second.lookup(q);
    assert.equal(second.probesStarted, 0, 'read from the disk cache');
    assert.equal(kept !== undefined && kept !== 'pending' && kept.kind === 'facts' ? kept.goalConditioned : kept, true);
  });

  it('reports an import error with the traceback\'s last line, and an unknown interpreter by name', async () => {
    const missing = await probePythonEnv(query({ imports: ['no_such_package_for_rlx'] }), { python: python!.python, processEnv: python!.env });
    assert.deepEqual(missing, { kind: 'failed', message: "ModuleNotFoundError: No module named 'no_such_package_for_rlx'" });
    const none = await probePythonEnv(query(), { python: path.join(temp, 'no-python-here'), processEnv: python!.env });
    assert.equal(none.kind, 'failed');
    assert.match(none.kind === 'failed' ? none.message : '', /^cannot start Python '.*no-python-here': not found; install Python 3/);
  });

  it('kills a probe that does not answer within its timeout', async () => {
    const slow = recordingInterpreter('slow-python', 'exec sleep 30');
    const started = Date.now();
    const result = await probePythonEnv(query(), { python: slow.python, processEnv: python!.env, timeoutMs: 300 });
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    assert.equal(result.kind, 'failed');
    assert.match(result.kind === 'failed' ? result.message : '', /^Python did not answer within 0\.3 s/);
  });

  it('keeps facts on disk: another process\'s lookup answers at once and starts no Python', async () => {
    const cacheDir = path.join(temp, 'cache');
    const real = recordingInterpreter('python-a', `exec '${python!.python}' "$@"`);
    const settled: string[] = [];
    const first = new PythonEnvProbes({ cacheDir, processEnv: python!.env, onSettled: (q) => settled.push(q.id) });
    const q = query({ python: real.python });
    assert.equal(first.lookup(q), 'pending');
    assert.equal(first.lookup(q), 'pending', 'a second lookup while it runs starts nothing more');
    await first.idle();
    const facts = first.lookup(q);
    assert.equal(facts !== undefined && facts !== 'pending' && facts.kind, 'facts');
    assert.equal(first.lookup(q), facts, 'the same object while nothing changed');
    assert.deepEqual(settled, ['CartPole-v1']);
    assert.equal(real.starts(), 1);
    assert.equal(fs.readdirSync(cacheDir).filter((f) => f.endsWith('.json')).length, 1);

    const second = new PythonEnvProbes({ cacheDir, processEnv: python!.env });
    assert.deepEqual(second.lookup(q), facts);
    assert.equal(second.probesStarted, 0);
    assert.equal(real.starts(), 1, 'the cache hit started no Python');

    // Another interpreter (or the same one upgraded: its mtime) is another key.
    const other = recordingInterpreter('python-b', `exec '${python!.python}' "$@"`);
    assert.equal(second.lookup(query({ python: other.python })), 'pending');
    await second.idle();
    assert.equal(other.starts(), 1);
  });

  it('tells every query of a shared probe of its answer: two files that differ only in env_timeout', async () => {
    // The language server checks again the files that asked by the query it is told of: a file
    // with the default env_timeout, opened while another file's probe of the same id runs,
    // stayed without the probed diagnostics until edited.
    const settled: number[] = [];
    const probes = new PythonEnvProbes({ cacheDir: path.join(temp, 'shared-cache'), processEnv: python!.env, onSettled: (q) => settled.push(q.envTimeout) });
    assert.equal(probes.lookup(query({ envTimeout: 10 })), 'pending');
    assert.equal(probes.lookup(query({ envTimeout: 30 })), 'pending');
    await probes.idle();
    assert.equal(probes.probesStarted, 1, 'one probe for both');
    assert.deepEqual(settled.sort((a, b) => a - b), [10, 30]);
  });

  it('runs at most MAX_CONCURRENT_PROBES probes at once; the others wait their turn', async () => {
    const dir = path.join(temp, 'concurrent');
    fs.mkdirSync(dir);
    // Each start counts the probes running beside it (a file per running probe), then fails.
    const counting = path.join(temp, 'counting-python');
    fs.writeFileSync(counting, `#!/bin/sh\ntouch '${dir}'/$$\nls '${dir}' | wc -l >> '${dir}.log'\nsleep 0.3\nrm '${dir}'/$$\nexit 1\n`, { mode: 0o755 });
    const probes = new PythonEnvProbes({ cacheDir: path.join(temp, 'cache-concurrent'), processEnv: python!.env });
    for (const id of ['A-v0', 'B-v0', 'C-v0', 'D-v0', 'E-v0']) assert.equal(probes.lookup(query({ id, python: counting })), 'pending');
    await probes.idle();
    const counts = fs.readFileSync(`${dir}.log`, 'utf8').trim().split('\n').map(Number);
    assert.equal(counts.length, 5);
    assert.ok(Math.max(...counts) <= MAX_CONCURRENT_PROBES, `running together: ${counts.join(', ')}`);
  });

  it('keeps a failure in memory only, and does not probe it again at every lookup', async () => {
    const cacheDir = path.join(temp, 'cache-failures');
    const broken = recordingInterpreter('broken-python', "echo 'SyntaxError: this interpreter is broken' >&2; exit 1");
    const probes = new PythonEnvProbes({ cacheDir, processEnv: python!.env });
    const q = query({ python: broken.python });
    assert.equal(probes.lookup(q), 'pending');
    await probes.idle();
    assert.deepEqual(probes.lookup(q), { kind: 'failed', message: 'Python did not describe the env: SyntaxError: this interpreter is broken' });
    probes.lookup(q);
    assert.equal(broken.starts(), 1);
    assert.equal(fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).length : 0, 0, 'no failure on disk');
    const missing = new PythonEnvProbes({ cacheDir, processEnv: { ...python!.env, PATH: temp } });
    assert.equal(missing.lookup(query({ python: 'python-that-is-not-there' })), 'pending');
    await missing.idle();
    const read = missing.lookup(query({ python: 'python-that-is-not-there' }));
    assert.match(read !== undefined && read !== 'pending' && read.kind === 'failed' ? read.message : '', /^cannot find Python 'python-that-is-not-there' on PATH/);
    assert.equal(missing.probesStarted, 0);
  });
});
