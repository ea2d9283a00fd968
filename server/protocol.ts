// The server's own requests, for the rlx extension (the "Train" CodeLens, the plan preview).
// Plain method names and types, so the extension can use them without this package's server.
import type { TextDocumentIdentifier } from 'vscode-languageserver-protocol';
import type { experiments, planFor } from './features/experiments.js';

/** `rlx/experiments`: the experiments declared in a document, with ranges and whether they check clean. */
export const EXPERIMENTS_METHOD = 'rlx/experiments';
export interface ExperimentsParams {
  textDocument: TextDocumentIdentifier;
}
export type ExperimentsResult = ReturnType<typeof experiments>;

/** `rlx/plan`: the plan (one per seed or sweep point) of one experiment, or why there is none. */
export const PLAN_METHOD = 'rlx/plan';
export interface PlanParams {
  textDocument: TextDocumentIdentifier;
  /** The experiment's (or sweep's) name. */
  name: string;
}
export type PlanResult = ReturnType<typeof planFor>;

/**
 * Workspace trust, which lets the server probe Python envs (run the workspace's Python to learn
 * a gymnasium(...) env's spaces: docs/python-envs.md#in-the-editor). A client says the
 * workspace is trusted in `initialize` (`initializationOptions: { workspaceTrusted: true }`; any
 * editor may send it) or later with this notification (VS Code, when the user grants trust).
 * Without either the server never runs Python.
 */
export const WORKSPACE_TRUSTED_OPTION = 'workspaceTrusted';
export const WORKSPACE_TRUSTED_NOTIFICATION = 'rlx/workspaceTrusted';
