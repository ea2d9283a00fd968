// Messages between the extension (the host) and the dashboard pages: one typed union per
// direction, shared by both sides. The host reads run directories (runtime/run/reader.ts) and
// posts what changed; pages never read files and know no VS Code API beyond postMessage and
// getState/setState.
import type {
  RolloutContents,
  RolloutHeader,
  RolloutListing,
  RolloutStep,
  RunEvent,
  RunState,
  StatusFile,
  TextGroup,
  TextRolloutHeader,
  TextSample,
} from '../runtime/run/reader.js';

export type { RolloutContents, RolloutHeader, RolloutListing, RolloutStep, RunEvent, RunState, StatusFile, TextGroup, TextRolloutHeader, TextSample };

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

/** In both unions, `runId` is a RunSnapshot's `id` (its path relative to the runs folder). */
export type HostMessage =
  /** The runs this panel shows (replaces the previous list). */
  | { type: 'runs'; runs: RunSnapshot[] }
  /** Events appended to a run's events.jsonl since the last message; `reset` starts the run over. */
  | { type: 'events'; runId: string; events: RunEvent[]; reset?: boolean }
  /**
   * Optional, for long histories: rows of a run's metrics events (`table: 'metrics'`, one row
   * per update, a column per metric, NaN for no value) or episode events (`table: 'episodes'`,
   * columns `return`, `length`, `training_return`) as typed arrays, which cross postMessage as
   * a few copies instead of one object per event. Appended like the events they stand for.
   * webview/columnar.ts builds them from events (foldHistory); pages accept both forms.
   */
  | {
      type: 'columns';
      runId: string;
      table: 'metrics' | 'episodes';
      steps: Float64Array;
      times: Float64Array;
      columns: Record<string, Float64Array>;
      /**
       * A patch of the host's decimated history (webview/history-digest.ts): the page keeps the
       * first `keep` rows of the table and appends these, as they are (the host has resolved a
       * resume's repeated steps). Absent: appended like the events they stand for.
       */
      keep?: number;
      /** Each metric's sum over every update, also those the decimation left out (`charts/episodes`). */
      sums?: Record<string, number>;
    }
  /** status.json changed. */
  | { type: 'status'; runId: string; state: RunState; status?: StatusFile }
  /** The recorded episodes of a run. */
  | {
      type: 'rollouts';
      runId: string;
      episodes: RolloutListing[];
      /**
       * Optional: true when the run has no rollouts/ folder at all (listRollouts returns [] for
       * both a missing and an empty folder; the host can tell them apart), so the page can say why.
       */
      missing?: boolean;
    }
  /**
   * One file of rollouts/, asked for with `openEpisode`, as readRollout reads it: a numeric
   * env's episode (`kind: 'episode'`, its steps) or a text run's batch (`kind: 'text'`, its groups).
   */
  | ({ type: 'episode'; runId: string; file: string } & RolloutContents)
  /**
   * A recorded step's picture, asked for with `openFrame`: `frame` as the step line names it,
   * `data` the PNG as a data URL (`data:image/png;base64,...`), or `problem` when it cannot be read.
   */
  | { type: 'frame'; runId: string; file: string; frame: string; data?: string; problem?: string };

/**
 * What every page keeps in its webview state (beside its own view state): the ids of the runs
 * it shows, so that the host's WebviewPanelSerializer can show them again after a reload.
 */
export interface PersistedPageState {
  runs: string[];
}

export type PageMessage =
  | { type: 'ready'; page: PageKind }
  | { type: 'openEpisode'; runId: string; file: string }
  /** The picture of a step of episode `file` (an env that renders): `frame` as its step line names it. */
  | { type: 'openFrame'; runId: string; file: string; frame: string }
  /** Open a file of the run in an editor (plan.json, an events line...). */
  | { type: 'openFile'; runId: string; relativePath: string }
  | { type: 'error'; message: string }
  /**
   * Save an export (a chart as PNG or SVG, a table as CSV): the host asks where
   * (showSaveDialog, `name` suggested beside the first run) and writes `data` there.
   */
  | { type: 'save'; name: string; format: 'png' | 'svg' | 'csv'; data: string; encoding: 'base64' | 'utf8' };
