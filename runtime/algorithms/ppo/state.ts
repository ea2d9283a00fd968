// What a PPO checkpoint keeps, for both learners (ppo.ts, and recurrent.ts for policies with a
// recurrent core): one declaration, so a checkpoint of either reads as the other's would.
import type { AdamState, WeightSnapshot } from '../../tensor/index.js';

export interface PpoState {
  globalStep: number;
  iteration: number;
  actionRng: number[];
  shuffleRng: number[];
  weights: WeightSnapshot;
  optimizer: AdamState;
}
