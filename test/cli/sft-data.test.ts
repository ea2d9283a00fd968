// SFT's `data: "file.jsonl"` as a user runs it: `rlx check` reads the file where the spec names
// it (a missing file, a folder, a FIFO, a file too large or a bad line is an error at the value),
// `rlx train` trains on it and keeps a copy in the run folder (data/, with its sha256), and a
// resume, or a new run from the run's plan.json, reads that copy once the original is gone.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { readEvents } from '../../runtime/run/events.js';
import { repoRoot } from '../helpers/repo.js';
import { scratch } from './scratch.js';

const { rlx, write, work } = scratch('rlx-sft-data-');

/** The hf-tiny Qwen2 model folder, copied into the scratch folder once. */
function model(): string {
  const from = path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2');
  const dir = path.join(work, 'models', 'qwen2');
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir, { recursive: true });
    for (const file of fs.readdirSync(from)) fs.copyFileSync(path.join(from, file), path.join(dir, file));
  }
  return './models/qwen2';
}

const spec = (data: string, updates = 3) => `env Sums = TextTask { task: addition(digits: 1) }
policy Base = pretrained("${model()}")
experiment Warm { env: Sums, policy: Base, stage sft = SFT { updates: ${updates}, batch_size: 2, data: ${data} } }
`;

/** Long answers: the env's own demonstrations (one-digit sums) have one or two tokens of answer. */
const DEMOS = Array.from({ length: 8 }, (_, a) => JSON.stringify({ prompt: `Say ${a} in words.`, target: `The number ${a}, written out in plain English words for you.` })).join('\n') + '\n';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const runsUnder = (out: string) => fs.readdirSync(path.join(work, out, 'Warm')).map((d) => path.join(work, out, 'Warm', d));
const metrics = (runDir: string) => readEvents(path.join(runDir, 'events.jsonl')).filter((e) => e.type === 'metrics').map((e) => e.values as Record<string, number>);

/** The data files a run folder records (data/files.json). */
const manifest = (runDir: string) => JSON.parse(fs.readFileSync(path.join(runDir, 'data', 'files.json'), 'utf8')) as { files: { stage: string; param: string; path: string; file: string; sha256: string; bytes: number }[] };

/** Starts `rlx ARGS`, sends SIGTERM once `ready()` holds, and waits for it to exit (or for it to exit by itself). */
async function terminateWhen(args: string[], ready: () => boolean) {
  const child = spawn(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), ...args], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  let exited: number | null | undefined;
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve((exited = code))));
  const start = Date.now();
  while (exited === undefined && !ready()) {
    if (Date.now() - start > 60_000) child.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (exited === undefined) child.kill('SIGTERM');
  return { code: await exit, stderr };
}

