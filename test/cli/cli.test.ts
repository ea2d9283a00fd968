// The rlx command line as a user meets it: output formats, exit codes, and clear messages for
// files that cannot be used.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { repoRoot } from '../helpers/repo.js';
import { GOOD, scratch } from './scratch.js';

const { work, rlx, write } = scratch('rlx-cli-');

describe('rlx check', () => {
  test('a clean file: exit 0 and a summary', () => {
    const r = rlx('check', write('good.rlx', GOOD));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /0 errors, 0 warnings in 1 file/);
  });

  test('errors as file:line:col: severity code: message, exit 1', () => {
    const file = write('bad.rlx', GOOD.replace('policy: Actor', 'policy: Pole').replace('max_steps: 500', 'max_step: 500'));
    const r = rlx('check', file);
    assert.equal(r.code, 1);
    assert.deepEqual(r.stdout.trim().split('\n'), [
      "bad.rlx:1:23: error unknown-property: CartPole has no property 'max_step'; did you mean 'max_steps'? Valid properties: max_steps, gravity, cart_mass, pole_mass, pole_half_length, force, tau",
      "bad.rlx:4:41: error wrong-kind: 'Pole' is an env, but policy needs a policy",
    ]);
    assert.match(r.stderr, /2 errors, 0 warnings in 1 file/);
  });

  test('warnings alone exit 0', () => {
    const r = rlx('check', write('warn.rlx', GOOD.replace('linear(2.5e-4, 0)', '0.5')));
    assert.equal(r.code, 0);
    assert.match(r.stdout, /warn\.rlx:3:40: warning suspicious-value: learning_rate = 0\.5 is unusual/);
  });

  test('--json gives machine-readable diagnostics with ranges and fixes', () => {
    const r = rlx('check', '--json', write('json.rlx', GOOD.replace('gamma', 'x').replace('PPO {', 'PPO { gamma: 1.5,')));
    assert.equal(r.code, 1);
    const out = JSON.parse(r.stdout);
    assert.equal(out.errors, 1);
    const d = out.diagnostics[0];
    assert.deepEqual([d.file, d.line, d.column, d.endLine, d.endColumn, d.severity, d.code], ['json.rlx', 3, 32, 3, 35, 'error', 'out-of-range']);
    assert.equal(d.fixes[0].title, 'Clamp to 1');
  });

  test('a directory is expanded to its .rlx files; an empty one is an error', () => {
    write('dir/a.rlx', GOOD);
    write('dir/sub/b.rlx', 'env X = CartPole {}\n');
    const r = rlx('check', 'dir');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stderr, /in 2 files/);
    fs.mkdirSync(path.join(work, 'empty-dir'));
    const e = rlx('check', 'empty-dir');
    assert.equal(e.code, 2);
    assert.match(e.stderr, /'empty-dir' is a directory with no \.rlx files in it/);
  });

  test('clear messages for a missing file, a non-UTF-8 file and an empty file; never a stack trace', () => {
    const missing = rlx('check', 'nope.rlx');
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr, "rlx check: cannot read 'nope.rlx': no such file or directory\n");
    const latin1 = rlx('check', write('latin1.rlx', Buffer.from([0x2f, 0x2f, 0x20, 0x63, 0x61, 0x66, 0xe9, 0x0a])));
    assert.equal(latin1.code, 2);
    assert.equal(latin1.stderr, "rlx check: 'latin1.rlx' is not UTF-8 text (invalid byte 0xe9 at offset 6); save it as UTF-8\n");
    const empty = rlx('check', write('empty.rlx', ''));
    assert.equal(empty.code, 0);
    assert.match(empty.stderr, /empty\.rlx: note: the file is empty; there is nothing to check/);
    for (const r of [missing, latin1, empty]) assert.doesNotMatch(r.stderr, /\n\s+at /);
  });

  test('diagnostics of imported files are reported with their own paths', () => {
    write('lib/parts.rlx', 'env Pole = CartPole { gravity: -1 }\n');
    const r = rlx('check', write('uses.rlx', 'import "./lib/parts.rlx"\n'));
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^lib\/parts\.rlx:1:32: error out-of-range: gravity must be > 0 and <= 100; found -1$/m);
  });
});

