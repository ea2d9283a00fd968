// Policy kinds by the names the language uses. A kind is a PolicyDefinition: it reads its
// settings from the plan and builds the network families it can (policy.ts); an algorithm
// asks the PolicyFactory for the family it trains. Adding a kind: one file with its
// definition, one line in POLICIES, its line removed from ../not-implemented.ts.
import type { Rng } from '../../shared/random.js';
import { MlpPolicy, mlpSettings } from './mlp.js';
import { SacActor, SacCritics } from './sac-networks.js';
import type { ActorCriticPolicy, LanguageModel, PolicySpaces, TokenModel } from './policy.js';
import { PretrainedPolicy, type ExpectedUse } from './pretrained.js';
import { pretrainedParams, resolvePretrained, type PretrainedParams } from './pretrained-settings.js';
import { MlpQNetwork, type QNetworkPolicy } from './q-network.js';
import type { CharTokenizer } from '../text/tokenizer.js';
import type { NetworkHandover } from './handover.js';
import { TransformerPolicy } from './transformer/transformer.js';
import { transformerSettings } from './transformer/settings.js';

export { Categorical, DiagGaussian, type ActionBuffer, type ActionDistribution, type ActorOutput } from './distributions.js';
export { DenseStack, type Activation, type DenseLayerSource } from './dense.js';
export { MlpPolicy, mlpSettings, type MlpSettings } from './mlp.js';
export { LOG_STD_MAX, LOG_STD_MIN, SacActor, SacCritics, sampleLogits, squashLogStd, type SacActorOutput } from './sac-networks.js';
export { actFromHead, graphWeights, type LanguageModel, type Actor, type ActorCriticGraph, type ActorCriticPolicy, type OnnxInterface, type Policy, type PolicySpaces, type TokenModel } from './policy.js';
export { TransformerPolicy } from './transformer/transformer.js';
export { argmax, MlpQNetwork, type QNetworkPolicy } from './q-network.js';
export { transformerSettings, type TransformerSettings } from './transformer/settings.js';
export { NetworkHandover, type NetworkFamily } from './handover.js';
export type { SampleOptions } from './transformer/sampling.js';

/** A policy kind of the language, and the network families it builds. */
export interface PolicyDefinition<S = unknown> {
  readonly name: string;
  /** Reads and checks the plan's settings for this kind (defaults from the registry); `component` for what it carries besides params (a pretrained model's folder). */
  settings(params: Readonly<Record<string, unknown>>, component?: PolicyComponent): S;
  /** An actor and a critic over observation vectors (PPO). */
  actorCritic?(settings: S, spaces: PolicySpaces, rng: Rng): ActorCriticPolicy;
  /** Observation -> one Q-value per action (DQN). */
  qNetwork?(settings: S, spaces: PolicySpaces, rng: Rng): QNetworkPolicy;
  /** SAC's actor (the policy the trainer evaluates) and its twin critics with their targets. */
  sacActor?(settings: S, spaces: PolicySpaces, rng: Rng): SacActor;
  sacCritics?(settings: S, spaces: PolicySpaces, rng: Rng): SacCritics;
  /** A language model over a text task's tokens (GRPO, SFT). */
  tokenModel?(settings: S, tokenizer: CharTokenizer, rng: Rng): TokenModel;
  /** A language model with a tokenizer of its own (a pretrained model; its folder relative to `baseDir`): the text env's tokenizer is not used. */
  languageModel?(settings: S, rng: Rng, baseDir: string | undefined, name: string, expected?: ExpectedUse): LanguageModel;
}

const MLP: PolicyDefinition<ReturnType<typeof mlpSettings>> = {
  name: 'mlp',
  settings: mlpSettings,
  actorCritic: (settings, spaces, rng) => new MlpPolicy(settings, spaces, rng),
  qNetwork: (settings, spaces, rng) => new MlpQNetwork(settings, spaces, rng),
  sacActor: (settings, spaces, rng) => new SacActor(settings, spaces, rng),
  sacCritics: (settings, spaces, rng) => new SacCritics(settings, spaces, rng),
};

const TRANSFORMER: PolicyDefinition<ReturnType<typeof transformerSettings>> = {
  name: 'transformer',
  settings: transformerSettings,
  tokenModel: (settings, tokenizer, rng) => new TransformerPolicy(settings, tokenizer, rng),
};

const PRETRAINED: PolicyDefinition<PretrainedParams> = {
  name: 'pretrained',
  settings: (params, component) => pretrainedParams(params, component?.path),
  languageModel: (params, rng, baseDir, name, expected) => PretrainedPolicy.load(resolvePretrained(params, baseDir, `policy ${name}`), rng, expected),
};

/** The policy kinds this runtime implements. */
export const POLICIES: readonly PolicyDefinition<never>[] = [MLP as PolicyDefinition<never>, TRANSFORMER as PolicyDefinition<never>, PRETRAINED as PolicyDefinition<never>];

