// `rlx sweep` with `backend: slurm` where Slurm's commands are stand-ins on PATH: what is
// submitted and recorded, and the messages when sbatch is missing or refuses. Runs everywhere
// (slurm-e2e.test.ts submits to a real cluster).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { repoRoot } from '../helpers/repo.js';
import { GOOD } from './scratch.js';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-slurm-submit-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));
fs.writeFileSync(path.join(work, 'sweep.rlx'), `${GOOD}
sweep Seeds over Balance {
  seeds: [1, 2, 3, 4, 5]
  parallel: 2
  backend: slurm
  slurm { partition: "short", mem: "2G", extra: ["--qos=debug"] }
}
`);

/** A folder of stand-in Slurm commands (shell scripts), each given its text. */
function fakeSlurm(name: string, commands: Record<string, string>): string {
  const bin = path.join(work, name);
  fs.mkdirSync(bin, { recursive: true });
  for (const [command, body] of Object.entries(commands)) {
    fs.writeFileSync(path.join(bin, command), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  }
  return bin;
}

function rlxSweep(pathDirs: string[], ...args: string[]) {
  // PATH holds only the stand-ins (shell scripts run by /bin/sh): no real Slurm is found.
  const r = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), 'sweep', 'sweep.rlx', ...args], {
    cwd: work, encoding: 'utf8', env: { ...process.env, PATH: pathDirs.join(path.delimiter) },
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('rlx sweep, backend: slurm', () => {
  test('writes the array script, submits it and records the job id, saying how to follow and cancel it', () => {
    const bin = fakeSlurm('ok', {
      // Keeps what it was asked for next to the script, answers like `sbatch --parsable` on a named cluster.
      sbatch: `echo "$@" > "${work}/sbatch-args"; echo '4242;lab'`,
      squeue: 'echo "slurm_load_jobs error: Invalid job id specified" >&2; exit 1',
    });
    const r = rlxSweep([bin]);
    assert.equal(r.code, 0, r.stderr);
    const dir = path.join(work, 'runs', 'Seeds', 'slurm');
    const script = path.join(dir, 'array.sbatch');
    assert.equal(fs.readFileSync(path.join(work, 'sbatch-args'), 'utf8').trim(), `--parsable ${script}`);
    const text = fs.readFileSync(script, 'utf8');
    for (const line of ['#SBATCH --array=0-4%2', '#SBATCH --partition=short', '#SBATCH --mem=2G', '#SBATCH --qos=debug']) assert.ok(text.includes(`${line}\n`), line);
    assert.match(text, new RegExp(`train ${path.join(work, 'sweep.rlx').replaceAll('/', '\\/')} --sweep Seeds --member "\\$SLURM_ARRAY_TASK_ID" --out ${path.join(work, 'runs').replaceAll('/', '\\/')}`));
    const record = JSON.parse(fs.readFileSync(path.join(dir, 'job.json'), 'utf8')) as { job_id: string; members: number };
    assert.deepEqual([record.job_id, record.members], ['4242', 5]);
    assert.match(r.stdout, /sweep Seeds: 5 members submitted as Slurm job 4242/);
    assert.match(r.stdout, /rlx sweep sweep\.rlx --sweep Seeds --status/);
    assert.match(r.stdout, /rlx sweep sweep\.rlx --sweep Seeds --cancel/);

    // Slurm forgot the job and no member left a trace: --status says so rather than guessing.
    const status = rlxSweep([bin], '--status');
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /^sweep Seeds: Slurm job 4242, submitted /);
    assert.match(status.stdout, /\n5 members: 5 unknown\n$/);
  });

  test('a second submission is refused while the first job still has tasks queued', () => {
    const bin = fakeSlurm('busy', { sbatch: 'echo 4243', squeue: 'echo "0 RUNNING"; echo "[1-4%2] PENDING"' });
    const r = rlxSweep([bin]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /sweep Seeds already has Slurm job 4242 with 5 tasks in the queue; follow it with --status, or end it with --cancel/);
    const status = rlxSweep([bin], '--status');
    assert.match(status.stdout, /\n0 {2}running\n1 {2}pending\n(.*\n){3}5 members: 1 running, 4 pending\n$/);
  });

  test('--status of a sweep never submitted to Slurm says what --status follows', () => {
    const r = rlxSweep([fakeSlurm('none', {})], '--out', 'never', '--status');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^rlx sweep: no Slurm job recorded in never\/Seeds\/slurm: --status and --cancel follow a sweep submitted with backend: slurm/);
  });

  test('without sbatch on PATH: what it needs and where to get it', () => {
    const r = rlxSweep([fakeSlurm('none', {})], '--out', 'elsewhere');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^rlx sweep: backend: slurm needs Slurm's sbatch on PATH; run rlx on a machine of the cluster \(a login node\).*bash tools\/slurm-local\.sh start/);
    assert.doesNotMatch(r.stderr, /at .*\.js:\d+/, 'no stack trace');
  });

  test('sbatch\'s refusal is shown verbatim', () => {
    const bin = fakeSlurm('refuses', {
      sbatch: 'echo "sbatch: error: invalid partition specified: short" >&2; echo "sbatch: error: Batch job submission failed: Invalid partition name specified" >&2; exit 1',
    });
    const r = rlxSweep([bin], '--out', 'refused');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /sbatch refused the job \(exit 1\):\nsbatch: error: invalid partition specified: short\nsbatch: error: Batch job submission failed: Invalid partition name specified\nthe script is .*array\.sbatch; fix the sweep's slurm \{ \} settings/);
    assert.ok(!fs.existsSync(path.join(work, 'refused', 'Seeds', 'slurm', 'job.json')), 'no job recorded');
  });
});
