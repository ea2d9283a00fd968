// A bound on the policy's recorded eval episodes in rollouts/. A run records one at every
// evaluation, so a long run with frequent evaluations wrote thousands (20M steps evaluated every
// 10k: 2,000 files, 222 MB in 4 minutes). Past the cap, rollouts/ keeps the first, the latest
// and a sample spread over the run's steps: each new episode removes the one in between whose
// neighbours lie closest together. The rule reads only the folder, so a resumed run keeps to it.
import * as fs from 'node:fs';
import { framesFolderOf } from './frames.js';
import { listRollouts } from './reader.js';

/** The most eval episodes rollouts/ keeps by default: ~5 MB of CartPole's 500-step episodes. */
export const EVAL_EPISODES_KEPT = 50;

/**
 * Which episodes to remove (indices into `steps`, ascending steps, the latest last) so that at
 * most `cap` remain: never the first or the latest; each time the one whose removal leaves the
 * smallest gap between its neighbours, the older on a tie. Episodes at evenly spaced steps stay
 * about evenly spaced.
 */
export function episodesToRemove(steps: readonly number[], cap: number): number[] {
  const kept = steps.map((step, index) => ({ step, index }));
  const removed: number[] = [];
  while (kept.length > Math.max(cap, 2)) {
    let best = 1;
    for (let i = 2; i < kept.length - 1; i++) {
      if (kept[i + 1]!.step - kept[i - 1]!.step < kept[best + 1]!.step - kept[best - 1]!.step) best = i;
    }
    removed.push(kept[best]!.index);
    kept.splice(best, 1);
  }
  return removed.sort((a, b) => a - b);
}

/** Removes the run's eval episodes beyond `cap` (at least 2: the first and the latest), with their frames; the files removed. */
export function thinEvalEpisodes(runDir: string, cap: number): string[] {
  const episodes = listRollouts(runDir).filter((e) => e.recorded === 'eval');
  const files = episodesToRemove(episodes.map((e) => e.step), cap).map((i) => episodes[i]!.file);
  for (const file of files) {
    fs.rmSync(file, { force: true });
    fs.rmSync(framesFolderOf(file), { recursive: true, force: true });
  }
  return files;
}
