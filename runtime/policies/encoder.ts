// The encoder seam: what every network over observations (the actor-critic, DQN's Q-network,
// SAC's actor and critics) puts between an observation row and its MLP heads. An encoder turns
// flat observation rows ([B, obsDim], laid out as PolicySpaces.obsShape) into feature rows
// ([B, features]) twice over: in a graph (training, export) and outside onnxruntime (acting).
// Today there is one, `flatten` (flatten-encoder.ts): the rows as they are.
//
// Adding an encoder (a CNN over [C, H, W] images, a recurrent core):
//   1. one file `<name>-encoder.ts` here with an EncoderDefinition: its weights added to the
//      network's store under the prefix it is given (so they train, checkpoint and hand over
//      with the heads' weights), encode() in the graph reading them through graphParam()
//      (linear-layers.ts: a target network reads its copy by `rename`), encodeRows() for
//      acting (a kernel of its own, as dense.ts is for the MLP), and sync() after updates;
//   2. one line in ENCODERS (encoders.ts), and encoderFor() there picking it (from the observation's shape
//      or a policy setting declared in dsl/schema/, documented in docs/language.md).
// The families need no change: they build `encoderFor(...)` and size their heads by `features`.
// A recurrent core (`core: gru(64)`) sits after the encoder, not in it: its memory is carried
// by the algorithm that trains it (recurrent-policy.ts, ../algorithms/ppo/recurrent.ts).
import type { Rng } from '../../shared/random.js';
import type { Graph, Tensor, WeightStore } from '../tensor/index.js';
import type { PolicySpaces } from './policy.js';

/** One network's encoder, its weights (if any) in that network's store. */
export interface ObservationEncoder {
  /** Numbers per row it hands the heads. */
  readonly features: number;
  /** Feature rows [B, features] of `obs` [B, obsDim] in `g`; `rename` reads a copy of its weights (a target network's). */
  encode(g: Graph, obs: Tensor, rename?: (name: string) => string): Tensor;
  /** Feature rows of `rows` observations, outside onnxruntime; may return `obs` itself, or a buffer the next call overwrites. */
  encodeRows(obs: Float32Array, rows: number): Float32Array;
  /** Makes encodeRows() see the current weights; call after each update. */
  sync(): void;
}

export interface EncoderDefinition {
  readonly name: string;
  /** The encoder of one network, its weights added to `store` as `${prefix}.*`, drawn from `rng`. */
  build(spaces: PolicySpaces, store: WeightStore, prefix: string, rng: Rng): ObservationEncoder;
}
