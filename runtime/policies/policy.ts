// What the trainer and the algorithms need of a policy. Two levels:
//
// - `Policy`: what the trainer (../trainer/) needs of ANY policy, whatever the algorithm:
//   its weights, acting for evaluation and recorded rollouts, and a standalone ONNX export
//   that says how to read it. Nothing here assumes an actor-critic.
// - What one kind of algorithm trains: `ActorCriticPolicy` (PPO, REINFORCE with a value
//   baseline) and `LanguageModel` / `TokenModel` (the text learners) here; DQN's Q-network and
//   SAC's actor and twin critics beside them (../algorithms/README.md).
//
// A policy kind of the language (`mlp`, `transformer`) is a `PolicyDefinition` (index.ts);
// each family (family.ts, language-model.ts) says how the kinds it can be built from are
// built, and an algorithm asks the PolicyFactory for the one it trains.
import { spaceSize, type BoxSpace, type DiscreteSpace, type MultiBinarySpace, type Space } from '../envs/types.js';
import type { Rng } from '../../shared/random.js';
import { WeightStore, type Graph, type Tensor } from '../tensor/index.js';
import type { CharTokenizer } from './transformer/char-tokenizer.js';
import type { ActionBuffer, ActionDistribution, ActorOutput } from './distributions.js';
import type { DecodeStep, SampleOptions } from './transformer/sampling.js';

/**
 * What a policy is built for: the observation's shape and the action space. Observations
 * travel as flat float32 rows of `obsDim` numbers (rollouts, replay, the exported `obs`
 * input); `obsShape` is how those numbers are laid out, which an encoder (encoder.ts) may
 * read (a CNN's [C, H, W]). Make one with policySpaces(), which derives `obsDim` from the shape.
 */
export interface PolicySpaces {
  readonly obsShape: readonly number[];
  /** The product of `obsShape`: numbers per observation row. */
  readonly obsDim: number;
  readonly actionSpace: DiscreteSpace | BoxSpace | MultiBinarySpace;
}

/** The spaces of a policy over `observation`'s values (a discrete observation is one number). */
export function policySpaces(observation: Space, actionSpace: PolicySpaces['actionSpace']): PolicySpaces {
  const obsShape = observation.kind === 'box' ? [...observation.shape] : [spaceSize(observation)];
  return { obsShape, obsDim: spaceSize(observation), actionSpace };
}

/** The spaces of a policy over flat rows of `obsDim` numbers. */
export function flatPolicySpaces(obsDim: number, actionSpace: PolicySpaces['actionSpace']): PolicySpaces {
  return { obsShape: [obsDim], obsDim, actionSpace };
}

/** The inputs and outputs of an exported policy model, recorded in its metadata. */
export interface OnnxInterface {
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
}

/** Something that acts on observation rows: a trained policy, or one loaded from ONNX (rlx eval). */
export interface Actor {
  /**
   * Writes an action for each of `rows` observations into `actions` (the env's buffer):
   * the most likely one when `deterministic`, else one drawn with `rng`. With `mask` (rows of
   * one number per discrete action, 1 legal and 0 not: VecEnv.actionMasks) only legal actions
   * are chosen; policies of other action spaces are never given one.
   */
  act(obs: Float32Array, rows: number, actions: ActionBuffer, deterministic: boolean, rng: Rng, mask?: Uint8Array | null): void | Promise<void>;
  /**
   * An actor with memory (a recurrent core) forgets it: `rows` fresh episodes follow. Whoever
   * resets the env copies calls it, and endEpisodes() after each step; absent: no memory.
   */
  resetMemory?(rows: number): void;
  /** Rows whose episode ended in the step just taken (terminated or truncated) start the next with a fresh memory. */
  endEpisodes?(terminated: Uint8Array, truncated: Uint8Array): void;
}

/** What the trainer needs of any policy. */
export interface Policy extends Actor {
  /** The language's policy kind (`mlp`). */
  readonly kind: string;
  readonly spaces: PolicySpaces;
  /** The trainable weights; algorithms checkpoint them with their optimiser state. */
  readonly weights: WeightStore;
  /** How the exported model is read: its inputs and outputs. */
  readonly onnxInterface: OnnxInterface;
  /**
   * The policy as a standalone ONNX model with the weights baked in; `metadata` is stored
   * as JSON in the model's doc_string, with `inputs` and `outputs` (onnxInterface) added.
   */
  exportOnnx(metadata: Readonly<Record<string, unknown>>): Uint8Array;
  /** The checkpoint policy file's extension: `onnx` (the default), or `json` where exportOnnx writes a record of what the state's weights belong to (a pretrained model). */
  readonly policyFileExtension?: string;
}

