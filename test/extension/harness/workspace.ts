// A fresh workspace folder for one editor test run, inside the repository's git-ignored .tmp/
// (never the repository itself: the suites write specs and runs into it).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { processAlive } from '../../../runtime/run/lock.js';
import { examplesDir, repoRoot } from '../../helpers/repo.js';

export interface TestDirs {
  /** Everything of this run: home, user data, extensions, workspace, results. */
  root: string;
  workspace: string;
}

export function makeTestDirs(label: string): TestDirs {
  const base = path.join(repoRoot(), '.tmp', 'editor-tests');
  fs.mkdirSync(base, { recursive: true });
  const root = fs.mkdtempSync(path.join(base, `${label}-`));
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
  fs.cpSync(examplesDir(), path.join(workspace, 'examples'), { recursive: true });
  fs.writeFileSync(
    path.join(workspace, '.vscode', 'settings.json'),
    JSON.stringify(
      {
        'rlx.train.device': 'cpu',
        'rlx.train.maxParallel': 2,
        // Quiet, predictable workbench for the screenshot.
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'extensions.ignoreRecommendations': true,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'window.commandCenter': false,
        'chat.commandCenter.enabled': false,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        // The workspace lies inside this repository's .tmp: no "open the parent repository?".
        'git.openRepositoryInParentFolders': 'never',
        'git.enabled': false,
      },
      null,
      2,
    ),
  );
  return { root, workspace };
}

/** Sends SIGTERM to trainers a failed run left behind (they are detached from the editor). */
export function stopLeftoverTrainers(workspace: string): number {
  const runs = path.join(workspace, 'runs');
  let stopped = 0;
  for (const experiment of safeList(runs)) {
    for (const id of safeList(path.join(runs, experiment))) {
      try {
        const status = JSON.parse(fs.readFileSync(path.join(runs, experiment, id, 'status.json'), 'utf8')) as { status: string; pid: number };
        if (status.status === 'running' && processAlive(status.pid)) {
          process.kill(status.pid, 'SIGTERM');
          stopped++;
        }
      } catch {
        // no status yet, or gone
      }
    }
  }
  return stopped;
}

function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** Keeps the last few test runs' folders (for looking at logs), removing older ones. */
export function pruneOldRuns(keep = 4): void {
  const base = path.join(repoRoot(), '.tmp', 'editor-tests');
  const entries = safeList(base)
    .map((name) => ({ name, mtime: fs.statSync(path.join(base, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of entries.slice(keep)) fs.rmSync(path.join(base, old.name), { recursive: true, force: true });
}
