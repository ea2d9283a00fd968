// The actor-critic family, shared by PPO and REINFORCE (SB3's common/policies.py
// ActorCriticPolicy): an `mlp` policy is one (mlp.ts), and a `cnn` policy is one with a CNN
// before its shared layers (cnn-policy.ts).
import type { NetworkFamily } from './family.js';
import { cnnEncoder, type CnnSettings } from './cnn-policy.js';
import { MlpPolicy, type MlpSettings } from './mlp.js';
import type { ActorCriticPolicy } from './policy.js';

export const ACTOR_CRITIC: NetworkFamily<ActorCriticPolicy> = {
  name: 'actor-critic',
  what: 'an actor-critic',
  overVectors: 'an actor-critic over observation vectors',
  kinds: {
    mlp: (settings: MlpSettings, spaces, rng) => new MlpPolicy(settings, spaces, rng),
    cnn: (settings: CnnSettings, spaces, rng) => new MlpPolicy(settings, spaces, rng, cnnEncoder(settings), 'cnn'),
  },
  parts: (policy) => ({ policy: policy.weights }),
  sync: (policy) => policy.sync(),
};
