// The pretrained policy a run trained, read back from its run directory: the plan says the
// policy is pretrained, the newest intact checkpoint holds the trained weights (every weight,
// or the LoRA adapters) and its policy file the record of what they belong to. Used by `rlx
// export`, and by `rlx tokenize`/`rlx generate` when they are given a run directory.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError } from '../../shared/input-error.js';
import { readInputJson } from '../../shared/input-files.js';
import { latestIntactCheckpoint } from '../run/checkpoint.js';
import type { WeightSnapshot } from '../tensor/index.js';
import type { Rng } from '../../shared/random.js';
import type { PretrainedManifest } from './export.js';
import { openModelFolder, type ModelFolder } from './model-folder.js';
import { PretrainedLm, type PretrainedOptions } from './pretrained.js';

export class RunPolicyError extends InputError {
  override name = 'RunPolicyError';
}

export interface RunPolicy {
  readonly manifest: PretrainedManifest;
  /** The trained weights: all of them (full fine-tuning) or the adapters (LoRA). */
  readonly weights: WeightSnapshot;
  readonly step: number;
}

/** Whether `dir` is a run directory (it has the plan a run writes first). */
export function isRunDirectory(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'plan.json')) && fs.existsSync(path.join(dir, 'checkpoints'));
}

export function readRunPolicy(runDir: string): RunPolicy {
  const plan = readInputJson(path.join(runDir, 'plan.json'), { what: "run's plan", maxBytes: 64 * 2 ** 20 }) as { policy?: { kind?: string } };
  if (plan.policy?.kind !== 'pretrained') {
    throw new RunPolicyError(`${runDir} trained a ${plan.policy?.kind ?? 'unknown'} policy, not a pretrained one; its policy is the ONNX model in checkpoints/ (rlx eval runs it)`);
  }
  const checkpoints = path.join(runDir, 'checkpoints');
  const found = latestIntactCheckpoint(checkpoints);
  if (!found.state) {
    const why = found.damaged.map((d) => `${d.file}: ${d.reason}`).join('; ');
    throw new RunPolicyError(`${runDir} has no intact checkpoint yet${why ? ` (${why})` : ''}; a run writes one at each checkpoint and when it ends`);
  }
  const state = found.state;
  const weights = (state.algorithmState as { weights?: WeightSnapshot }).weights;
  if (!weights) throw new RunPolicyError(`${found.file} holds no policy weights`);
  const manifestFile = path.join(checkpoints, `policy-${state.step}.json`);
  const manifest = readInputJson(manifestFile, { what: 'checkpoint policy record', maxBytes: 16 * 2 ** 20 }) as PretrainedManifest;
  if (manifest.kind !== 'pretrained' || typeof manifest.base?.folder !== 'string') throw new RunPolicyError(`${manifestFile} is not the record of a pretrained policy`);
  return { manifest, weights, step: state.step };
}

/**
 * The model a path names: a model folder, or a run directory (its base folder with the weights
 * its newest checkpoint trained: every weight, or the LoRA adapters over the base).
 */
export function loadModelAt(pathGiven: string, options: PretrainedOptions = {}): { folder: ModelFolder; load: () => PretrainedLm } {
  if (!isRunDirectory(pathGiven)) {
    const folder = openModelFolder(pathGiven);
    return { folder, load: () => PretrainedLm.load(folder, options) };
  }
  const run = readRunPolicy(pathGiven);
  const folder = openModelFolder(run.manifest.base.folder);
  return {
    folder,
    load: () => {
      // New adapters' initial values are replaced by the run's at once: no random draws needed.
      const lora = run.manifest.lora ? { lora: { settings: run.manifest.lora, rng: { uniform: () => 0 } as unknown as Rng } } : {};
      const lm = PretrainedLm.load(folder, { ...options, ...lora });
      lm.trainable.load(run.weights);
      return lm;
    },
  };
}
