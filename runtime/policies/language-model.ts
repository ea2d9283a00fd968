// The language-model families the text learners (SFT, GRPO, RLOO, REINFORCE on text) train, as
// the actor-critic (actor-critic.ts) is the family PPO and REINFORCE share: each says how the
// policy kinds that can be one are built from that kind's settings. A policy kind (index.ts)
// only reads its settings; PolicyFactory.languageModel(FAMILY, algorithm, source) builds.
//
// - TOKEN_MODEL: a model over the task's characters (the `transformer` policy), which reads
//   the text env's tokenizer.
// - LANGUAGE_MODEL: any model a text learner trains: a token model, or a pretrained one that
//   brings a tokenizer of its own (the env's is then not used).
import type { Rng } from '../../shared/random.js';
import type { CharTokenizer } from './transformer/char-tokenizer.js';
import type { LanguageModel, TokenModel } from './policy.js';
import { PretrainedPolicy, type ExpectedUse } from './pretrained.js';
import { resolvePretrained, type PretrainedParams } from './pretrained-settings.js';
import { TransformerPolicy } from './transformer/transformer.js';
import type { TransformerSettings } from './transformer/settings.js';

/** What a language model is built from besides its kind's settings. */
export interface LanguageModelSource {
  /** The text task's tokenizer (a token model's vocabulary). */
  readonly tokenizer: CharTokenizer;
  /** Draws the initial weights. */
  readonly rng: Rng;
  /** The policy's name in the spec, for errors (`policy Tiny`). */
  readonly policyName: string;
  /** The .rlx file's folder, which a pretrained model's folder is relative to. */
  readonly baseDir?: string;
  /** What the run will do with a pretrained model, for its memory estimate. */
  readonly expected?: ExpectedUse;
}

export interface LanguageModelFamily<M extends LanguageModel> {
  /** How refusals name it: `${algorithm} trains ${what}, which policy X (kind) cannot be${hint}`. */
  readonly what: string;
  /** What the refusal of a kind that cannot build it suggests (`; use a transformer policy`). */
  readonly hint: string;
  /** Builders by policy kind, each from that kind's settings. */
  readonly kinds: Readonly<Record<string, (settings: never, source: LanguageModelSource) => M>>;
}

export const TOKEN_MODEL: LanguageModelFamily<TokenModel> = {
  what: "a language model over the task's tokens",
  hint: '; use a transformer policy',
  kinds: { transformer: (settings: TransformerSettings, source) => new TransformerPolicy(settings, source.tokenizer, source.rng) },
};

export const LANGUAGE_MODEL: LanguageModelFamily<LanguageModel> = {
  // A kind that is neither is refused as a token model is: the transformer is what a spec
  // without a model folder can use.
  what: TOKEN_MODEL.what,
  hint: TOKEN_MODEL.hint,
  kinds: {
    ...TOKEN_MODEL.kinds,
    pretrained: (params: PretrainedParams, source) => PretrainedPolicy.load(resolvePretrained(params, source.baseDir, `policy ${source.policyName}`), source.rng, source.expected),
  },
};

/** Whether policy kind `kind` is a language model with a tokenizer of its own (a pretrained model): it writes text but reads none of a text env's tokens. */
export function ownsTokenizer(kind: string): boolean {
  return Object.hasOwn(LANGUAGE_MODEL.kinds, kind) && !Object.hasOwn(TOKEN_MODEL.kinds, kind);
}
