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
