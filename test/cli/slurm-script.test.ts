// The Slurm backend's pure parts: the sweep's `slurm { }` settings as the registry completes them,
// the array script written from them (every setting, quoting, extra lines), squeue's answers and
// the members' states. No Slurm needed (slurm-e2e.test.ts runs a real one).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { planFile } from '../../cli/commands/plan.js';
import { UserError } from '../../cli/files.js';
import { parseSqueue } from '../../cli/sweep/slurm/client.js';
import { followCommand } from '../../cli/sweep/slurm/command.js';
import { arraySbatch, sbatchPath, shellQuote, type SlurmArrayJob } from '../../cli/sweep/slurm/script.js';
import { slurmSettings, type SlurmSettings } from '../../cli/sweep/slurm/settings.js';
import { memberStatuses, summarize, type MemberTrace } from '../../cli/sweep/slurm/status.js';
import { GOOD } from './scratch.js';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx slurm script '));
after(() => fs.rmSync(work, { recursive: true, force: true }));

/** The plan's `sweep.slurm` of a sweep with this body, as the compiler completes it from the registry. */
function compiledSlurm(body: string) {
  const file = path.join(work, `s${Math.random().toString(36).slice(2)}.rlx`);
  fs.writeFileSync(file, `${GOOD}sweep S over Balance {\n  seeds: [1, 2, 3]\n  backend: slurm\n${body}\n}\n`);
  return planFile(file, 'S').at(0).sweep!.slurm;
}

function job(settings: SlurmSettings, over: Partial<SlurmArrayJob> = {}): SlurmArrayJob {
  return {
    sweep: 'S', file: '/lab/exp.rlx', members: 6, parallel: 2, settings,
    workDir: '/lab', runsDir: '/lab/runs', logDir: '/lab/runs/S/slurm', node: '/usr/bin/node', rlxBin: '/opt/rlx/bin/rlx.js',
    ...over,
  };
}

const sbatchLines = (script: string) => script.split('\n').filter((l) => l.startsWith('#SBATCH'));

describe('slurm { } settings', () => {
  test('every setting of the block reaches its #SBATCH line', () => {
    const settings = slurmSettings('S', compiledSlurm(`  slurm {
    partition: "gpu"
    time: "02:30:00"
    cpus: 4
    mem: "16G"
    gpus: 1
    account: "rl-lab"
    extra: ["--qos=long", "#SBATCH --constraint=a100"]
  }`));
    assert.deepEqual(sbatchLines(arraySbatch(job(settings))), [
      '#SBATCH --job-name=rlx-S',
      '#SBATCH --array=0-5%2',
      '#SBATCH --chdir=/lab',
      '#SBATCH --output=/lab/runs/S/slurm/member-%a.out',
      '#SBATCH --error=/lab/runs/S/slurm/member-%a.err',
      '#SBATCH --open-mode=append',
      '#SBATCH --requeue',
      '#SBATCH --time=02:30:00',
      '#SBATCH --cpus-per-task=4',
      '#SBATCH --mem=16G',
      '#SBATCH --gpus=1',
      '#SBATCH --partition=gpu',
      '#SBATCH --account=rl-lab',
      '#SBATCH --qos=long',
      '#SBATCH --constraint=a100',
    ]);
  });

  test('without a block: the registry\'s defaults, and no line for what the cluster decides', () => {
    const settings = slurmSettings('S', compiledSlurm(''));
    assert.deepEqual(settings, { partition: undefined, time: '01:00:00', cpus: 2, mem: undefined, gpus: 0, account: undefined, extra: [] });
    const lines = sbatchLines(arraySbatch(job(settings)));
    assert.ok(lines.includes('#SBATCH --time=01:00:00') && lines.includes('#SBATCH --cpus-per-task=2'));
    for (const absent of ['--partition', '--mem', '--gpus', '--account']) assert.ok(!lines.some((l) => l.includes(absent)), absent);
  });

  test('extra lines come last, after the comment that says where they come from', () => {
    const script = arraySbatch(job(slurmSettings('S', compiledSlurm('  slurm { extra: ["--qos=long", "--mail-type=END"] }'))));
    const lines = script.split('\n');
    const at = lines.indexOf("# The sweep's slurm.extra, as written:");
    assert.deepEqual(lines.slice(at + 1, at + 3), ['#SBATCH --qos=long', '#SBATCH --mail-type=END']);
    assert.equal(lines[at + 3], '', 'the extra lines end the #SBATCH header');
  });

  test('Slurm\'s formats are checked, with what to write instead', () => {
    assert.throws(() => slurmSettings('S', compiledSlurm('  slurm { time: "2h" }')),
      (e: Error) => e instanceof UserError && /sweep S: slurm\.time "2h" is not a Slurm time limit; write minutes/.test(e.message));
    assert.throws(() => slurmSettings('S', compiledSlurm('  slurm { mem: "4 GB" }')),
      (e: Error) => e instanceof UserError && /slurm\.mem "4 GB" is not an amount of memory for sbatch; write a whole number with K, M, G or T/.test(e.message));
    // The checker refuses a line break where it is written; a plan written by hand meets the same refusal here.
    assert.throws(() => compiledSlurm('  slurm { extra: ["--qos=long\\nrm -rf /"] }'), /type-mismatch: slurm\.extra is written into one line of the Slurm job script/);
    assert.throws(() => slurmSettings('S', { extra: ['--qos=long\nrm -rf /'] }),
      (e: Error) => e instanceof UserError && /slurm\.extra: .* spans lines; write one sbatch option per string/.test(e.message));
    for (const time of ['90', '30:00', '02:00:00', '1-12', '1-12:00', '7-00:00:00']) assert.equal(slurmSettings('S', { time }).time, time);
  });

  test('a plan written by hand is held to the registry too', () => {
    assert.throws(() => slurmSettings('S', { cpu: 4 }), (e: Error) => e instanceof UserError && /unknown param "cpu" \(did you mean "cpus"\?\)/.test(e.message));
    assert.throws(() => slurmSettings('S', { cpus: 0 }), (e: Error) => e instanceof UserError && /param "cpus" must be/.test(e.message));
  });
});

