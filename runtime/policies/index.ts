// Policy kinds by the names the language uses. A kind is a PolicyDefinition: it reads its
// settings from the plan, nothing more. What an algorithm trains is a family that says how each
// kind is built: the networks over observation vectors (family.ts), kept beside the algorithm,
// and the text learners' language models (language-model.ts); an algorithm asks the
// PolicyFactory for its family. Adding a kind: one file with its definition, one line in
// POLICIES, its builders in the families it can be, and any `notImplemented` reason deleted
// from its declaration in dsl/schema/policies.ts (the one list ../not-implemented.ts reads).
import type { Rng } from '../../shared/random.js';
import { ACTOR_CRITIC } from './actor-critic.js';
import type { NetworkFamily } from './family.js';
import { mlpSettings } from './mlp.js';
import { cnnSettings } from './cnn-policy.js';
import type { ActorCriticPolicy, LanguageModel, PolicySpaces, TokenModel } from './policy.js';
import { TOKEN_MODEL, type LanguageModelFamily, type LanguageModelSource } from './language-model.js';
import { pretrainedParams, type PretrainedParams } from './pretrained-settings.js';
import type { CharTokenizer } from './transformer/char-tokenizer.js';
import type { NetworkHandover } from './handover.js';
import { transformerSettings } from './transformer/settings.js';
import { InputError } from '../../shared/input-error.js';

export { ACTOR_CRITIC } from './actor-critic.js';
export { buildsAs, type NetworkFamily } from './family.js';
export { LANGUAGE_MODEL, TOKEN_MODEL, ownsTokenizer, type LanguageModelFamily, type LanguageModelSource } from './language-model.js';
export { argmax, Bernoulli, Categorical, DiagGaussian, type ActionBuffer, type ActionDistribution, type ActorOutput } from './distributions.js';
export { DenseStack, type Activation, type DenseLayerSource } from './dense.js';
export type { EncoderDefinition, ObservationEncoder } from './encoder.js';
export { ENCODERS, encoderFor } from './encoders.js';
export { MlpPolicy, mlpSettings, type MlpSettings } from './mlp.js';
export { RECURRENT_ACTOR_CRITIC, RecurrentPolicy, type RecurrentActorCritic } from './recurrent-policy.js';
export type { CoreSettings } from './recurrent-core.js';
export { cnnSettings, type CnnSettings } from './cnn-policy.js';
export { actFromHead, flatPolicySpaces, graphWeights, policySpaces, type LanguageModel, type Actor, type ActorCriticGraph, type ActorCriticPolicy, type OnnxInterface, type Policy, type PolicySpaces, type TokenModel } from './policy.js';
export { TransformerPolicy } from './transformer/transformer.js';
export { transformerSettings, type TransformerSettings } from './transformer/settings.js';
export { NetworkHandover, type NetworkFamilyName } from './handover.js';
export type { SampleOptions } from './transformer/sampling.js';

/** A policy kind of the language: its settings. The families it can be built as say how (family.ts, language-model.ts). */
export interface PolicyDefinition<S = unknown> {
  readonly name: string;
  /** Reads and checks the plan's settings for this kind (defaults from the registry); `component` for what it carries besides params (a pretrained model's folder). */
  settings(params: Readonly<Record<string, unknown>>, component?: PolicyComponent): S;
}

const MLP: PolicyDefinition<ReturnType<typeof mlpSettings>> = {
  name: 'mlp',
  settings: mlpSettings,
};

const CNN: PolicyDefinition<ReturnType<typeof cnnSettings>> = {
  name: 'cnn',
  settings: cnnSettings,
};

const TRANSFORMER: PolicyDefinition<ReturnType<typeof transformerSettings>> = {
  name: 'transformer',
  settings: transformerSettings,
};

const PRETRAINED: PolicyDefinition<PretrainedParams> = {
  name: 'pretrained',
  settings: (params, component) => pretrainedParams(params, component?.path),
};

/** The policy kinds this runtime implements. */
export const POLICIES: readonly PolicyDefinition<never>[] = [MLP as PolicyDefinition<never>, CNN as PolicyDefinition<never>, TRANSFORMER as PolicyDefinition<never>, PRETRAINED as PolicyDefinition<never>];

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
    this.settings = definition.settings(component.params, component);
  }

  /** The policy's recurrent core (`core: gru(64)`), if it has one: an algorithm that carries memory builds RECURRENT_ACTOR_CRITIC then. */
  get core(): { readonly kind: string; readonly size: number } | null {
    const core = (this.settings as { core?: { kind: string; size: number } | null } | null)?.core;
    return core ?? null;
  }

  /**
   * The plan's policy built as the network family `algorithm` trains, with the previous stage's
   * weights loaded (a handover); a kind the family cannot be built from is refused, naming both.
   */
  networks<N>(family: NetworkFamily<N>, algorithm: string): N {
    const build = family.kinds[this.component.kind] as ((settings: unknown, spaces: PolicySpaces, rng: Rng) => N) | undefined;
    if (!build || !Object.hasOwn(family.kinds, this.component.kind)) {
      throw new Error(`${algorithm} trains ${family.what}, which policy ${this.component.name} (${this.component.kind}) cannot be${family.hint ?? ''}`);
    }
    if (!this.spaces) throw new Error(`${algorithm} trains ${family.overVectors}, which a text env does not have`);
    const core = this.core;
    if (core && !family.carriesCore) {
      throw new InputError(`policy ${this.component.name} has a recurrent core (core: ${core.kind}), which ${algorithm} cannot carry yet; use PPO, or set core: none in the policy`);
    }
    if (!core && family.carriesCore) throw new Error(`${algorithm} asked for ${family.what}, but policy ${this.component.name} has no core`);
    const networks = build(this.settings, this.spaces, this.rng);
    this.handover?.adopt(family.name, family.parts(networks));
    family.sync(networks);
    return networks;
  }

  /**
   * The plan's policy built as the language model `family` a text learner trains (LANGUAGE_MODEL:
   * a pretrained one, or one over the task's characters); a kind the family cannot be built from
   * is refused, naming both.
   */
  languageModel<M extends LanguageModel>(family: LanguageModelFamily<M>, algorithm: string, source: Omit<LanguageModelSource, 'rng' | 'policyName' | 'baseDir'>): M {
    const build = family.kinds[this.component.kind] as ((settings: unknown, source: LanguageModelSource) => M) | undefined;
    if (!build || !Object.hasOwn(family.kinds, this.component.kind)) {
      throw new Error(`${algorithm} trains ${family.what}, which policy ${this.component.name} (${this.component.kind}) cannot be${family.hint}`);
    }
    return build(this.settings, { ...source, rng: this.rng, policyName: this.component.name, baseDir: this.baseDir });
  }
}

/** The plan's policy as an actor-critic: for tests and tools that build one directly. */
export function makeActorCritic(component: PolicyComponent, spaces: PolicySpaces, rng: Rng): ActorCriticPolicy {
  return new PolicyFactory(component, spaces, rng).networks(ACTOR_CRITIC, 'an actor-critic');
}

/** The plan's policy as a token model over `tokenizer`'s vocabulary: for tests and tools. */
export function makeTokenModel(component: PolicyComponent, tokenizer: CharTokenizer, rng: Rng): TokenModel {
  return new PolicyFactory(component, null, rng).languageModel(TOKEN_MODEL, 'a token model', { tokenizer });
}
