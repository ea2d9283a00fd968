// The contract between the trainer (../train.ts) and an algorithm.
import type { Policy } from '../policies/index.js';

/** What the trainer needs from an algorithm. */
export interface Algorithm {
  readonly name: string;
  readonly policy: Policy;
  /** Environment steps taken so far. */
  readonly globalStep: number;
  /** Whether the budget is spent. */
  readonly done: boolean;
  /** One round of collecting and learning; returns its metrics (namespaced names). */
  iterate(): Promise<Record<string, number>>;
  /** The resolved hyperparameters, logged once at the start. */
  hparams(): Record<string, unknown>;
  /** Everything needed to continue exactly (typed arrays allowed), and its inverse. */
  state(): unknown;
  loadState(state: unknown): void;
  release(): Promise<void>;
}