/** Graph tensors of one actor-critic forward pass. */
export interface ActorCriticGraph {
  readonly actor: ActorOutput;
  /** The critic's value per row, [B]. */
  readonly value: Tensor;
}

/**
 * An actor (an action distribution's head: logits, or a Gaussian's mean) and a critic (a
 * state value), as PPO trains them. Exports `obs` -> `logits` | `mean`, `log_std`, and `value`.
 */
export interface ActorCriticPolicy extends Policy {
  readonly distribution: ActionDistribution;
  /** The forward pass in `g` from `obs` [B, obsDim]; declares the weights in `g`. */
  build(g: Graph, obs: Tensor): ActorCriticGraph;
  /**
   * The weights of the actor and of the critic when they are separate networks (each
   * gradient then comes from its own model, computed at once); null when they share some.
   */
  separateNetworks(): { readonly actor: readonly string[]; readonly critic: readonly string[] } | null;
  /** The actor's head rows (logits or mean) for `rows` observations, outside onnxruntime (fast). */
  actorForward(obs: Float32Array, rows: number, head: Float32Array): void;
  /** Makes the fast forward pass see the current weights; call after each update. */
  sync(): void;
}

/**
 * What the text learners (SFT, GRPO, RLOO, REINFORCE on text) need of any language model: the
 * character-level transformer trained from scratch (TokenModel below) or a pretrained model
 * loaded from a Hugging Face folder (pretrained.ts). Token rows come from the text env, which
 * knows which of the two it samples from.
 */
export interface LanguageModel extends Policy {
  /** Longest token row the model reads. */
  readonly context: number;
  /**
   * Weights the model's graphs read but training never changes (a pretrained model's base
   * weights beside its LoRA adapters); sessions are fed them with `weights` (graphWeights()),
   * gradients are taken for `weights` only.
   */
  readonly frozenWeights?: WeightStore;
  /** Token rows differ in width from batch to batch (a pretrained model's own tokens), so training graphs take a symbolic width; otherwise the env's fixed layout. */
  readonly variableRows?: boolean;
  /**
   * Next-token logits [B, T, V] at every position of int64 `tokens` [B, T]; declares the weights
   * in `g` (and any inputs the model needs besides the tokens, which the rows' `modelFeeds` feed).
   */
  sequenceLogits(g: Graph, tokens: Tensor): Tensor;
  /** Releases what sampling holds (an onnxruntime session). */
  release(): Promise<void>;
}

/** Every weight `model`'s graphs read: `trainable` (its weights, or a copy of them: a KL reference) and its frozen ones. */
export function graphWeights(model: LanguageModel, trainable: WeightStore = model.weights): WeightStore {
  return model.frozenWeights ? WeightStore.union(model.frozenWeights, trainable) : trainable;
}

/**
 * A language model over a text task's characters (the `transformer` policy): next-token logits
 * for training, and completions sampled with a key/value cache. Token rows follow
 * transformer/layout.ts. Exports its decoding graph (lm/decoder.ts): tokens, positions and mask,
 * with past keys/values as inputs and outputs.
 */
export interface TokenModel extends LanguageModel {
  /** The task's tokenizer: its vocabulary is the model's input and output. */
  readonly tokenizer: CharTokenizer;
  /**
   * `newTokens` completion slots for each of `rows` prompt rows of `width` tokens (left-padded):
   * characters, then EOS, then PAD.
   */
  generate(prompts: Int32Array, rows: number, width: number, newTokens: number, options: SampleOptions): Promise<Int32Array>;
  /**
   * A fresh decoding step over `rows` rows, fed one token per row at positions 0, 1, ... in
   * order, returning next-token logits [rows, V]: for callers that decide the tokens
   * themselves (multi-turn dialogues, text/dialogue.ts).
   */
  decoder(rows: number): Promise<DecodeStep>;
}

/**
 * Acting through an action distribution: the head rows of `rows` observations become env
 * actions, the most likely ones or samples. `scratch` holds the encoded samples, which
 * acting does not need.
 */
export function actFromHead(
  dist: ActionDistribution,
  head: Float32Array,
  rows: number,
  actions: ActionBuffer,
  deterministic: boolean,
  rng: Rng,
  scratch: Float32Array,
): void {
  for (let i = 0; i < rows; i++) {
    if (deterministic) dist.mode(head, i * dist.headWidth, actions, i * dist.envWidth);
    else dist.sample(head, i * dist.headWidth, rng, actions, i * dist.envWidth, scratch, i * dist.encodedWidth);
  }
}
