// Messages between the extension (the host) and the dashboard pages: one typed union per
// direction, shared by both sides. The host reads run directories (runtime/run/reader.ts) and
// posts what changed; pages never read files and know no VS Code API beyond postMessage and
// getState/setState.
import type { RolloutHeader, RolloutListing, RolloutStep, RunEvent, RunState, StatusFile } from '../runtime/run/reader.js';

export type { RolloutHeader, RolloutListing, RolloutStep, RunEvent, RunState, StatusFile };

export type PageKind = 'dashboard' | 'compare' | 'rollouts';

/** What a page knows of a run before its events arrive. */
export interface RunSnapshot {
  /** Stable id: the run directory's path relative to the runs folder (`Balance/20261121-...-seed1`). */
  id: string;
  experiment: string;
  runId: string;
  state: RunState;
  status?: StatusFile;
  /** plan.json, when readable (hyperparameters for the comparison table, env kind for drawings). */
  plan?: unknown;
}

export type HostMessage =
  /** The runs this panel shows (replaces the previous list). */
  | { type: 'runs'; runs: RunSnapshot[] }
  /** Events appended to a run's events.jsonl since the last message; `reset` starts the run over. */
  | { type: 'events'; runId: string; events: RunEvent[]; reset?: boolean }
  /** status.json changed. */
  | { type: 'status'; runId: string; state: RunState; status?: StatusFile }
  /** The recorded episodes of a run. */
  | { type: 'rollouts'; runId: string; episodes: RolloutListing[] }
  /** One recorded episode, asked for with `openEpisode`. */
  | { type: 'episode'; runId: string; file: string; header?: RolloutHeader; steps: RolloutStep[]; skipped: number };

export type PageMessage =
  | { type: 'ready'; page: PageKind }
  | { type: 'openEpisode'; runId: string; file: string }
  /** Open a file of the run in an editor (plan.json, an events line...). */
  | { type: 'openFile'; runId: string; relativePath: string }
  | { type: 'error'; message: string };
