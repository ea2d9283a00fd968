// A config.json whose dimensions the weights beside it cannot hold (num_hidden_layers 10^7 over a
// checkpoint of two layers) made every reader allocate per layer before any tensor was matched:
// 38 s and 2.4 GB of rlx check at 10^6 layers, a V8 out-of-memory crash at 10^7 (issue 43,
// item 5). The safetensors headers say how many values the weights hold; a config that implies
// more parameters than that is refused here, with both figures, before anything is built from it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatBytes } from '../shared/input-files.js';
import { LmConfigError, parameterCount, readLmConfig, type LmConfig } from './config.js';
import { matchWeights } from './match-weights.js';
import { indexModelWeights, INDEX_NAME, SINGLE_FILE, type WeightIndex } from './safetensors.js';

/** Up to this many layers, a disagreement is left to matchWeights(), which names the tensor. */
const MATCHED_LAYERS = 10_000;

/** readLmConfig(modelDir), bounded by the weights beside it: what every reader of a model folder calls. */
export function readBoundedLmConfig(modelDir: string): LmConfig {
  return boundedByWeights(modelDir, readLmConfig(modelDir), path.join(modelDir, 'config.json'));
}

/** `config`, where the model folder's weights hold at least the parameters it implies; else an LmConfigError. */
export function boundedByWeights(modelDir: string, config: LmConfig, file: string): LmConfig {
  // Without weights (an incomplete folder) there is nothing to bound by: their readers say what is missing.
  if (!fs.existsSync(path.join(modelDir, SINGLE_FILE)) && !fs.existsSync(path.join(modelDir, INDEX_NAME))) return config;
  let stored = 0;
  let tensors = 0;
  let bytes = 0;
  let index: WeightIndex;
  try {
    index = indexModelWeights(modelDir);
    for (const t of index.tensors.values()) stored += t.shape.reduce((n, d) => n * d, 1);
    tensors = index.tensors.size;
    bytes = index.storedBytes;
  } catch {
    return config; // unreadable weights are the weights' readers' to report, in their words
  }
  const implied = parameterCount(config);
  if (implied <= stored) return config;
  // Few layers: matching each tensor is cheap, and its error names the tensor that disagrees.
  if (config.layers <= MATCHED_LAYERS) matchWeights(modelDir, config, index);
  const dims = `num_hidden_layers ${config.layers}, hidden_size ${config.width}, intermediate_size ${config.mlpWidth}, vocab_size ${config.vocab}, ${config.heads} heads of ${config.headDim}`;
  throw new LmConfigError(
    `${file} implies ${count(implied)} parameters (${dims}), but the weights beside it hold ${count(stored)} values (${formatBytes(bytes)} in ${tensors} tensors): ` +
      'the config and the weights disagree; download the model\'s config.json again, or fix the dimension that is wrong',
  );
}

/** 112,192; 43.3B: three figures from a million on. */
function count(n: number): string {
  for (const [unit, size] of [['T', 1e12], ['B', 1e9], ['M', 1e6]] as const) {
    if (n >= size) return `${Number((n / size).toPrecision(3)).toLocaleString('en-US')}${unit}`;
  }
  return n.toLocaleString('en-US');
}
