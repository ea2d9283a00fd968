// The user errors a hostile run found answered with "internal error ... This is a bug in rlx"
// and exit 70 (issue 30, security item 5): each is the user's to fix, so rlx exits 2 with a
// message that names the file (and the line, where there is one) and what to do. One table:
// what to prepare in a scratch folder, the command, and what the message must say.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { repoRoot } from '../helpers/repo.js';
import { scratch } from './scratch.js';

const { work, rlx, write } = scratch('rlx-user-errors-');

const textSpec = (dataset: string) => `env Sums = TextTask { task: dataset("${dataset}") }
policy Tiny = transformer { layers: 1, width: 16, heads: 2 }
experiment Learn { env: Sums, policy: Tiny, algorithm: GRPO, budget: 64 }
`;
const poleSpec = (experiment = 'Balance') => `env Pole = CartPole { max_steps: 500 }
policy Actor = mlp { hidden: [8] }
experiment ${experiment} { env: Pole, policy: Actor, algorithm: PPO, budget: 1k }
`;
const GOOD_LINE = '{"prompt": "1+1=", "target": "2"}\n';

/** A finished run of a spec (its folder, relative to the scratch folder), copied to `copy` to be damaged. */
const runs = new Map<string, string>();
function runCopy(specText: string, copy: string): string {
  let runDir = runs.get(specText);
  if (!runDir) {
    const file = write(`spec-${runs.size}.rlx`, specText);
    const r = rlx('train', file, '--out', `runs-${runs.size}`);
    assert.equal(r.code, 0, r.stderr);
    runDir = r.stdout.trim().split('\n').at(-1)!;
    runs.set(specText, runDir);
  }
  fs.cpSync(path.join(work, runDir), path.join(work, copy), { recursive: true });
  return copy;
}

/** A dataset case: the file's bytes (or a setup), checked by `rlx check` and refused by `rlx train`. */
function dataset(name: string, prepare: (file: string) => void): () => string[] {
  return () => {
    const dir = path.join(work, name);
    fs.mkdirSync(dir, { recursive: true });
    prepare(path.join(dir, 'data.jsonl'));
    return ['train', write(`${name}/spec.rlx`, textSpec('./data.jsonl'))];
  };
}
const bytes = (text: string | Buffer) => (file: string) => fs.writeFileSync(file, text);

interface Row {
  readonly name: string;
  /** Prepares the scratch folder; returns the rlx command line. */
  readonly prepare: () => string[];
  /** The message (on stderr) must match. */
  readonly says: RegExp;
  /** Where the command runs, relative to the scratch folder. */
  readonly cwd?: string;
}