describe('SFT data from a file', () => {
  test('rlx check reads the file where the spec names it, and reports what is wrong at the value', () => {
    write('demos.jsonl', DEMOS);
    const clean = rlx('check', write('good.rlx', spec('"demos.jsonl"')));
    assert.equal(clean.code, 0, clean.stdout + clean.stderr);

    const at = (name: string, data: string, message: RegExp) => {
      const checked = rlx('check', write(name, spec(data)));
      assert.equal(checked.code, 1, `${name}: ${checked.stdout}${checked.stderr}`);
      assert.match(checked.stdout + checked.stderr, new RegExp(`${name.replace('.', '\\.')}:3:\\d+.*error.*${message.source}`));
    };
    at('missing.rlx', '"nope.jsonl"', /cannot read 'nope\.jsonl': no such file.*data paths are relative to this file/);
    fs.mkdirSync(path.join(work, 'folder.jsonl'), { recursive: true });
    at('folder.rlx', '"folder.jsonl"', /cannot read 'folder\.jsonl': it is a folder, not a file/);
    if (spawnSync('mkfifo', [path.join(work, 'fifo.jsonl')]).status === 0) at('fifo.rlx', '"fifo.jsonl"', /cannot read 'fifo\.jsonl': it is not a regular file/);
    const large = path.join(work, 'large.jsonl');
    fs.writeFileSync(large, '');
    fs.truncateSync(large, 513 * 2 ** 20); // sparse: nothing is written
    at('large.rlx', '"large.jsonl"', /'large\.jsonl' is 513\.0 MiB, more than the 512 MiB rlx reads/);
    write('bad.jsonl', '{"prompt": "1+1=", "target": "2"}\n{"prompt": "1+2="}\n');
    at('bad.rlx', '"bad.jsonl"', /bad\.jsonl line 2: no "target" field/);
    at('outside.rlx', '"../demos.jsonl"', /'\.\.\/demos\.jsonl' is outside the folder of this file/);
  });

  test('rlx train trains on the file, and keeps a copy of it with its sha256 in the run folder', () => {
    write('demos.jsonl', DEMOS);
    const trained = rlx('train', write('train.rlx', spec('"demos.jsonl"')), '--out', 'runs-train');
    assert.equal(trained.code, 0, trained.stderr);
    const [runDir] = runsUnder('runs-train');
    const record = manifest(runDir!);
    assert.deepEqual(record.files.map((f) => [f.stage, f.param, f.path, f.file]), [['sft', 'data', 'demos.jsonl', 'data/sft.data.jsonl']]);
    assert.equal(fs.readFileSync(path.join(runDir!, 'data', 'sft.data.jsonl'), 'utf8'), DEMOS);
    assert.equal(record.files[0]!.sha256, sha256(DEMOS));
    const hparams = readEvents(path.join(runDir!, 'events.jsonl')).find((e) => e.type === 'hparams')!;
    assert.deepEqual((hparams.values as Record<string, unknown>).data_files, { data: { path: 'demos.jsonl', file: 'data/sft.data.jsonl', sha256: sha256(DEMOS) } });
    const ms = metrics(runDir!);
    assert.equal(ms.length, 3);
    // Two of the file's long answers an update, not two one-digit sums.
    assert.ok(ms.every((m) => m['charts/tokens']! >= 20 && Number.isFinite(m['losses/sft_loss'])), JSON.stringify(ms.map((m) => m['charts/tokens'])));
  });

  test('a resume, and a new run from a run\'s plan.json, read the run\'s copy once the original is gone', async () => {
    write('demos.jsonl', DEMOS);
    const specFile = write('long.rlx', spec('"demos.jsonl"', 100_000));
    const runDir = () => (fs.existsSync(path.join(work, 'runs-resume', 'Warm')) ? runsUnder('runs-resume')[0] : undefined);
    const first = await terminateWhen(['train', specFile, '--out', 'runs-resume'], () => runDir() !== undefined && fs.existsSync(path.join(runDir()!, 'events.jsonl')) && metrics(runDir()!).length >= 1);
    assert.equal(first.code, 143, first.stderr);
    const dir = runDir()!;
    fs.rmSync(path.join(work, 'demos.jsonl'));

    const before = metrics(dir).length;
    const resumed = await terminateWhen(['train', '--resume', dir], () => metrics(dir).length > before);
    assert.equal(resumed.code, 143, resumed.stderr);
    assert.ok(metrics(dir).length > before, 'the resumed run trained');

    // A copy of the run folder elsewhere, its plan trained as a new run: its own copy is read.
    const copied = path.join(work, 'copied-run');
    fs.cpSync(dir, copied, { recursive: true });
    const plan = JSON.parse(fs.readFileSync(path.join(copied, 'plan.json'), 'utf8'));
    plan.stages[0].algorithm.params.updates = 2;
    fs.writeFileSync(path.join(copied, 'plan.json'), JSON.stringify(plan));
    const again = rlx('train', '--plan', path.join('copied-run', 'plan.json'), '--out', 'runs-again');
    assert.equal(again.code, 0, again.stderr);
    const [newRun] = runsUnder('runs-again');
    assert.equal(fs.readFileSync(path.join(newRun!, 'data', 'sft.data.jsonl'), 'utf8'), DEMOS);
  });

  test('a file named in an imported .rlx file is relative to that file, in rlx check and in the plan', () => {
    write('lib/pairs.jsonl', DEMOS);
    write('lib/algos.rlx', 'algorithm Warm = SFT { data: "pairs.jsonl", updates: 2, batch_size: 2 }\n');
    const main = write('imports.rlx', `import "./lib/algos.rlx"\nenv Sums = TextTask { task: addition(digits: 1) }\npolicy Base = pretrained("${model()}")\nexperiment Warm2 { env: Sums, policy: Base, algorithm: Warm, budget: 4 }\n`);
    const checked = rlx('check', main);
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    const plan = rlx('plan', main);
    assert.equal(plan.code, 0, plan.stderr);
    assert.equal(JSON.parse(plan.stdout).stages[0].algorithm.params.data, 'lib/pairs.jsonl');
  });

  test('a plan naming a file that is not there is refused before a run folder is made, in one line', () => {
    const plan = rlx('plan', write('plan.rlx', spec('demos')));
    assert.equal(plan.code, 0, plan.stderr);
    const edited = JSON.parse(plan.stdout) as { stages: { algorithm: { params: Record<string, unknown> } }[] };
    edited.stages[0]!.algorithm.params.data = 'gone.jsonl';
    const trained = rlx('train', '--plan', write('gone.json', JSON.stringify(edited)), '--out', 'runs-gone');
    assert.equal(trained.code, 2, trained.stderr);
    assert.match(trained.stderr, /^rlx train: stage sft: data "gone\.jsonl": cannot read the data file \S*gone\.jsonl: no such file; paths are relative to the folder of the \.rlx file$/m);
    assert.doesNotMatch(trained.stderr, /internal error|\n\s+at /, 'no stack trace');
    assert.equal(fs.existsSync(path.join(work, 'runs-gone')), false);
  });
});