describe('the array script', () => {
  const defaults = slurmSettings('S', null);

  test('parallel is the array\'s throttle; one CPU per task runs the trainer on one thread', () => {
    const script = arraySbatch(job({ ...defaults, cpus: 1 }, { members: 40, parallel: 8 }));
    assert.ok(sbatchLines(script).includes('#SBATCH --array=0-39%8'));
    assert.match(script, /--member "\$SLURM_ARRAY_TASK_ID" --out \/lab\/runs --threads 1\n/);
  });

  test("rlx sweep's --device and --tensorboard reach every task; a requeued task's resume keeps the device", () => {
    const script = arraySbatch(job({ ...defaults, cpus: 1 }, { device: 'cpu', tensorboard: true }));
    assert.match(script, /--member "\$SLURM_ARRAY_TASK_ID" --out \/lab\/runs --threads 1 --device cpu --tensorboard\n/);
    assert.match(script, /train --resume "\$run_dir" --threads 1 --device cpu\n/);
    assert.doesNotMatch(arraySbatch(job(defaults)), /--device|--tensorboard/, 'nothing when not given: the plan decides');
  });

  test('a sweep that states no parallel leaves the array unthrottled: Slurm gives what it can', () => {
    assert.ok(sbatchLines(arraySbatch(job(defaults, { parallel: undefined }))).includes('#SBATCH --array=0-5'));
  });

  test('paths with blanks and % are quoted for sbatch, whose patterns keep working', () => {
    assert.equal(sbatchPath('/lab/my runs/S/slurm', '/member-%a.out'), '"/lab/my runs/S/slurm/member-%a.out"');
    assert.equal(sbatchPath('/lab/100%/S', '/member-%a.out'), '/lab/100%%/S/member-%a.out');
    assert.equal(sbatchPath('/lab/100% done'), '"/lab/100% done"', '--chdir is no pattern');
    assert.throws(() => sbatchPath('/lab/"quoted"'), /double quote/);
  });

  test('the task runs rlx train with every path reaching it intact, however it is spelled', () => {
    // Run the script's body with bash, rlx replaced by a script that prints what it was given.
    const odd = path.join(work, "it's a $HOME `dir`");
    fs.mkdirSync(odd, { recursive: true });
    const echo = path.join(odd, 'argv.mjs');
    fs.writeFileSync(echo, 'console.log(JSON.stringify(process.argv.slice(2)));\n');
    const script = path.join(odd, 'array.sbatch');
    fs.writeFileSync(script, arraySbatch(job(defaults, {
      file: path.join(odd, 'exp 1.rlx'), runsDir: path.join(odd, 'runs'), logDir: path.join(odd, 'logs'), node: process.execPath, rlxBin: echo,
    })));
    const r = spawnSync('bash', [script], { encoding: 'utf8', env: { ...process.env, SLURM_ARRAY_TASK_ID: '3' } });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), ['train', path.join(odd, 'exp 1.rlx'), '--sweep', 'S', '--member', '3', '--out', path.join(odd, 'runs')]);
  });

  test('a requeued task resumes the run it started when it has a checkpoint', () => {
    const dir = fs.mkdtempSync(path.join(work, 'requeue '));
    const echo = path.join(dir, 'argv.mjs');
    fs.writeFileSync(echo, 'console.log(JSON.stringify(process.argv.slice(2)));\n');
    const runDir = path.join(dir, 'runs', 'Balance', 'run one');
    fs.mkdirSync(path.join(runDir, 'checkpoints'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'logs'));
    fs.writeFileSync(path.join(dir, 'logs', 'member-2.out'), `${runDir}\n`);
    const script = path.join(dir, 'array.sbatch');
    fs.writeFileSync(script, arraySbatch(job(defaults, { logDir: path.join(dir, 'logs'), node: process.execPath, rlxBin: echo })));
    const run = (restarts: string) => JSON.parse(spawnSync('bash', [script], {
      encoding: 'utf8', env: { ...process.env, SLURM_ARRAY_TASK_ID: '2', SLURM_RESTART_COUNT: restarts },
    }).stdout) as string[];
    assert.equal(run('1')[1], '/lab/exp.rlx', 'no checkpoint yet: trains the member afresh');
    fs.writeFileSync(path.join(runDir, 'checkpoints', 'state-512.json'), '{}');
    assert.deepEqual(run('1'), ['train', '--resume', runDir]);
    assert.equal(run('0')[1], '/lab/exp.rlx', 'a first start never resumes');
  });

  test('shell words', () => {
    assert.equal(shellQuote('/usr/bin/node'), '/usr/bin/node');
    assert.equal(shellQuote("a b'c"), `'a b'\\''c'`);
    assert.equal(shellQuote('$HOME'), `'$HOME'`);
  });
});

