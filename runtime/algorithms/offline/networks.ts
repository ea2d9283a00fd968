// The network families of the offline learners, built from an `mlp` policy's `hidden` and
// `activation`: BC's actor alone; TD3BC's actor (with its target) and SAC's twin critics
// (../replay/twin-critics.ts); IQL's actor, twin critics and a state-value network.
import type { MlpSettings } from '../../policies/mlp.js';
import type { NetworkFamily } from '../../policies/family.js';
import { TwinCritics } from '../replay/twin-critics.js';
import { OfflineActor } from './actor.js';
import { ValueNetwork } from './value-network.js';

export const OFFLINE_ACTOR: NetworkFamily<{ readonly actor: OfflineActor }> = {
  name: 'offline-actor',
  what: 'a deterministic actor',
  overVectors: 'networks over observation vectors',
  hint: '; use an mlp policy',
  kinds: { mlp: (settings: MlpSettings, spaces, rng) => ({ actor: new OfflineActor(settings, spaces, rng) }) },
  parts: ({ actor }) => ({ actor: actor.weights }),
  sync: ({ actor }) => actor.sync(),
};

export interface ActorCriticsNetworks {
  readonly actor: OfflineActor;
  readonly critics: TwinCritics;
}

export const TD3BC_NETWORKS: NetworkFamily<ActorCriticsNetworks> = {
  name: 'td3bc',
  what: 'a deterministic actor and twin Q networks',
  overVectors: 'networks over observation vectors',
  hint: '; use an mlp policy',
  kinds: { mlp: (settings: MlpSettings, spaces, rng) => ({ actor: new OfflineActor(settings, spaces, rng), critics: new TwinCritics(settings, spaces, rng) }) },
  parts: ({ actor, critics }) => ({ actor: actor.weights, targetActor: actor.target, critics: critics.weights, targets: critics.target }),
  sync: ({ actor }) => actor.sync(),
};

export interface IqlNetworks extends ActorCriticsNetworks {
  readonly value: ValueNetwork;
}

export const IQL_NETWORKS: NetworkFamily<IqlNetworks> = {
  name: 'iql',
  what: 'a deterministic actor, twin Q networks and a value network',
  overVectors: 'networks over observation vectors',
  hint: '; use an mlp policy',
  kinds: {
    mlp: (settings: MlpSettings, spaces, rng) => ({ actor: new OfflineActor(settings, spaces, rng), critics: new TwinCritics(settings, spaces, rng), value: new ValueNetwork(settings, spaces, rng) }),
  },
  parts: ({ actor, critics, value }) => ({ actor: actor.weights, critics: critics.weights, targets: critics.target, value: value.weights }),
  sync: ({ actor }) => actor.sync(),
};
