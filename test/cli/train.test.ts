// `rlx train` and `rlx eval` as a user runs them: a child process on bin/rlx.js. SIGTERM
// stops cleanly (status stopped, final checkpoint), --resume continues, refusals and device
// errors are one clear message without a stack trace.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { readEvents } from '../../runtime/run/events.js';
import { repoRoot } from '../helpers/repo.js';
import { makePlan, tempDir } from '../runtime/helpers.js';

const RLX = path.join(repoRoot(), 'bin', 'rlx.js');

function rlx(args: string[], cwd: string) {
  return spawnSync(process.execPath, [RLX, ...args], { cwd, encoding: 'utf8', timeout: 120_000 });
}

async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const metricSteps = (dir: string) => readEvents(path.join(dir, 'events.jsonl')).filter((e) => e.type === 'metrics').map((e) => e.step);

/** Starts `rlx ARGS`, waits until its run has logged `updates` updates, sends SIGTERM, waits for the exit. */
async function trainThenTerminate(args: string[], cwd: string, runDir: () => string | undefined, updates: number) {
  const child = spawn(process.execPath, [RLX, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await until(() => {
    const dir = runDir();
    return dir !== undefined && fs.existsSync(path.join(dir, 'events.jsonl')) && metricSteps(dir).length >= updates;
  }, `${updates} updates`);
  child.kill('SIGTERM');
  return { code: await exited, stderr };
}

describe('rlx train (command line)', () => {
  it('stops cleanly on SIGTERM, and --resume continues the same run', async () => {
    const cwd = tempDir();
    fs.writeFileSync(path.join(cwd, 'plan.json'), JSON.stringify(makePlan({ budget: 50_000_000 })));
    const runDir = () => {
      const parent = path.join(cwd, 'out', 'Test');
      return fs.existsSync(parent) ? fs.readdirSync(parent).map((d) => path.join(parent, d))[0] : undefined;
    };
    const first = await trainThenTerminate(['train', '--plan', 'plan.json', '--out', 'out', '--device', 'cpu'], cwd, runDir, 2);
    assert.equal(first.code, 143, first.stderr);
    assert.match(first.stderr, /SIGTERM; stopping after this update/);
    const dir = runDir()!;
    const status = JSON.parse(fs.readFileSync(path.join(dir, 'status.json'), 'utf8'));
    assert.equal(status.status, 'stopped');
    assert.equal(status.reason, 'stopped by a signal');
    assert.ok(fs.existsSync(path.join(dir, 'checkpoints', 'policy-final.onnx')));
    assert.ok(fs.existsSync(path.join(dir, 'checkpoints', `state-${status.step}.json`)), 'a resumable checkpoint at the last step');

    const second = await trainThenTerminate(['train', '--resume', dir], cwd, () => (metricSteps(dir).some((s) => s > status.step) ? dir : undefined), 1);
    assert.equal(second.code, 143, second.stderr);
    const steps = metricSteps(dir);
    assert.deepEqual(steps, steps.map((_, i) => 512 * (i + 1)), 'one step count across both processes');
    const statuses = readEvents(path.join(dir, 'events.jsonl')).filter((e) => e.type === 'status');
    assert.deepEqual(statuses.map((e) => [e.status, e.resumed ?? false]), [['running', false], ['stopped', false], ['running', true], ['stopped', false]]);
  });

  it('prints the run directory on stdout as the run starts, and status.json names it', async () => {
    const cwd = tempDir();
    fs.writeFileSync(path.join(cwd, 'plan.json'), JSON.stringify(makePlan({ budget: 50_000_000 })));
    const child = spawn(process.execPath, [RLX, 'train', '--plan', 'plan.json', '--out', 'out', '--device', 'cpu'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await until(() => stdout.includes('\n'), 'the first line on stdout');
    // The first line arrives while training goes on: the editor follows the run from it.
    const dir = path.resolve(cwd, stdout.split('\n')[0]!);
    const status = JSON.parse(fs.readFileSync(path.join(dir, 'status.json'), 'utf8'));
    assert.equal(status.status, 'running');
    assert.equal(status.run_dir, fs.realpathSync(dir));
    assert.equal(path.relative(cwd, dir).split(path.sep).slice(0, 2).join('/'), 'out/Test');
    child.kill('SIGTERM');
    assert.equal(await exited, 143);
    assert.equal(stdout, `${path.relative(cwd, dir)}\n`, 'stdout holds the run directory and nothing else');
  });

  it('ends on one line with both returns and how each was measured (deterministic evaluation, sampled training)', () => {
    const cwd = tempDir();
    fs.writeFileSync(
      path.join(cwd, 'main.rlx'),
      'env Pole = CartPole { max_steps: 100 }\npolicy Net = mlp { hidden: [16] }\nalgorithm Fast = PPO { rollout_steps: 64 }\n' +
        'experiment Tiny {\n  env: Pole\n  policy: Net\n  algorithm: Fast\n  budget: 1k\n  envs: 2\n  seeds: [3]\n  device: cpu\n  eval {\n    every: 500\n    episodes: 3\n  }\n}\n',
    );
    const result = rlx(['train', 'main.rlx', '--out', 'out'], cwd);
    assert.equal(result.status, 0, result.stderr);
    const last = result.stderr.trimEnd().split('\n').at(-1);
    assert.match(last!, /^rlx train: finished at step 896: budget reached \(896 of 1000 steps\); eval \d+\.\d \(deterministic, 3 episodes\) · train \d+\.\d \(sampled actions, last 20 episodes\)$/);
  });

  it('trains an .rlx file, snapshots its sources, and rlx eval runs the saved policy', () => {
    const cwd = tempDir();
    fs.writeFileSync(path.join(cwd, 'base.rlx'), 'env Pole = CartPole { max_steps: 100 }\npolicy Net = mlp { hidden: [16] }\n');
    fs.writeFileSync(
      path.join(cwd, 'main.rlx'),
      'import "./base.rlx"\nalgorithm Fast = PPO { rollout_steps: 64 }\nexperiment Tiny {\n  env: Pole\n  policy: Net\n  algorithm: Fast\n  budget: 1k\n  envs: 2\n  seeds: [3, 4]\n  device: cpu\n}\n',
    );
    const result = rlx(['train', 'main.rlx', '--out', 'out'], cwd);
    assert.equal(result.status, 0, result.stderr);
    const dirs = result.stdout.trim().split('\n');
    assert.equal(dirs.length, 2, 'one run directory per seed');
    assert.match(dirs[0], /^out[/\\]Tiny[/\\]\d{8}-\d{6}-seed3$/);
    assert.match(dirs[1], /seed4$/);
    assert.deepEqual(fs.readdirSync(path.join(cwd, dirs[0], 'source')).sort(), ['base.rlx', 'main.rlx']);
    assert.match(result.stderr, /finished at step 896: budget reached \(896 of 1000 steps\)/);

    const evaluated = rlx(['eval', dirs[0], '--episodes', '3'], cwd);
    assert.equal(evaluated.status, 0, evaluated.stderr);
    assert.match(evaluated.stdout, /^mean return \d+\.\d\d \+- \d+\.\d\d over 3 episodes \(mean length [\d.]+; out[/\\]Tiny[/\\].*policy-final\.onnx, deterministic\)\n$/);
    const json = JSON.parse(rlx(['eval', dirs[0], '--episodes', '2', '--json', '--stochastic'], cwd).stdout);
    assert.equal(json.returns.length, 2);
    assert.equal(json.deterministic, false);
  });

  it('takes seeds, checkpoint intervals and thread counts in digits only', () => {
    const cwd = tempDir();
    fs.writeFileSync(path.join(cwd, 'plan.json'), JSON.stringify(makePlan()));
    const cases: [string, string, number][] = [
      ['--seed', '', 0], ['--seed', '0x10', 0], ['--seed', '1e3', 0], ['--seed', '-1', 0], ['--seed', '1.5', 0], ['--seed', ' 7', 0], ['--seed', '+7', 0],
      ['--seed', '9007199254740993', 0], ['--checkpoint-every', '1e3', 1], ['--checkpoint-every', '0', 1], ['--threads', '0x1', 1],
    ];
    for (const [flag, value, min] of cases) {
      const r = rlx(['train', '--plan', 'plan.json', '--out', 'out', `${flag}=${value}`], cwd);
      assert.equal(r.status, 2, `${flag} '${value}': ${r.stderr}`);
      assert.equal(r.stderr, `rlx train: ${flag} needs a whole number >= ${min} written in digits, got '${value}'\n`);
    }
    assert.ok(!fs.existsSync(path.join(cwd, 'out')), 'nothing trained');
  });

  it("says what the machine refused and where, not 'a bug in rlx'", () => {
    const cwd = tempDir();
    fs.writeFileSync(path.join(cwd, 'plan.json'), JSON.stringify(makePlan()));
    const r = rlx(['train', '--plan', 'plan.json', '--out', 'plan.json/runs'], cwd);
    assert.equal(r.status, 2, r.stderr);
    // The first level that cannot be made.
    assert.match(r.stderr, /\nrlx train: cannot mkdir 'plan\.json[/\\]runs': a part of the path is a file, not a folder \(ENOTDIR\); check the path given to --out\n$/);
    assert.doesNotMatch(r.stderr, /bug in rlx/);
  });

  it('refuses a folder that cannot be created (under /proc) instead of hanging', (t) => {
    if (!fs.existsSync('/proc/self')) return t.skip('no /proc on this system');
    const cwd = tempDir();
    fs.writeFileSync(path.join(cwd, 'plan.json'), JSON.stringify(makePlan()));
    // Node's recursive mkdir never returned here (issue 14 item 9); rlx()'s timeout only ends a hang.
    const r = rlx(['train', '--plan', 'plan.json', '--out', '/proc/rlx-cannot-exist/runs'], cwd);
    assert.equal(r.signal, null, 'rlx train returned');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /\nrlx train: cannot mkdir '\/proc\/rlx-cannot-exist': that folder cannot be created there \(ENOENT\); train elsewhere with --out DIR\n$/);
  });

  it('refuses a second --resume of a run that is training', async (t) => {
    const cwd = tempDir();
    fs.writeFileSync(path.join(cwd, 'plan.json'), JSON.stringify(makePlan({ budget: 50_000_000 })));
    const runDir = () => {
      const parent = path.join(cwd, 'out', 'Test');
      return fs.existsSync(parent) ? fs.readdirSync(parent).map((d) => path.join(parent, d))[0] : undefined;
    };
    await trainThenTerminate(['train', '--plan', 'plan.json', '--out', 'out', '--device', 'cpu'], cwd, runDir, 1);
    const dir = runDir()!;
    // Both start at once; whichever takes the lock trains, the other is refused.
    const start = () => {
      const child = spawn(process.execPath, [RLX, 'train', '--resume', dir], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
      const result = { code: undefined as number | null | undefined, stderr: '', child };
      child.stderr.on('data', (chunk) => (result.stderr += chunk));
      child.on('exit', (code) => (result.code = code));
      return result;
    };
    const both = [start(), start()];
    // Whatever fails below, neither trainer (of a 50M-step budget) outlives the test.
    t.after(() => both.forEach((r) => r.code === undefined && r.child.kill('SIGKILL')));
    await until(() => both.some((r) => r.code !== undefined), 'one of the two to exit');
    const refused = both.find((r) => r.code !== undefined)!;
    const training = both.find((r) => r !== refused)!;
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /^rlx train: resuming .*\nrlx train: .* is being trained by process \d+ since \d{4}-[^;]*; stop it first\n$/);
    assert.equal(training.code, undefined, 'the other one trains on');
    training.child.kill('SIGTERM');
    await until(() => training.code !== undefined, 'the trainer to stop');
    assert.equal(training.code, 143, training.stderr);
    const resumed = readEvents(path.join(dir, 'events.jsonl')).filter((e) => e.type === 'status' && e.resumed);
    assert.equal(resumed.length, 1, 'one trainer resumed the run');
  });

  it('a user env whose step never returns: Ctrl-C stops the run at once, and env_timeout fails it', async () => {
    const cwd = tempDir();
    // Hangs on its 200th step, after saying so in a file.
    fs.writeFileSync(path.join(cwd, 'stuck.js'), `import * as fs from 'node:fs';
let calls = 0;
export default class Stuck {
  observationSpace = { kind: 'box', shape: [1], low: [0], high: [1] };
  actionSpace = { kind: 'discrete', n: 2 };
  reset() { return { obs: [0], info: {} }; }
  step() {
    if (++calls === 200) { fs.writeFileSync('hanging', ''); for (;;) {} }
    return { obs: [0], reward: 0, terminated: false, truncated: false, info: {} };
  }
}
`);
    const rlxFile = (timeout: number) =>
      `env Stuck = module("./stuck.js") { max_steps: 50, env_timeout: ${timeout} }\npolicy P = mlp { hidden: [8] }\nalgorithm A = PPO { rollout_steps: 64 }\n` +
      'experiment Hang {\n  env: Stuck\n  policy: P\n  algorithm: A\n  budget: 10k\n  envs: 2\n  seeds: [1]\n  device: cpu\n}\n';
    fs.writeFileSync(path.join(cwd, 'patient.rlx'), rlxFile(600));
    const child = spawn(process.execPath, [RLX, 'train', 'patient.rlx', '--out', 'out'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    let code: number | null | undefined;
    child.on('exit', (c) => (code = c));
    await until(() => fs.existsSync(path.join(cwd, 'hanging')), 'the step that hangs');
    // A SIGINT in the first milliseconds of the wait reaches the event loop, which is blocked
    // until the step returns; one a moment later interrupts the wait, as a user's Ctrl-C on a
    // stalled run does. So press again until it exits, well within env_timeout (600 s).
    const pressing = setInterval(() => child.kill('SIGINT'), 500);
    child.kill('SIGINT');
    await until(() => code !== undefined, 'rlx train to exit after SIGINT').finally(() => clearInterval(pressing));
    assert.equal(code, 130, stderr);
    const runDir = path.join(cwd, 'out', 'Hang', fs.readdirSync(path.join(cwd, 'out', 'Hang'))[0]);
    const status = JSON.parse(fs.readFileSync(path.join(runDir, 'status.json'), 'utf8'));
    assert.equal(status.status, 'stopped', stderr);
    assert.match(status.reason, /^SIGINT while env Stuck's step\(\) was running \(copy \d\); no checkpoint was written yet$/);

    fs.rmSync(path.join(cwd, 'hanging'));
    fs.writeFileSync(path.join(cwd, 'impatient.rlx'), rlxFile(1));
    const failed = rlx(['train', 'impatient.rlx', '--out', 'out2'], cwd);
    assert.equal(failed.status, 2, failed.stderr);
    assert.match(failed.stderr, /training failed: env Stuck's step\(\) did not return within 1 s \(copy \d; raise env_timeout in the env's body if it needs longer\)\nthe run directory .* is marked failed\n$/);
    const failedDir = path.join(cwd, 'out2', 'Hang', fs.readdirSync(path.join(cwd, 'out2', 'Hang'))[0]);
    assert.equal(JSON.parse(fs.readFileSync(path.join(failedDir, 'status.json'), 'utf8')).status, 'failed');
  });

  it('refuses what is not implemented and GPUs that cannot start, in one message without a stack trace', () => {
    const cwd = tempDir();
    const examples = path.join(repoRoot(), 'examples');
    fs.writeFileSync(path.join(cwd, 'guess.rlx'), [
      'env Guess = GuessNumber {}',
      'policy Tiny = transformer { layers: 1, width: 16, heads: 2 }',
      'reward Long { term a = length(completion) }',
      'experiment X { env: Guess, policy: Tiny, algorithm: GRPO, budget: 1k, reward: Long }',
    ].join('\n'));
    // The policy's context (32 tokens by default) cannot hold a dialogue of 7 turns: known once the env is built.
    const refused = rlx(['train', 'guess.rlx', '--out', 'out'], cwd);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /^rlx train: X, seed 1\nrlx train: policy Tiny: dialogues of 7 turns [^\n]* need a context of 76 tokens, but the policy's context is 32; raise `context` to at least 76\n$/);
    assert.ok(!fs.existsSync(path.join(cwd, 'out')));

    const cuda = rlx(['train', path.join(examples, 'cartpole.rlx'), '--device', 'cuda', '--out', 'out'], cwd);
    if (cuda.status !== 2) return; // a machine where CUDA works: nothing to check here
    assert.match(cuda.stderr, /^rlx train: device cuda cannot start: its provider library is not installed\. Use --device cpu \(or auto\) to train on the CPU; docs\/gpu\.md says how to install the cuda provider's runtime\.\n$/);
    assert.doesNotMatch(cuda.stderr, /\n\s+at /);

    const threads = rlx(['train', path.join(examples, 'cartpole.rlx'), '--threads', '3', '--out', 'out'], cwd);
    assert.equal(threads.status, 2);
    assert.equal(threads.stderr, "rlx train: --threads must be 1 or 2, got '3'\n");

    const bad = rlx(['train', '--resume', cwd], cwd);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /is not a run directory \(no plan\.json in it\)|cannot read the run's plan/);
  });
});
