// What sampling the replay buffer (buffer.ts) yields, and hindsight relabeling (her.ts) rewrites
// in place: its own module so that both read it without importing each other.

/** B sampled rows, row-major. */
export interface ReplayBatch {
  readonly obs: Float32Array;
  /** [B * actionWidth]; a discrete action is its index as a float. */
  readonly actions: Float32Array;
  readonly rewards: Float32Array;
  /** The real next observation (the final one at an episode's end). */
  readonly nextObs: Float32Array;
  /** 1 where the episode terminated (no bootstrap); 0 where truncated or running. */
  readonly dones: Float32Array;
  /**
   * With action masks (the buffer's `maskWidth`): [B * n] the legal actions of `obs` and of
   * `nextObs` (1 legal, 0 not); the next one may allow none (an episode's final observation).
   * null for a buffer without masks.
   */
  readonly actionMask: Float32Array | null;
  readonly nextActionMask: Float32Array | null;
}