const ROWS: Row[] = [
  { name: 'malformed dataset', prepare: dataset('malformed', bytes(`${GOOD_LINE}{"prompt": "1+2=", target: "3"}\n`)), says: /\.\/data\.jsonl line 2: not valid JSON( \(at character \d+\))?; each line must be one JSON object like/ },
  { name: 'missing-field dataset', prepare: dataset('missing-field', bytes(`${GOOD_LINE}{"prompt": "1+2="}\n`)), says: /\.\/data\.jsonl line 2: no "target" field; each line must be/ },
  { name: 'wrong-type dataset', prepare: dataset('wrong-type', bytes(`${GOOD_LINE}{"prompt": "1+2=", "target": 3}\n`)), says: /\.\/data\.jsonl line 2: "target" must be a string, got a number/ },
  { name: 'empty dataset', prepare: dataset('empty', bytes('')), says: /\.\/data\.jsonl: no examples \(the file is empty or blank\); each line must be/ },
  { name: 'blank dataset', prepare: dataset('blank', bytes('\n   \n\t\n')), says: /\.\/data\.jsonl: no examples \(the file is empty or blank\)/ },
  { name: 'array dataset', prepare: dataset('array', bytes(`[${GOOD_LINE.trim()}]\n`)), says: /\.\/data\.jsonl line 1: expected an object with "prompt" and "target", got a list/ },
  { name: 'directory dataset', prepare: dataset('directory', (file) => fs.mkdirSync(file)), says: /cannot read '\.\/data\.jsonl': it is a folder, not a file/ },
  { name: 'ELOOP dataset (a link to itself)', prepare: dataset('eloop', (file) => fs.symlinkSync('data.jsonl', file)), says: /cannot read '\.\/data\.jsonl': too many levels of symbolic links/ },
  // EIO cannot be made without a failing disk; it takes the ELOOP path (shared/input-files.ts names it "an input/output error").
  { name: 'CR-only dataset after a bad line', prepare: dataset('cr-only', bytes(`${GOOD_LINE}{"prompt": 3, "target": "x"}\n`.replace(/\n/g, '\r'))), says: /\.\/data\.jsonl line 2: "prompt" must be a string, got a number/ },
  { name: 'mid-file BOM dataset', prepare: dataset('bom', bytes(`${GOOD_LINE}\uFEFF{"prompt": "1+2=", "target": "3"}\n`)), says: /\.\/data\.jsonl line 2: starts with a byte-order mark \(U\+FEFF\), as where two files were joined together; remove it/ },
  { name: '__proto__ key in a dataset', prepare: dataset('proto', bytes(`${GOOD_LINE}{"__proto__": {"prompt": "1+2=", "target": "3"}}\n`)), says: /\.\/data\.jsonl line 2: no "prompt" field/ },
  {
    name: 'corrupted policy in eval (a numeric run)',
    prepare: () => {
      const run = runCopy(poleSpec(), 'damaged-pole');
      const policy = path.join(work, run, 'checkpoints', 'policy-final.onnx');
      // A copy outside the run has no recorded sha256 (a damaged file inside it is refused by that check first).
      fs.writeFileSync(path.join(work, 'damaged-pole.onnx'), fs.readFileSync(policy).subarray(0, 500)); // cut short, as by a full disk
      return ['eval', run, '--checkpoint', 'damaged-pole.onnx'];
    },
    says: /damaged-pole\.onnx is not a model onnxruntime can load \(.*\); it may be damaged or cut short: name another checkpoint with --checkpoint FILE, or train again/,
  },
  {
    name: 'corrupted policy in eval (a text run)',
    prepare: () => {
      write('sums.jsonl', Array.from({ length: 20 }, (_, i) => `{"prompt": "${i}+1=", "target": "${i + 1}"}`).join('\n'));
      const run = runCopy(textSpec('./sums.jsonl'), 'damaged-text');
      fs.writeFileSync(path.join(work, 'damaged-text.onnx'), 'not a model');
      return ['eval', run, '--checkpoint', 'damaged-text.onnx'];
    },
    says: /damaged-text\.onnx has no rlx metadata .*; it may be damaged or cut short: name another checkpoint/,
  },
  {
    name: 'truncated plan.json in eval',
    prepare: () => {
      const run = runCopy(poleSpec(), 'truncated-eval');
      const plan = path.join(work, run, 'plan.json');
      fs.writeFileSync(plan, fs.readFileSync(plan).subarray(0, 100));
      return ['eval', run];
    },
    says: /the run's plan \(plan\.json\) .*truncated-eval\/plan\.json is not valid JSON: .* \(cut short by a full disk or a copy\? restore it from a copy of the run\)/,
  },
  {
    name: 'truncated plan.json in train --resume',
    prepare: () => {
      const run = runCopy(poleSpec(), 'truncated-resume');
      const plan = path.join(work, run, 'plan.json');
      fs.writeFileSync(plan, fs.readFileSync(plan).subarray(0, 100));
      return ['train', '--resume', run];
    },
    says: /the run's plan \(plan\.json\) .*truncated-resume\/plan\.json is not valid JSON/,
  },
  {
    name: 'truncated plan.json in train --plan',
    prepare: () => {
      const plan = rlx('plan', write('plan-source.rlx', poleSpec())).stdout;
      return ['train', '--plan', write('truncated.json', plan.slice(0, 100))];
    },
    says: /the plan truncated\.json is not valid JSON/,
  },
  {
    name: 'a 301-character experiment name (ENAMETOOLONG)',
    prepare: () => ['train', write('long.rlx', poleSpec('E'.repeat(301))), '--out', 'runs-long'],
    says: /cannot mkdir 'runs-long\/E{301}': a folder name in the path is too long for the file system \(ENAMETOOLONG\); shorten the experiment's \(or sweep's\) name, which names its run folders, or the --out path/,
  },
  {
    name: 'a working directory with a newline',
    cwd: 'new\nline',
    prepare: () => {
      write('new\nline/spec.rlx', textSpec('./data.jsonl'));
      write('new\nline/data.jsonl', `${GOOD_LINE}{"prompt": "1+2="}\n`);
      return ['train', 'spec.rlx'];
    },
    says: /\.\/data\.jsonl line 2: no "target" field/,
  },
];

describe('user errors exit 2 with the file, the line and what to do (issue 30 security item 5)', () => {
  for (const row of ROWS) {
    test(row.name, () => {
      const args = row.prepare();
      const cwd = path.join(work, row.cwd ?? '.');
      const r = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), ...args], { cwd, encoding: 'utf8', timeout: 120_000 });
      assert.doesNotMatch(r.stderr, /internal error|This is a bug/, r.stderr);
      assert.equal(r.status, 2, `${args.join(' ')}\n${r.stderr}`);
      assert.match(r.stderr, row.says);
    });
  }

  test('a CR-only dataset (old Mac line ends) and one in a folder with a newline train', () => {
    const lines = Array.from({ length: 20 }, (_, i) => `{"prompt": "${i}+2=", "target": "${i + 2}"}`);
    write('mac/data.jsonl', lines.join('\r') + '\r');
    const r = rlx('train', write('mac/spec.rlx', textSpec('./data.jsonl')), '--out', 'runs-mac');
    assert.equal(r.code, 0, r.stderr);
    write('new\nline/ok/data.jsonl', lines.join('\n'));
    const inside = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), 'train', write('new\nline/ok/spec.rlx', textSpec('./data.jsonl')).slice('new\nline/'.length), '--out', 'runs'], { cwd: path.join(work, 'new\nline'), encoding: 'utf8', timeout: 120_000 });
    assert.equal(inside.status, 0, inside.stderr);
  });
});

// The scratch folder is under the system's temporary folder; nothing here may touch the user's home.
assert.ok(work.startsWith(os.tmpdir()));
