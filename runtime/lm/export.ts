// Taking a trained pretrained policy back to the Hugging Face world (`rlx export`): a LoRA run
// as a PEFT adapter folder, or (a full fine-tuning run, or a LoRA run with merge) as a complete
// model folder that transformers and vLLM load: config.json, model.safetensors (sharded as
// transformers shards, float32), and the tokenizer and chat template files of the base folder.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeJsonAtomic } from '../atomic-files.js';
import { InputError } from '../../shared/input-error.js';
import { readInputFile, readInputJson } from '../../shared/input-files.js';
import { WeightStore, type WeightSnapshot } from '../tensor/index.js';
import type { LmConfig } from '../../hf/config.js';
import { readBoundedLmConfig } from '../../hf/config-bounds.js';
import { checkBaseFiles, type BaseFiles } from './base-files.js';
import { loadLmWeights } from './load.js';
import { loraAdapters, loraScale, type LoraAdapter, type LoraSettings } from '../../hf/lora.js';
import { writeAdapter } from './peft.js';
import { writeShardedSafetensors, type TensorToWrite } from './safetensors-writer.js';
import { trainedStore } from './trained-weights.js';
import { transpose2d, weightSpecs } from '../../hf/weights.js';

export class ExportError extends InputError {
  override name = 'ExportError';
}

/** What a run's checkpoint records of its pretrained policy (policies/pretrained.ts exportOnnx). */
export interface PretrainedManifest {
  readonly kind: 'pretrained';
  /** `files`: the sha256 of the base folder's files the run read (base-files.ts); absent in runs of earlier versions. */
  readonly base: { readonly folder: string; readonly model_type: string; readonly files?: BaseFiles };
  readonly lora: LoraSettings | null;
  /** How the run held its LoRA base: float16 when kept in half precision (absent: float32, and in earlier runs). */
  readonly base_dtype?: string;
  readonly chat: unknown;
}

/** Files of a model folder besides its config and weights that a copy of the model needs. */
const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja', 'generation_config.json', 'special_tokens_map.json', 'vocab.json', 'merges.txt', 'added_tokens.json'];
/** transformers' default shard size (save_pretrained's max_shard_size "5GB"). */
const MAX_SHARD_BYTES = 5e9;

export interface ExportResult {
  readonly kind: 'adapter' | 'model';
  readonly files: readonly string[];
}

/**
 * Writes the trained policy `weights` (the adapters, or every weight) of a model based on
 * `manifest` into `outDir`: an adapter folder for LoRA unless `merge`, a model folder otherwise.
 */
export function exportPretrained(manifest: PretrainedManifest, weights: WeightSnapshot, outDir: string, options: { merge: boolean; recordedIn?: string; weightsFile?: string }): ExportResult {
  const folder = manifest.base.folder;
  let config: LmConfig;
  try {
    config = readBoundedLmConfig(folder);
  } catch (err) {
    throw new ExportError(`the run's base model ${folder} cannot be read (${(err as Error).message}); the export needs it where the run found it`);
  }
  // The adapters, and the config and tokenizer files copied beside the weights, belong to the base the run trained on.
  if (manifest.base.files) checkBaseFiles(folder, manifest.base.files, options.recordedIn ?? 'the run\'s policy record');
  // The checkpoint's weights, checked as generate and eval check them, before a file is written.
  const checkpoint = { weights, file: options.weightsFile ?? 'the checkpoint' };
  const adapters = manifest.lora ? loraAdapters(config, manifest.lora) : undefined;
  const trained = trainedStore(checkpoint, adapters ? adapters.flatMap((adapter) => [adapter.a, adapter.b]) : weightSpecs(config));
  fs.mkdirSync(outDir, { recursive: true });
  if (manifest.lora && adapters) {
    if (!options.merge) {
      writeAdapter(outDir, manifest.lora, adapters, trained, folder, config.family);
      return { kind: 'adapter', files: ['adapter_config.json', 'adapter_model.safetensors'].map((f) => path.join(outDir, f)) };
    }
    const base = loadLmWeights(folder, config);
    mergeAdapters(base, trained, adapters, loraScale(manifest.lora));
    return { kind: 'model', files: writeModelFolder(folder, config, base, outDir) };
  }
  return { kind: 'model', files: writeModelFolder(folder, config, trained, outDir) };
}

/** W += scale * A @ B for every adapter (all in runtime/'s [in, out] layout). */
export function mergeAdapters(base: WeightStore, adapters: WeightStore, list: readonly LoraAdapter[], scale: number): void {
  for (const adapter of list) {
    const w = base.get(adapter.base).data;
    const a = adapters.get(adapter.a.name).data;
    const b = adapters.get(adapter.b.name).data;
    const [inDim, rank] = adapter.a.shape;
    const outDim = adapter.b.shape[1];
    for (let i = 0; i < inDim; i++) {
      for (let k = 0; k < rank; k++) {
        const aik = scale * a[i * rank + k]!;
        if (aik === 0) continue;
        const row = i * outDim;
        const bRow = k * outDim;
        for (let j = 0; j < outDim; j++) w[row + j] += aik * b[bRow + j]!;
      }
    }
  }
}

/** A complete model folder: the base's config (dtype float32) and tokenizer files, and `weights` in Hugging Face's layout. */
function writeModelFolder(baseFolder: string, config: LmConfig, weights: WeightStore, outDir: string): string[] {
  const tensors: TensorToWrite[] = weightSpecs(config).map((spec) => {
    const data = weights.get(spec.name).data;
    return spec.transposed ? { name: spec.name, shape: [spec.shape[1]!, spec.shape[0]!], data: transpose2d(data, spec.shape[0]!, spec.shape[1]!) } : { name: spec.name, shape: [...spec.shape], data };
  });
  writeShardedSafetensors(outDir, tensors, MAX_SHARD_BYTES);
  const raw = readInputJson(path.join(baseFolder, 'config.json'), { what: 'model config', maxBytes: 4 * 2 ** 20 }) as Record<string, unknown>;
  const { torch_dtype: _old, ...rest } = raw;
  // rlx trains in float32 and writes float32; `dtype` as transformers 5 writes it, torch_dtype for older readers.
  writeJsonAtomic(path.join(outDir, 'config.json'), { ...rest, dtype: 'float32', torch_dtype: 'float32' });
  const copied: string[] = [];
  for (const name of TOKENIZER_FILES) {
    const from = path.join(baseFolder, name);
    if (!fs.existsSync(from)) continue;
    fs.writeFileSync(path.join(outDir, name), readInputFile(from, { what: 'tokenizer file', maxBytes: 256 * 2 ** 20 }));
    copied.push(path.join(outDir, name));
  }
  const weightFiles = fs.readdirSync(outDir).filter((f) => /^model(-\d+-of-\d+)?\.safetensors(\.index\.json)?$/.test(f)).map((f) => path.join(outDir, f));
  return [path.join(outDir, 'config.json'), ...weightFiles, ...copied];
}

