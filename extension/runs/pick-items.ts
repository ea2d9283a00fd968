// The rows of the run picker (Open Dashboard, Compare, ... without a run chosen in the Runs view):
// a quick pick shows no tree, so each row carries all that tells it apart: the experiment, when it
// started and its seed, its state in words (a failed or crashed run marked by its icon), and its
// folder name. Pure, so the rows are tested without an editor.
import type { RunInfo, RunState } from '../../runtime/run/reader.js';
import { describeRun, runSeed, startedAt, stateWord } from './describe.js';

export interface RunPickItem {
  readonly label: string;
  readonly description: string;
  /** The run's folder name (its id), on a line of its own. */
  readonly detail: string;
  readonly dir: string;
  readonly picked: boolean;
}

/** Codicons a quick pick draws in a label (`$(name)`): the Runs view's, for the states a user must not miss. */
const MARKS: Partial<Record<RunState, string>> = { running: '$(sync~spin) ', failed: '$(error) ', crashed: '$(warning) ', stopped: '$(debug-stop) ' };

/** One row per run, newest first as given; `preselected` rows start picked (a multi-select). */
export function runPickItems(runs: readonly RunInfo[], preselected: readonly string[] = [], now: number = Date.now()): RunPickItem[] {
  return runs.map((run) => {
    const seed = runSeed(run);
    const { description } = describeRun(run, now);
    const state = run.state === 'unknown' ? 'Unknown state' : stateWord(run.state);
    return {
      label: `${MARKS[run.state] ?? ''}${[run.experiment, run.status ? startedAt(run) : undefined, seed !== undefined ? `seed ${seed}` : undefined].filter(Boolean).join(' · ')}`,
      description: [state, description].filter(Boolean).join(' · '),
      detail: run.runId,
      dir: run.dir,
      picked: preselected.includes(run.dir),
    };
  });
}
