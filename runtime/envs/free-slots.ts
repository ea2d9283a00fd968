// FreeSlots: a row of `slots` slots, some taken at the start of each episode; each step the
// agent picks a slot. A free one fills (reward 1); a taken one is an illegal action: the
// episode ends with reward -penalty. The episode succeeds when every slot is full. The
// observation is the row (1 taken, 0 free) and the action mask is its complement, so an agent
// that reads the mask is optimal from its first step, while one that ignores it must learn to
// read the row: the env of the action-mask tests and of the masked-vs-unmasked benchmark.
//
// Observation elements have no names (their number follows `slots`). Which slots start taken is drawn per slot with probability `taken`; at least one stays free.

import type { Rng } from '../../shared/random.js';
import { BaseEnv } from './base.js';
import { envParams } from './params.js';

/** FreeSlots' configuration; its names, defaults, docs and ranges are the language's (dsl/schema/envs.ts). */
export interface FreeSlotsConfig {
  readonly slots: number;
  readonly taken: number;
  readonly penalty: number;
}

function freeSlotsConfig(given: object): FreeSlotsConfig {
  const p = envParams('FreeSlots', given);
  return { slots: p.count('slots'), taken: p.number('taken'), penalty: p.number('penalty') };
}

export class FreeSlots extends BaseEnv {
  readonly config: Readonly<FreeSlotsConfig>;
  readonly masksActions = true;
  /** 1 where a slot is free: the legal actions of the current observation. */
  readonly actionMask: Uint8Array;
  private readonly full: Uint8Array;
  /** Whether the last step picked a taken slot. */
  private illegal = false;

  constructor(config: Partial<FreeSlotsConfig> = {}) {
    const resolved = freeSlotsConfig(config);
    const n = resolved.slots;
    super({
      kind: 'FreeSlots',
      observationSpace: { kind: 'box', shape: [n], low: new Array<number>(n).fill(0), high: new Array<number>(n).fill(1) },
      actionSpace: { kind: 'discrete', n },
      // Unnamed, as Bandit's: how many there are follows `slots`, and names the checker knows must not.
      obsFields: [],
      stateLayout: Array.from({ length: n }, (_, k) => `slot_${k}`),
      // Every legal step fills a slot, so no episode is longer; an illegal one ends it.
      maxSteps: n,
    });
    this.config = Object.freeze(resolved);
    this.full = new Uint8Array(n);
    this.actionMask = new Uint8Array(n);
  }

  protected drawInitialState(rng: Rng): void {
    const n = this.config.slots;
    for (let k = 0; k < n; k++) this.full[k] = rng.uniform() < this.config.taken ? 1 : 0;
    if (this.full.every((x) => x === 1)) this.full[rng.int(n)] = 0;
    this.illegal = false;
    this.updateMask();
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    const slot = actions[offset];
    this.illegal = this.full[slot] === 1;
    if (this.illegal) {
      this.terminated = true;
      return -this.config.penalty;
    }
    this.full[slot] = 1;
    this.updateMask();
    this.success = this.full.every((x) => x === 1);
    this.terminated = this.success;
    return 1;
  }

  private updateMask(): void {
    for (let k = 0; k < this.full.length; k++) this.actionMask[k] = 1 - this.full[k];
  }

  writeObs(out: Float32Array, offset: number): void {
    for (let k = 0; k < this.full.length; k++) out[offset + k] = this.full[k];
  }

  protected override stepInfo(): Record<string, unknown> {
    return { action_mask: Array.from(this.actionMask), illegal: this.illegal, success: this.success };
  }

  protected override resetInfo(): Record<string, unknown> {
    return { action_mask: Array.from(this.actionMask) };
  }

  getState(): number[] {
    return Array.from(this.full);
  }

  protected applyState(state: readonly number[]): void {
    if (!state.every((x) => x === 0 || x === 1)) throw new RangeError('FreeSlots: each slot of the state is 0 (free) or 1 (taken)');
    if (state.every((x) => x === 1)) throw new RangeError('FreeSlots: the state needs at least one free slot');
    this.full.set(state);
    this.illegal = false;
    this.updateMask();
  }
}
