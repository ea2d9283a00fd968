// What makes a model family itself, in one place: the FamilyDefinition each file of hf/families/
// exports and hf/families/index.ts lists once. The readers of hf/ (config.json, weight names and
// layout, LoRA's layers, the memory estimate) and, through them, the checker, hover, the loader
// and the exporter ask a config's definition instead of branching on its model_type, so a new
// family is one file (hf/README.md, "Adding a family").
import type { ConfigFields } from './config-fields.js';
import type { LmConfig } from './config.js';
import type { LayerWeightNames, LinearNames, ModelWeightNames } from './weights.js';

/** A block's linear layers by role, as LayerWeightNames holds them. */
export type LinearRole = 'qkv' | 'q' | 'k' | 'v' | 'out' | 'gate' | 'up' | 'down';

export interface FamilyDefinition<T extends string = string> {
  /** config.json's `model_type`. */
  readonly modelType: T;
  /** The family's own name, for hover and messages ("Qwen2", "GPT-2"). */
  readonly displayName: string;
  /** config.json's fields read into this family's LmConfig; refusals name the field (ConfigFields.fail). */
  readConfig(fields: ConfigFields): LmConfig;
  /** config.json's field for the query heads, named when they do not divide the width. */
  readonly headsField: string;
  /** config.json's field for the context (max_position_embeddings, n_positions), named when a length passes it. */
  readonly contextField: string;
  /** The weights outside the blocks, by their Hugging Face names. */
  modelWeightNames(c: LmConfig): ModelWeightNames;
  /** Block `layer`'s weights, by their Hugging Face names. */
  layerWeightNames(c: LmConfig, layer: number): LayerWeightNames;
  /**
   * Linear weights are stored as nn.Linear's [out, in] (transposed on loading and on export);
   * false for GPT-2's Conv1D, which stores [in, out] (PEFT's fan_in_fan_out).
   */
  readonly linearStoredTransposed: boolean;
  /** The module name (PEFT's target_modules) of each linear layer its blocks have; GPT-2 names two c_proj. */
  readonly linearModules: Readonly<Partial<Record<LinearRole, string>>>;
  /** PEFT's default target_modules for the family: what `lora { }` adapts when it names no targets. */
  readonly defaultLoraTargets: readonly string[];
  /** Other names a checkpoint may store weight `name` under, tried in order when `name` is not there. */
  storedAliases?(name: string): readonly string[];
}

/** A linear layer's names: `prefix.weight`, and `prefix.bias` when it has one. */
export const linearNames = (prefix: string, bias: boolean): LinearNames => (bias ? { weight: `${prefix}.weight`, bias: `${prefix}.bias` } : { weight: `${prefix}.weight` });
