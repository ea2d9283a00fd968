// What an experiment with a pretrained policy will hold in memory, estimated at check time with
// the trainer's own estimator (hf/memory.ts) from the plan's sizes: the rows decoded
// at once and the rows of a training step, as each algorithm says them (AlgorithmSpec.work in
// the schema registry), and the longest sequence. The checker warns when it passes the machine's free memory; hover shows it.
import * as os from 'node:os';
import { chooseBaseDtype, estimateMemory, fittedShape, type MemoryEstimate, type MemorySettings, type MemoryShape } from '../../hf/memory.js';
import { parameterCount, type LmConfig } from '../../hf/config.js';
import { linearModules } from '../../hf/lora.js';
import { ALGORITHMS, algorithmWork, type AlgorithmSpec, type EnvSpec, type PlanValue } from '../schema/index.js';
import type * as A from '../syntax/ast.js';
import type { DeclSymbol, Model, ModelFolderUse, Target } from '../semantics/model.js';
import { fillParams } from '../compile/compiler.js';
import { loraSettings, type PlanLora } from '../compile/pretrained.js';

/**
 * Prompt tokens assumed when the env cannot say how long its prompts are: a chat-formatted
 * prompt of a few sentences, the template's role markers included. The completion's length
 * comes from the plan; the sum is capped at the model's context.
 */
export const ASSUMED_PROMPT_TOKENS = 256;

/** The policy's model, read from its folder, when config.json could be read. */
export function pretrainedModel(model: Model, policy: DeclSymbol): { folder: ModelFolderUse; config: LmConfig } | undefined {
  const folder = model.modelFolder(policy);
  const read = folder?.read;
  return folder && read && (read.kind === 'model' || read.kind === 'incomplete') ? { folder, config: read.config } : undefined;
}

/** Parameters LoRA trains: rank x (in + out) per adapted layer. */
export function loraParameters(config: LmConfig, lora: PlanLora): number {
  return linearModules(config).filter((m) => lora.targets.includes(m.module)).reduce((sum, m) => sum + lora.rank * (m.inDim + m.outDim), 0);
}

export interface ExperimentMemory {
  readonly estimate: MemoryEstimate;
  readonly shape: MemoryShape;
  /** The sizes it was estimated at, for people: "GRPO 16 prompts x 8 completions, sequences of 264 tokens (...)". */
  readonly basis: string;
  /** Only LoRA adapters train. */
  readonly lora: boolean;
}

interface Learner {
  spec: AlgorithmSpec;
  params: Record<string, PlanValue>;
}

function specOf(model: Model, target: Target | undefined) {
  return target?.kind === 'builtin' ? target.spec : target ? model.rootBuiltin(target.symbol) : undefined;
}

/** The algorithms an experiment runs (its `algorithm`, or each stage's) with their values in effect. */
function learnersOf(model: Model, experiment: DeclSymbol): Learner[] {
  const effective = model.effective(experiment);
  const stages = [...effective.named.values()].filter((n) => n.node.memberKind === 'stage');
  const learner = (target: Target | undefined, body?: A.Body): Learner[] => {
    const spec = specOf(model, target);
    if (spec?.declKind !== 'algorithm' || !target) return [];
    const stated = target.kind === 'decl' ? model.effective(target.symbol).properties : undefined;
    const local = new Map<string, A.Expression | undefined>();
    for (const m of body?.members ?? []) if (m.kind === 'Property') local.set(m.path[0].text, m.value);
    return [{ spec, params: fillParams(spec, (name) => local.get(name) ?? stated?.get(name)?.node.value) }];
  };
  if (stages.length === 0) return learner(model.referencedTarget(experiment, 'algorithm'));
  return stages.flatMap(({ node, owner }) => {
    const name = node.base?.name.parts[0];
    return learner(name && model.lookup(owner.unit, name.text), node.body);
  });
}

/** The env's settings in effect (TextTask's max_tokens), when it is a built-in. */
function envOf(model: Model, experiment: DeclSymbol): { spec: EnvSpec; params: Record<string, PlanValue> } | undefined {
  const target = model.referencedTarget(experiment, 'env');
  const spec = specOf(model, target);
  if (spec?.declKind !== 'env' || !target) return undefined;
  const stated = target.kind === 'decl' ? model.effective(target.symbol).properties : undefined;
  return { spec, params: fillParams(spec, (name) => stated?.get(name)?.node.value) };
}

