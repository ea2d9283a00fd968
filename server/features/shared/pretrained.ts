// What the editor says about a pretrained policy's model: its architecture and sizes read from
// config.json, the parameters LoRA trains, and the memory each experiment that uses it will need
// (the checker's estimate, dsl/check/pretrained-memory.ts). Hover shows it on the policy's name
// and on its pretrained("...") call.
import type { DeclSymbol, Model } from '../../../dsl/index.js';
import {
  describeMemory, estimateMemory, experimentMemory, loraParameters, parameterCount, pretrainedModel, type LmConfig,
} from '../../../dsl/check/pretrained-memory.js';
import { definitionOf } from '../../../hf/families/index.js';
import { loraSettings } from '../../../dsl/compile/pretrained.js';
import type { ModelFolderRead } from '../../../dsl/semantics/model-folder.js';

/** 596M, 1.5B, 12.3K: as model cards write parameter counts. */
export function formatCount(n: number): string {
  const scaled = (value: number, unit: string) => `${value < 10 ? value.toFixed(1) : value.toFixed(0)}${unit}`;
  if (n >= 1e9) return scaled(n / 1e9, 'B');
  if (n >= 1e6) return scaled(n / 1e6, 'M');
  if (n >= 1e3) return scaled(n / 1e3, 'K');
  return String(n);
}

/** "Qwen2 (model_type qwen2), 0.1M parameters": one line, for a completion item's detail. */
export function modelSummary(config: LmConfig): string {
  return `${definitionOf(config).displayName} (model_type ${config.family}), ${formatCount(parameterCount(config))} parameters`;
}

/** The architecture, one fact a line. */
function facts(config: LmConfig): string[] {
  const params = parameterCount(config);
  return [
    `- Architecture: ${definitionOf(config).displayName} (model_type \`${config.family}\`)`,
    `- Parameters: ${formatCount(params)} (${params.toLocaleString('en-US')})`,
    `- Layers: ${config.layers}`,
    `- Heads: ${config.heads} query, ${config.kvHeads} key/value${config.kvHeads < config.heads ? ' (grouped-query attention)' : ''}; head_dim ${config.headDim}`,
    `- Width: ${config.width}; MLP width: ${config.mlpWidth} (${config.mlp === 'swiglu' ? 'SwiGLU' : 'GELU'})`,
    `- Vocabulary: ${config.vocab.toLocaleString('en-US')} tokens`,
    `- Context: ${config.context.toLocaleString('en-US')} tokens`,
    `- Stored dtype: ${config.dtype ?? 'not stated'} (rlx computes in float32)`,
    `- Embeddings: ${config.tiedEmbeddings ? 'tied to the output head' : 'separate from the output head'}`,
  ];
}

function problem(read: ModelFolderRead): string | undefined {
  switch (read.kind) {
    case 'missing': return 'The folder does not exist.';
    case 'not-a-folder': return 'The path names a file, not a folder.';
    case 'invalid-config': return read.message;
    case 'incomplete': return `The folder has no ${read.missing.join(' and no ')}.`;
    case 'model': return undefined;
  }
}

/** The experiments whose policy is this one (directly). */
function experimentsUsing(model: Model, policy: DeclSymbol): DeclSymbol[] {
  const out: DeclSymbol[] = [];
  for (const symbol of model.allSymbols()) {
    if (symbol.decl.declKind !== 'experiment') continue;
    const target = model.referencedTarget(symbol, 'policy');
    if (target?.kind === 'decl' && target.symbol === policy) out.push(symbol);
  }
  return out;
}

const MAX_EXPERIMENTS = 3;

/** Markdown about a pretrained policy's model; undefined when the policy is not a pretrained one. */
export function pretrainedModelDoc(model: Model, policy: DeclSymbol): string | undefined {
  const folder = model.modelFolder(policy);
  if (!folder) return undefined;
  const header = `Model folder \`${folder.written}\``;
  const wrong = problem(folder.read);
  const found = pretrainedModel(model, policy);
  if (!found) return `${header}: ${wrong}`;
  const { config } = found;
  const lines = [header + (wrong ? ` (${wrong})` : ''), '', ...facts(config)];
  const lora = loraSettings(model, policy, config);
  if (lora) {
    const trained = loraParameters(config, lora);
    const share = (100 * trained) / parameterCount(config);
    lines.push(`- LoRA: rank ${lora.rank} on ${lora.targets.join(', ')}: ${trained.toLocaleString('en-US')} trainable parameters (${share < 0.1 ? share.toFixed(3) : share.toFixed(1)}% of the model)`);
  } else {
    lines.push('- Training: full fine-tuning (every weight)');
  }
  const experiments = experimentsUsing(model, policy);
  lines.push('');
  if (experiments.length === 0) {
    const weightsOnly = estimateMemory(config, { trainableParameters: 0, sampleRows: 0, sequenceLength: 0, trainRows: 0, referenceCopy: false });
    lines.push(`Memory: ${describeMemory(weightsOnly)}; an experiment that trains it shows the whole estimate here.`);
  }
  for (const experiment of experiments.slice(0, MAX_EXPERIMENTS)) {
    const memory = experimentMemory(model, experiment);
    if (memory) lines.push(`Memory in experiment ${experiment.name}: ${describeMemory(memory.estimate)}  \n(${memory.basis})`);
  }
  if (experiments.length > MAX_EXPERIMENTS) lines.push(`… and ${experiments.length - MAX_EXPERIMENTS} more experiments`);
  return lines.join('\n');
}
