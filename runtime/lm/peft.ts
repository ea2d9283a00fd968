// PEFT adapter folders (adapter_config.json + adapter_model.safetensors), read and written as
// PEFT 0.x does for LoRA on a causal LM, so adapters trained elsewhere load here and ours load in
// PEFT, transformers and vLLM. Only plain LoRA is read: DoRA, per-module ranks, trained biases or
// saved modules would change the model in ways the adapters alone do not carry.
import * as path from 'node:path';
import { readInputJson } from '../../shared/input-files.js';
import type { WeightStore } from '../tensor/index.js';
import type { LmConfig } from '../../hf/config.js';
import { LoraError, loraAdapters, PEFT_PREFIX, type LoraAdapter, type LoraSettings } from '../../hf/lora.js';
import { familyDefinition } from '../../hf/families/index.js';
import { readSafetensorsHeader, readTensor, type StoredTensor } from '../../hf/safetensors.js';
import { writeSafetensors, type TensorToWrite } from './safetensors-writer.js';
import { transpose2d } from '../../hf/weights.js';
import { checkFiniteWeights } from '../../hf/finite-weights.js';
import { writeJsonAtomic } from '../atomic-files.js';

export const ADAPTER_CONFIG = 'adapter_config.json';
export const ADAPTER_WEIGHTS = 'adapter_model.safetensors';

/** The LoRA settings of a PEFT adapter folder; anything beyond plain LoRA is a LoraError saying what. */
export function readAdapterSettings(dir: string): LoraSettings {
  const file = path.join(dir, ADAPTER_CONFIG);
  const raw = readInputJson(file, { what: 'PEFT adapter config', maxBytes: 2 ** 20 }) as Record<string, unknown>;
  const fail = (what: string): never => {
    throw new LoraError(`${file}: ${what}`);
  };
  if (raw.peft_type !== 'LORA') fail(`peft_type is ${JSON.stringify(raw.peft_type)}; rlx reads LORA adapters`);
  if (raw.use_dora === true) fail('use_dora is true; rlx reads plain LoRA adapters, not DoRA');
  if (raw.bias !== undefined && raw.bias !== 'none') fail(`bias is ${JSON.stringify(raw.bias)}; rlx reads adapters that train no biases ("none")`);
  if (raw.modules_to_save) fail('modules_to_save is set; rlx reads adapters that save no whole modules');
  for (const key of ['rank_pattern', 'alpha_pattern']) {
    if (raw[key] && Object.keys(raw[key] as object).length > 0) fail(`${key} is set; rlx reads adapters with one rank and alpha for every layer`);
  }
  if (raw.layers_to_transform !== undefined && raw.layers_to_transform !== null) fail('layers_to_transform is set; rlx reads adapters on every layer');
  const targets = typeof raw.target_modules === 'string' ? fail(`target_modules is the pattern ${JSON.stringify(raw.target_modules)}; rlx reads a list of module names`) : raw.target_modules;
  if (!Array.isArray(targets) || !targets.every((t) => typeof t === 'string')) return fail('target_modules must be a list of module names');
  const rank = raw.r;
  const alpha = raw.lora_alpha ?? rank;
  if (typeof rank !== 'number' || typeof alpha !== 'number') return fail('r and lora_alpha must be numbers');
  return { rank, alpha, targets: targets as string[], rsLora: raw.use_rslora === true };
}

/**
 * Loads a PEFT adapter folder for model `c`: its settings, and its A and B matrices (in
 * runtime/'s layout) added to `store`.
 */
export function loadAdapter(dir: string, c: LmConfig, store: WeightStore): { settings: LoraSettings; adapters: LoraAdapter[] } {
  const settings = readAdapterSettings(dir);
  const adapters = loraAdapters(c, settings, path.join(dir, ADAPTER_CONFIG));
  const file = path.join(dir, ADAPTER_WEIGHTS);
  const stored = new Map(readSafetensorsHeader(file).tensors.map((t) => [t.name, t]));
  for (const adapter of adapters) {
    for (const part of [adapter.a, adapter.b]) {
      const name = PEFT_PREFIX + part.name;
      const t = stored.get(name) ?? stored.get(name.replace(/\.weight$/, '.default.weight'));
      const [rows, cols] = part.shape;
      if (!t) throw new LoraError(`${file}: no tensor "${name}", which adapter_config.json's target_modules (${settings.targets.join(', ')}) imply`);
      if (t.shape.length !== 2 || t.shape[0] !== cols || t.shape[1] !== rows) {
        throw new LoraError(`${file}: "${name}" is [${t.shape.join(', ')}], but the model and r = ${settings.rank} imply [${cols}, ${rows}]; is this adapter for this model?`);
      }
      store.add(part.name, part.shape, transpose2d(finiteTensor(t), cols, rows));
    }
  }
  return { settings, adapters };
}

function finiteTensor(t: StoredTensor): Float32Array {
  const values = readTensor(t);
  checkFiniteWeights(values, t.name, t.file);
  return values;
}

/** Writes `adapters` (their values in `store`) as a PEFT adapter folder. */
export function writeAdapter(dir: string, settings: LoraSettings, adapters: readonly LoraAdapter[], store: WeightStore, baseModel: string, family: string): void {
  const tensors: TensorToWrite[] = adapters.flatMap((adapter) =>
    [adapter.a, adapter.b].map((part) => {
      const [rows, cols] = part.shape;
      return { name: PEFT_PREFIX + part.name, shape: [cols, rows], data: transpose2d(store.get(part.name).data, rows, cols) };
    }),
  );
  writeSafetensors(path.join(dir, ADAPTER_WEIGHTS), tensors, { format: 'pt' });
  writeJsonAtomic(path.join(dir, ADAPTER_CONFIG), {
    base_model_name_or_path: baseModel,
    bias: 'none',
    // PEFT's flag for layers stored [in, out] (GPT-2's Conv1D).
    fan_in_fan_out: familyDefinition(family)?.linearStoredTransposed === false,
    inference_mode: true,
    init_lora_weights: true,
    lora_alpha: settings.alpha,
    lora_dropout: 0,
    modules_to_save: null,
    peft_type: 'LORA',
    r: settings.rank,
    target_modules: [...settings.targets],
    task_type: 'CAUSAL_LM',
    use_dora: false,
    use_rslora: settings.rsLora ?? false,
  });
}
