// A network family an algorithm trains over observation vectors, as SB3 keeps `sac/policies.py`
// beside SAC: the family says how each policy kind that can be one is built from that kind's
// settings, and which weights a stage hands on to the next. It lives beside its algorithm (DQN's
// Q-network: algorithms/dqn/q-network.ts; SAC's actor and critics: algorithms/sac/networks.ts),
// or here where several algorithms share it (the actor-critic of PPO and REINFORCE:
// actor-critic.ts). A policy kind (index.ts) only reads its settings; PolicyFactory builds.
import type { Rng } from '../../shared/random.js';
import type { WeightStore } from '../tensor/index.js';
import type { NetworkFamilyName } from './handover.js';
import type { PolicySpaces } from './policy.js';

export interface NetworkFamily<N> {
  /** Its name in a stage handover: stages pass networks within one family only. */
  readonly name: NetworkFamilyName;
  /** How refusals name it: `${algorithm} trains ${what}, which policy X (kind) cannot be`. */
  readonly what: string;
  /** How the refusal on a text env names it: `${algorithm} trains ${overVectors}, which a text env does not have`. */
  readonly overVectors: string;
  /** What the refusal of a kind that cannot build it suggests, if anything (`; use an mlp policy`). */
  readonly hint?: string;
  /**
   * Carries a policy's recurrent core (`core: gru(64)`): its memory through rollouts and its
   * sequences through the update (recurrent-policy.ts). A family without it refuses a policy
   * that has one, and a family with it is built only from one that has.
   */
  readonly carriesCore?: boolean;
  /** Builders by policy kind, each from that kind's settings. */
  readonly kinds: Readonly<Record<string, (settings: never, spaces: PolicySpaces, rng: Rng) => N>>;
  /** The weights a stage hands on, by part; the previous stage's are loaded into them. */
  parts(networks: N): Readonly<Record<string, WeightStore>>;
  /** Makes the fast forward passes see the weights (after a handover loaded them). */
  sync(networks: N): void;
}

/** Whether policy kind `kind` can be built as `family` (a network family, or a language model's: language-model.ts). */
export function buildsAs(family: { readonly kinds: Readonly<Record<string, unknown>> }, kind: string): boolean {
  return Object.hasOwn(family.kinds, kind);
}