/** A learner's micro_batch and gradient_checkpointing (`auto` where it has none; off for a learner module, which has no such setting: its blocks are never recomputed). */
function memorySettings(learner: Learner): MemorySettings {
  const { micro_batch: m, gradient_checkpointing: g } = learner.params;
  const recomputes = learner.spec.params.some((p) => p.name === 'gradient_checkpointing');
  return { microBatch: typeof m === 'number' ? m : 'auto', checkpointing: !recomputes ? false : typeof g === 'boolean' ? g : 'auto' };
}

/** A learner's generation_batch where it sets a number: the rows whose key/value cache exists at once. */
function generationRows(learner: Learner): { generationBatch?: number } {
  const g = learner.params.generation_batch;
  return typeof g === 'number' ? { generationBatch: g } : {};
}

/**
 * The estimate for an experiment whose policy is pretrained, at the largest of its stages; undefined
 * when the experiment's policy is not a pretrained model whose config.json could be read.
 */
export function experimentMemory(model: Model, experiment: DeclSymbol, available = os.freemem()): ExperimentMemory | undefined {
  const policy = model.referencedTarget(experiment, 'policy');
  if (policy?.kind !== 'decl') return undefined;
  const found = pretrainedModel(model, policy.symbol);
  if (!found) return undefined;
  const { config } = found;
  const lora = loraSettings(model, policy.symbol, config);
  const trainable = lora ? loraParameters(config, lora) : parameterCount(config);
  const env = envOf(model, experiment);
  const envCompletion = env?.spec.name === 'TextTask' ? (env.params.max_tokens as number) : undefined;
  let best: ExperimentMemory | undefined;
  for (const learner of learnersOf(model, experiment)) {
    // A pretrained policy trains on text: one row a completion or a dialogue.
    const work = algorithmWork(learner.spec, learner.params, { text: true, envs: 1, rowsPerEpisode: 1 });
    const completion = Math.min(work.completionTokens ?? Infinity, envCompletion ?? Infinity);
    const completionTokens = Number.isFinite(completion) ? completion : ASSUMED_PROMPT_TOKENS;
    const sequenceLength = Math.min(config.context, ASSUMED_PROMPT_TOKENS + completionTokens);
    const base: MemoryShape = { trainableParameters: trainable, sampleRows: work.sampleRows, sequenceLength, trainRows: work.trainRows, referenceCopy: work.referenceCopy && !lora, ...generationRows(learner) };
    // The base as the trainer will hold it: float16 where lora { base_dtype } says so, or (auto) where only that fits.
    const unfitted: MemoryShape = { ...base, halfBase: lora !== null && chooseBaseDtype(config, base, lora.base_dtype, () => found.folder.read.kind === 'model' && found.folder.read.halfWidth === true, available) === 'float16' };
    // micro_batch and gradient_checkpointing as the trainer will choose them in `available` (`auto`: what fits).
    const shape: MemoryShape = { ...unfitted, ...fittedShape(config, unfitted, available, memorySettings(learner)) };
    const estimate = estimateMemory(config, shape);
    const lengthWhy = sequenceLength === config.context
      ? `the model's context of ${config.context} tokens`
      : `up to ${ASSUMED_PROMPT_TOKENS} prompt tokens (assumed, chat template included) + ${completionTokens} completion tokens`;
    const basis = `${work.what}, sequences of ${sequenceLength} tokens (${lengthWhy}), ${lora ? `LoRA training ${trainable.toLocaleString('en-US')} parameters` : 'full fine-tuning'}`;
    if (!best || estimate.total > best.estimate.total) best = { estimate, shape, basis, lora: lora !== null };
  }
  return best;
}

/** The learners that train language models: those of text envs (SFT, GRPO, REINFORCE). */
export const TEXT_LEARNERS = ALGORITHMS.filter((a) => a.actions.includes('text')).map((a) => a.name);

// What the editor shows of a model (server/ speaks for the dsl only, so it takes these from here).
export { describeMemory, estimateMemory, formatBytes } from '../../hf/memory.js';
export { parameterCount, type Family, type LmConfig } from '../../hf/config.js';
