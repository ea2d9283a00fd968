// How the stages of a run on an env of numbers pass their networks on: each stage's algorithm
// builds its networks afresh (PolicyFactory), and the handover loads into them the weights the
// previous stage's networks ended with, before the algorithm copies them (DQN's target network,
// SAC's target critics) or reads them. The optimiser starts afresh in each stage.
//
// Networks pass within one family only (PPO and REINFORCE: an actor-critic; DQN: a Q-network;
// SAC: its actor, twin critics and their targets); checkPlan() refuses the other pairs
// (dsl/schema/algorithms.ts, stageHandoverProblem), so a mismatch here is a bug.
import type { WeightSnapshot, WeightStore } from '../tensor/index.js';

/** The network families PolicyFactory builds over observation vectors (family.ts). */
export type NetworkFamilyName = 'actor-critic' | 'q-network' | 'sac' | 'numeric-learner' | 'offline-actor' | 'td3bc' | 'iql';

export class NetworkHandover {
  /** The networks the current stage trains, by part (`policy`, `actor`, `critics`, ...). */
  private current: { family: NetworkFamilyName; parts: Readonly<Record<string, WeightStore>> } | null = null;

  /** What the latest handover passed on (null before the first): for the trainer's log. */
  passed: { family: NetworkFamilyName; weights: number } | null = null;

  /**
   * Called with the networks a stage's algorithm has just built: loads the previous stage's
   * weights into them, if there was one, and keeps them for the next stage.
   */
  adopt(family: NetworkFamilyName, parts: Readonly<Record<string, WeightStore>>): void {
    const previous = this.current;
    if (previous) {
      if (previous.family !== family) throw new Error(`a stage that trains a ${family} network cannot start from the previous stage's ${previous.family} networks`);
      const snapshots: Record<string, WeightSnapshot> = Object.fromEntries(Object.entries(previous.parts).map(([part, store]) => [part, store.snapshot()]));
      let weights = 0;
      for (const [part, store] of Object.entries(parts)) {
        store.load(snapshots[part]!);
        weights += store.size;
      }
      this.passed = { family, weights };
    }
    this.current = { family, parts };
  }
}