describe('rlx fmt', () => {
  const messy = 'env Pole=CartPole{max_steps:500,gravity:9.8}\n';
  const tidy = 'env Pole = CartPole { max_steps: 500, gravity: 9.8 }\n';

  test('--check lists unformatted files and exits 1 without touching them', () => {
    const file = write('fmt-check.rlx', messy);
    const r = rlx('fmt', '--check', file);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, 'fmt-check.rlx\n');
    assert.equal(fs.readFileSync(path.join(work, file), 'utf8'), messy);
  });

  test('--stdout prints the formatted text', () => {
    const r = rlx('fmt', '--stdout', write('fmt-stdout.rlx', messy));
    assert.equal(r.code, 0);
    assert.equal(r.stdout, tidy);
  });

  test('rewrites in place, and then --check is clean', () => {
    const file = write('fmt-place.rlx', messy);
    assert.equal(rlx('fmt', file).code, 0);
    assert.equal(fs.readFileSync(path.join(work, file), 'utf8'), tidy);
    assert.equal(rlx('fmt', '--check', file).code, 0);
    assert.deepEqual(fs.readdirSync(work).filter((f) => f.includes('.tmp')), [], 'no temporary file left behind');
  });

  test('a CRLF file keeps its line breaks: formatted, --check accepts it; rewritten, it stays CRLF', () => {
    assert.equal(rlx('fmt', '--check', write('fmt-crlf-tidy.rlx', tidy.replace(/\n/g, '\r\n'))).code, 0);
    const file = write('fmt-crlf.rlx', 'algorithm T = PPO {\r\nepochs:4}\r\n');
    assert.equal(rlx('fmt', file).code, 0);
    assert.equal(fs.readFileSync(path.join(work, file), 'utf8'), 'algorithm T = PPO {\r\n  epochs: 4\r\n}\r\n');
  });

  test('refuses a file with syntax errors and leaves it alone', () => {
    const broken = 'env Pole = CartPole { max_steps: 500\n';
    const file = write('fmt-broken.rlx', broken);
    const r = rlx('fmt', file);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /fmt-broken\.rlx: not formatted: .*syntax error/);
    assert.equal(fs.readFileSync(path.join(work, file), 'utf8'), broken);
  });
});

describe('rlx plan', () => {
  test('prints the plan JSON, byte-identical across runs', () => {
    const file = write('plan.rlx', GOOD);
    const a = rlx('plan', file);
    const b = rlx('plan', file);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(a.stdout, b.stdout);
    const plan = JSON.parse(a.stdout);
    assert.equal(plan.experiment, 'Balance');
    assert.equal(plan.stages[0].budget, 10_000);
  });

  test('a file with errors: the errors are listed, exit 2', () => {
    const r = rlx('plan', write('plan-bad.rlx', GOOD.replace('budget: 10k', 'budget: 0')));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /plan-bad\.rlx has 1 error; fix it first/);
    assert.match(r.stderr, /plan-bad\.rlx:4:\d+: out-of-range: budget must be >= 1/);
  });

  test('the hint repeats the path as it was given, not its base name (issue 30 item 7)', () => {
    const bad = GOOD.replace('budget: 10k', 'budget: 0');
    const nested = write('specs/e6.rlx', bad);
    const absolute = path.join(work, nested);
    const spaced = write('my specs/e6.rlx', bad);
    for (const [given, hint] of [[absolute, absolute], [nested, nested], [spaced, "'my specs/e6.rlx'"]]) {
      for (const command of ['plan', 'train']) {
        const r = rlx(command, given);
        assert.equal(r.code, 2, r.stderr);
        assert.ok(r.stderr.includes(`e6.rlx has 1 error; fix it first (rlx check ${hint})`), `${command} ${given}: ${r.stderr}`);
      }
    }
  });

  test('a directory is refused with a clear message', () => {
    const r = rlx('plan', 'dir');
    assert.equal(r.code, 2);
    assert.equal(r.stderr, "rlx plan: 'dir' is a directory; name an .rlx file in it\n");
  });
});

describe('rlx', () => {
  test('help, version and unknown commands', () => {
    assert.match(rlx('--help').stdout, /commands:\n\s+check/);
    assert.match(rlx('--version').stdout, /^\d+\.\d+\.\d+\n$/);
    const unknown = rlx('frobnicate');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command 'frobnicate'/);
    const badFlag = rlx('check', '--nope', 'x.rlx');
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.stderr, /Unknown option '--nope'[\s\S]*usage: rlx check/);
  });
});

describe('a fresh checkout', () => {
  test('bin/rlx.js before `npm run build`: says what to run, not a stack trace', () => {
    const checkout = path.join(work, 'unbuilt');
    fs.mkdirSync(path.join(checkout, 'bin'), { recursive: true });
    fs.copyFileSync(path.join(repoRoot(), 'bin', 'rlx.js'), path.join(checkout, 'bin', 'rlx.js'));
    fs.writeFileSync(path.join(checkout, 'package.json'), '{ "type": "module" }\n');
    const r = spawnSync(process.execPath, [path.join(checkout, 'bin', 'rlx.js'), '--version'], { encoding: 'utf8' });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, 'rlx: not built yet (no out/cli/run.js); run `npm run build` in the rlx folder first\n');
  });

  test("npm prints no warnings about the project's .npmrc (every npm command in the folder read it)", (t) => {
    const npm = spawnSync('npm', ['pkg', 'get', 'name'], { cwd: repoRoot(), encoding: 'utf8' });
    if (npm.error) return t.skip(`npm is not available: ${npm.error.message}`);
    assert.equal(npm.status, 0, npm.stderr);
    assert.deepEqual(npm.stderr.split('\n').filter((l) => l.startsWith('npm warn')), []);
  });
});
