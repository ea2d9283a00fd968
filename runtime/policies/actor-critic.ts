// The actor-critic family, shared by PPO and REINFORCE (SB3's common/policies.py
// ActorCriticPolicy): an `mlp` policy is one (mlp.ts).
import type { NetworkFamily } from './family.js';
import { MlpPolicy, type MlpSettings } from './mlp.js';
import type { ActorCriticPolicy } from './policy.js';

export const ACTOR_CRITIC: NetworkFamily<ActorCriticPolicy> = {
  name: 'actor-critic',
  what: 'an actor-critic',
  overVectors: 'an actor-critic over observation vectors',
  kinds: { mlp: (settings: MlpSettings, spaces, rng) => new MlpPolicy(settings, spaces, rng) },
  parts: (policy) => ({ policy: policy.weights }),
  sync: (policy) => policy.sync(),
};
