// CI's backports source comes from the machine's own Debian source (issue 43, item 23): the
// repository names no mirror host, and a machine behind its own mirror gets that mirror.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers/repo.js';

const SCRIPT = path.join(repoRoot(), 'tools', 'debian-backports.sh');

/** Runs the script on an apt folder holding `files` (relative path -> text). */
function backports(files: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-apt-'));
  try {
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
    const r = spawnSync('bash', [SCRIPT, dir], { encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('tools/debian-backports.sh', () => {
  it('takes the mirror and release of a deb822 source, skipping security and updates suites', () => {
    const r = backports({
      'sources.list.d/debian.sources': [
        'Types: deb',
        'URIs: http://mirror.example.org/debian-security',
        'Suites: trixie-security',
        'Components: main',
        '',
        'Types: deb deb-src',
        '# a comment',
        'URIs: https://mirror.example.org/debian',
        'Suites: trixie-updates trixie',
        'Components: main contrib',
      ].join('\n'),
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'deb https://mirror.example.org/debian trixie-backports main\n');
  });

  it('reads the one-line sources.list form, options included, when there is no deb822 file', () => {
    const r = backports({
      'sources.list': '# deb http://old.example.org/debian buster main\ndeb-src http://src.example.org/debian bookworm main\ndeb [signed-by=/k.gpg arch=amd64] http://local.example.org/debian bookworm main\n',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'deb http://local.example.org/debian bookworm-backports main\n');
  });

  it('says in one line what is missing when no Debian release source is configured', () => {
    const r = backports({ 'sources.list': '' });
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /no Debian release source in .*sources\.list/);
  });

  it('is what .ci/run uses: CI names no apt mirror host', () => {
    const ci = fs.readFileSync(path.join(repoRoot(), '.ci', 'run'), 'utf8');
    assert.match(ci, /bash tools\/debian-backports\.sh >/);
    assert.doesNotMatch(ci, /deb\s+https?:\/\//);
  });
});