export function policyDefinition(kind: string): PolicyDefinition<unknown> | undefined {
  return POLICIES.find((p) => p.name === kind) as PolicyDefinition<unknown> | undefined;
}

/** The plan's policy component, as the trainer hands it to an algorithm. */
export interface PolicyComponent {
  readonly kind: string;
  readonly name: string;
  readonly params: Readonly<Record<string, unknown>>;
  /** A pretrained policy's model folder (absolute, or relative to the .rlx file's folder). */
  readonly path?: string;
}

/**
 * Builds the plan's policy in the family an algorithm trains. `rng` draws the initial
 * weights; a family the kind cannot build is an error that names both.
 */
export class PolicyFactory {
  private readonly definition: PolicyDefinition<unknown>;
  private readonly settings: unknown;

  constructor(
    readonly component: PolicyComponent,
    /** The env's spaces; null for a text env (its policy reads tokens). */
    readonly spaces: PolicySpaces | null,
    private readonly rng: Rng,
    /** Passes the previous stage's networks into those built here (stages on an env of numbers). */
    private readonly handover?: NetworkHandover,
    /** The .rlx file's folder, which a pretrained policy's model folder is relative to. */
    private readonly baseDir?: string,
  ) {
    const definition = policyDefinition(component.kind);
    if (!definition) {
      throw new Error(`policy ${component.name}: kind "${component.kind}" is not implemented in this runtime; implemented: ${POLICIES.map((p) => p.name).join(', ')}`);
    }
    this.definition = definition;
    this.settings = definition.settings(component.params, component);
  }

  actorCritic(algorithm: string): ActorCriticPolicy {
    const build = this.definition.actorCritic;
    if (!build) throw new Error(`${algorithm} trains an actor-critic, which policy ${this.component.name} (${this.component.kind}) cannot be`);
    if (!this.spaces) throw new Error(`${algorithm} trains an actor-critic over observation vectors, which a text env does not have`);
    const policy = build(this.settings, this.spaces, this.rng);
    this.handover?.adopt('actor-critic', { policy: policy.weights });
    policy.sync();
    return policy;
  }

  qNetwork(algorithm: string): QNetworkPolicy {
    const build = this.definition.qNetwork;
    if (!build) throw new Error(`${algorithm} trains a Q-network, which policy ${this.component.name} (${this.component.kind}) cannot be; use an mlp policy`);
    if (!this.spaces) throw new Error(`${algorithm} trains a Q-network over observation vectors, which a text env does not have`);
    const q = build(this.settings, this.spaces, this.rng);
    this.handover?.adopt('q-network', { q: q.weights });
    q.sync();
    return q;
  }

  /** SAC's actor and twin critics (with targets), both built from the plan's policy settings. */
  sacNetworks(algorithm: string): { actor: SacActor; critics: SacCritics } {
    const { sacActor, sacCritics } = this.definition;
    if (!sacActor || !sacCritics) throw new Error(`${algorithm} trains an actor and twin Q networks, which policy ${this.component.name} (${this.component.kind}) cannot be; use an mlp policy`);
    if (!this.spaces) throw new Error(`${algorithm} trains networks over observation vectors, which a text env does not have`);
    const actor = sacActor(this.settings, this.spaces, this.rng);
    const critics = sacCritics(this.settings, this.spaces, this.rng);
    this.handover?.adopt('sac', { actor: actor.weights, critics: critics.weights, targets: critics.target });
    actor.sync();
    return { actor, critics };
  }

  /** The language model a text learner trains: a pretrained one, or one over the task's characters (`tokenizer`). */
  languageModel(algorithm: string, tokenizer: CharTokenizer, expected?: ExpectedUse): LanguageModel {
    const pretrained = this.definition.languageModel;
    return pretrained ? pretrained(this.settings, this.rng, this.baseDir, this.component.name, expected) : this.tokenModel(algorithm, tokenizer);
  }

  tokenModel(algorithm: string, tokenizer: CharTokenizer): TokenModel {
    const build = this.definition.tokenModel;
    if (!build) throw new Error(`${algorithm} trains a language model over the task's tokens, which policy ${this.component.name} (${this.component.kind}) cannot be; use a transformer policy`);
    return build(this.settings, tokenizer, this.rng);
  }
}

/** The plan's policy as an actor-critic: for tests and tools that build one directly. */
export function makeActorCritic(component: PolicyComponent, spaces: PolicySpaces, rng: Rng): ActorCriticPolicy {
  return new PolicyFactory(component, spaces, rng).actorCritic('an actor-critic');
}

/** The plan's policy as a token model over `tokenizer`'s vocabulary: for tests and tools. */
export function makeTokenModel(component: PolicyComponent, tokenizer: CharTokenizer, rng: Rng): TokenModel {
  return new PolicyFactory(component, null, rng).tokenModel('a token model', tokenizer);
}