describe('a hostile value cannot run as a command in the script', () => {
  const defaults = slurmSettings('S', null);
  // Each payload touches a marker file if bash ever runs it; the values come from a cloned spec.
  const marker = path.join(work, 'pwned');
  const payloads = [`$(touch ${marker})`, `\`touch ${marker}\``, `x'; touch ${marker}; '`, `x"; touch ${marker}; "`, `a b $(touch ${marker})`];
  const breaks = ['\n', '\r\n', '\r', '\0'];
  /** Every value of the job that reaches the script, set to `value`. */
  const FIELDS: Record<string, (value: string) => SlurmArrayJob> = {
    partition: (v) => job({ ...defaults, partition: v }),
    account: (v) => job({ ...defaults, account: v }),
    extra: (v) => job({ ...defaults, extra: [`--comment=${v}`] }),
    file: (v) => job(defaults, { file: path.join(work, `${v}.rlx`) }),
    workDir: (v) => job(defaults, { workDir: path.join(work, v) }),
    runsDir: (v) => job(defaults, { runsDir: path.join(work, v) }),
    logDir: (v) => job(defaults, { logDir: path.join(work, v) }),
    device: (v) => job(defaults, { device: v }),
    node: (v) => job(defaults, { node: path.join(work, v) }),
    rlxBin: (v) => job(defaults, { rlxBin: path.join(work, v) }),
  };

  /** Runs the script with bash in a scratch folder where node and rlx do nothing; true when a payload ran. */
  function payloadRan(script: string): boolean {
    fs.rmSync(marker, { force: true });
    const dir = fs.mkdtempSync(path.join(work, 'run-'));
    const file = path.join(dir, 'array.sbatch');
    // The task's last lines exec node: cut them, so that only the header and the set-up run.
    fs.writeFileSync(file, script.replace(/^\s*exec .*$/gm, ':'));
    const syntax = spawnSync('bash', ['-n', file], { encoding: 'utf8' });
    assert.equal(syntax.status, 0, `bash -n: ${syntax.stderr}\n${script}`);
    spawnSync('bash', [file], { cwd: dir, encoding: 'utf8', env: { ...process.env, SLURM_ARRAY_TASK_ID: '0' } });
    return fs.existsSync(marker);
  }

  for (const [field, make] of Object.entries(FIELDS)) {
    test(`${field}: a line break or NUL is refused, naming the field; quotes, $( ), backticks and blanks stay text`, () => {
      for (const br of breaks) {
        const value = `gpu${br}touch ${marker}`;
        assert.throws(() => arraySbatch(make(value)), (e: Error) => e instanceof UserError && /holds a line break or a NUL character/.test(e.message), `${field} ${JSON.stringify(value)}`);
      }
      for (const payload of payloads) {
        if (field === 'extra' || /"/.test(payload) && ['workDir', 'logDir'].includes(field)) continue; // extra is sbatch's own text; " in an #SBATCH path is refused (below)
        const script = arraySbatch(make(payload));
        assert.equal(payloadRan(script), false, `${field} ${JSON.stringify(payload)} ran:\n${script}`);
        // Line by line: the payload is only ever inside a comment or quotes.
        for (const line of script.split('\n').filter((l) => l.includes('touch'))) {
          assert.ok(line.startsWith('#') || /'[^']*touch[^']*'/.test(line) || /"[^"]*touch[^"]*"/.test(line), `${field}: ${line}`);
        }
      }
    });
  }

  test('slurm.extra: quotes and $( ) stay on their #SBATCH line', () => {
    for (const payload of payloads) assert.equal(payloadRan(arraySbatch(FIELDS.extra(payload))), false, payload);
  });

  test('a plan written by hand with a line break in a setting is refused before any script', () => {
    for (const name of ['partition', 'account', 'time', 'mem']) {
      assert.throws(() => slurmSettings('S', { [name]: `gpu\n$(touch ${marker})` }),
        (e: Error) => e instanceof UserError && e.message.startsWith(`sweep S: slurm.${name} "gpu\\n$(touch`) && /holds a line break or a NUL character/.test(e.message), name);
    }
    assert.throws(() => slurmSettings('S', { extra: ['--qos=long\0'] }), (e: Error) => e instanceof UserError && /spans lines/.test(e.message));
  });

  test('a path with a double quote cannot be written into an #SBATCH line: refused with what to do', () => {
    assert.throws(() => arraySbatch(FIELDS.workDir('x"; touch y; "')), (e: Error) => e instanceof UserError && /double quote .*rename the folder/.test(e.message));
  });

  test('the printed follow and cancel hints are quoted for the shell', () => {
    const odd = path.join(process.cwd(), "it's $(touch x) `y`", 'exp 1.rlx');
    const hint = followCommand({ file: odd, sweep: 'S', runsDir: path.join(process.cwd(), 'my runs') }, '--status');
    assert.equal(hint, `rlx sweep ${shellQuote(path.join("it's $(touch x) `y`", 'exp 1.rlx'))} --sweep S --out 'my runs' --status`);
    // bash reads the hint back as the same words.
    const words = spawnSync('bash', ['-c', `printf '%s\\n' ${hint.slice('rlx sweep '.length)}`], { encoding: 'utf8' }).stdout.split('\n').slice(0, -1);
    assert.deepEqual(words, [path.join("it's $(touch x) `y`", 'exp 1.rlx'), '--sweep', 'S', '--out', 'my runs', '--status']);
    assert.equal(followCommand({ file: path.join(process.cwd(), 'exp.rlx'), sweep: 'S', runsDir: path.join(process.cwd(), 'runs') }, '--cancel'), 'rlx sweep exp.rlx --sweep S --cancel');
  });
});

describe('squeue and member states', () => {
  test('squeue lines, with pending tasks still grouped in one record', () => {
    const tasks = parseSqueue('0 RUNNING\n1 RUNNING\n[2-4%2] PENDING\n5,7 PENDING\n\n');
    assert.deepEqual([...tasks], [[0, 'RUNNING'], [1, 'RUNNING'], [2, 'PENDING'], [3, 'PENDING'], [4, 'PENDING'], [5, 'PENDING'], [7, 'PENDING']]);
  });

  test('the queue for the tasks Slurm holds, the run directories for the others', () => {
    const traces: Record<number, MemberTrace> = {
      2: { runDir: '/r/2', runStatus: 'finished' },
      3: { runDir: '/r/3', runStatus: 'failed', runNote: 'env module threw', lastLogLine: 'rlx train: training failed' },
      4: { runDir: '/r/4', runStatus: 'stopped', runNote: 'SIGTERM' },
      5: { runDir: '/r/5', runStatus: 'running', lastLogLine: 'slurmstepd: error: *** JOB 7 CANCELLED DUE TO TIME LIMIT ***' },
      6: { lastLogLine: "rlx train: sweep S has 6 members (0 to 5); there is no member 6" },
      7: {},
    };
    const queue = new Map([[0, 'PENDING'], [1, 'RUNNING']]);
    const statuses = memberStatuses(8, queue, (k) => traces[k] ?? {}, false);
    assert.deepEqual(statuses.map((s) => [s.state, s.detail]), [
      ['pending', undefined],
      ['running', undefined],
      ['finished', undefined],
      ['failed', 'env module threw'],
      ['stopped', 'SIGTERM'],
      ['crashed', 'slurmstepd: error: *** JOB 7 CANCELLED DUE TO TIME LIMIT ***'],
      ['failed', 'rlx train: sweep S has 6 members (0 to 5); there is no member 6'],
      ['unknown', undefined],
    ]);
    assert.equal(summarize(statuses), '8 members: 1 finished, 1 running, 1 pending, 2 failed, 1 stopped, 1 crashed, 1 unknown');
    assert.equal(memberStatuses(8, new Map(), (k) => traces[k] ?? {}, true)[7].state, 'cancelled', 'after --cancel, a task never started was cancelled');
    const requeued = memberStatuses(3, new Map([[2, 'PENDING']]), (k) => traces[k] ?? {}, false)[2];
    assert.deepEqual(requeued, { member: 2, state: 'pending', runDir: '/r/2', detail: 'requeued' }, 'a requeued task waits with the run it will resume');
  });
});
