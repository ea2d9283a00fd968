// Which runs a panel showed before a window reload. The page keeps the run ids in its webview
// state (`{ runs: ["Balance/20261121-...-seed1"] }`, ids relative to a runs folder); the host
// also remembers panels by view type and title in the workspace state, for pages that keep
// other state. Pure: tested.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface RememberedPanel {
  viewType: string;
  title: string;
  runDirs: string[];
}

/** The run directories to show again, or an empty list when none of them exists any more. */
export function restoreRunDirs(
  viewType: string,
  title: string,
  state: unknown,
  remembered: readonly RememberedPanel[],
  runsRoots: readonly string[],
): string[] {
  const ids = idsOf(state);
  if (ids.length > 0) {
    const dirs = ids.flatMap((id) => {
      const found = runsRoots.map((root) => path.resolve(root, id)).find((dir, i) => isInside(runsRoots[i], dir) && fs.existsSync(dir));
      return found ? [found] : [];
    });
    if (dirs.length > 0) return dirs;
  }
  const entry = remembered.find((p) => p.viewType === viewType && p.title === title);
  return (entry?.runDirs ?? []).filter((dir) => fs.existsSync(dir));
}

function idsOf(state: unknown): string[] {
  if (state === null || typeof state !== 'object') return [];
  const runs = (state as { runs?: unknown }).runs;
  return Array.isArray(runs) ? runs.filter((r): r is string => typeof r === 'string' && /^[^/\\]+\/[^/\\]+$/.test(r)) : [];
}

function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** The remembered list with one panel's runs set (or removed, when `runDirs` is undefined). */
export function rememberPanel(list: readonly RememberedPanel[], viewType: string, title: string, runDirs: readonly string[] | undefined): RememberedPanel[] {
  const rest = list.filter((p) => !(p.viewType === viewType && p.title === title));
  return runDirs ? [...rest, { viewType, title, runDirs: [...runDirs] }].slice(-50) : rest;
}
