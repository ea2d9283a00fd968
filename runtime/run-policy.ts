// The pretrained policy a run trained, read back from its run directory: the plan says the
// policy is pretrained, the newest intact checkpoint holds the trained weights (every weight,
// or the LoRA adapters) and its policy file the record of what they belong to. Used by `rlx
// export`, and by `rlx tokenize`/`rlx generate` when they are given a run directory.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError } from '../shared/input-error.js';
import { readInputJson } from '../shared/input-files.js';
import { latestIntactCheckpoint, loadCheckpoint } from './run/checkpoint.js';
import type { WeightSnapshot } from './tensor/index.js';
import { checkBaseFiles } from './lm/base-files.js';
import type { PretrainedManifest } from './lm/export.js';
import { openModelFolder, type ModelFolder } from './lm/model-folder.js';
import { PretrainedLm, type PretrainedOptions } from './lm/pretrained.js';
import { pretrainedParams, resolvePretrained } from './policies/pretrained-settings.js';

export class RunPolicyError extends InputError {
  override name = 'RunPolicyError';
}

export interface RunPolicy {
  readonly manifest: PretrainedManifest;
  /** The trained weights: all of them (full fine-tuning) or the adapters (LoRA). */
  readonly weights: WeightSnapshot;
  readonly step: number;
  /** Index of the plan's stage the checkpoint was written in (0 in runs of one stage, and in older states). */
  readonly stage: number;
  /** The checkpoint's state file (the weights) and policy record (the manifest). */
  readonly stateFile: string;
  readonly manifestFile: string;
}

/** Whether `dir` is a run directory (it has the plan a run writes first). */
export function isRunDirectory(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'plan.json')) && fs.existsSync(path.join(dir, 'checkpoints'));
}

/**
 * The pretrained policy of run `runDir` at its newest intact checkpoint, or at `checkpoint` (a
 * state-<step>.json or policy-<step>.json of the run's checkpoints folder).
 */
export function readRunPolicy(runDir: string, checkpoint?: string): RunPolicy {
  const plan = readInputJson(path.join(runDir, 'plan.json'), { what: "run's plan", maxBytes: 64 * 2 ** 20 }) as { policy?: { kind?: string } };
  if (plan.policy?.kind !== 'pretrained') {
    throw new RunPolicyError(`${runDir} trained a ${plan.policy?.kind ?? 'unknown'} policy, not a pretrained one; its policy is the ONNX model in checkpoints/ (rlx eval runs it)`);
  }
  const checkpoints = path.join(runDir, 'checkpoints');
  const found = checkpoint === undefined ? latestIntactCheckpoint(checkpoints) : namedCheckpoint(checkpoints, checkpoint);
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
  const stage = state.trainer?.stage; // from a run folder: an index only if it is one
  return { manifest, weights, step: state.step, stage: Number.isSafeInteger(stage) && stage! >= 0 ? stage! : 0, stateFile: found.file, manifestFile };
}

/** The checkpoint a file of the run's checkpoints folder names (its state, or its policy record: the state of the same step). */
function namedCheckpoint(checkpoints: string, given: string): ReturnType<typeof latestIntactCheckpoint> {
  const real = (dir: string) => {
    try {
      return fs.realpathSync(dir);
    } catch {
      return undefined;
    }
  };
  const sameFolder = real(checkpoints) !== undefined && real(path.dirname(given)) === real(checkpoints);
  const name = path.basename(given);
  if (name === 'policy-final.json' && sameFolder) return latestIntactCheckpoint(checkpoints);
  const step = /^(?:state|policy)-(\d+)\.json$/.exec(name)?.[1];
  if (!sameFolder || step === undefined) {
    throw new RunPolicyError(`${given} is not a checkpoint of this run; name a state-<step>.json or policy-<step>.json in ${checkpoints}`);
  }
  const file = path.join(checkpoints, `state-${step}.json`);
  try {
    return { state: loadCheckpoint(file), file, damaged: [] };
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new RunPolicyError(`${(err as Error).message}; name another checkpoint, or leave --checkpoint out for the newest intact one`);
  }
}

/**
 * The run's base model folder, opened after checking it is the one the run trained on (the
 * sha256 of its files as the checkpoint's policy record has them: config, tokenizer and chat
 * template, and for LoRA the weights the adapters go over); a changed folder is a
 * BaseModelChangedError naming the file. Runs of earlier versions recorded nothing to check.
 */
export function openRunBase(run: RunPolicy): ModelFolder {
  checkRunBase(run);
  return openModelFolder(run.manifest.base.folder);
}

/** Refuses (BaseModelChangedError) a base folder whose files differ from those the run recorded. */
export function checkRunBase(run: RunPolicy): void {
  const { folder, files } = run.manifest.base;
  if (files) checkBaseFiles(folder, files, run.manifestFile);
}

/**
 * Before run `runDir` resumes from its checkpoint at `step`: refuses (BaseModelChangedError,
 * naming the file) a base folder whose files differ from those that checkpoint's policy record
 * has. Loading would not notice (a LoRA run's adapters go over whatever weights are there), and
 * the checkpoints the resumed run writes would record the new files, hiding the change from
 * `rlx eval` and `rlx export`. `plan` is the run's: its folder is resolved as the resume loads
 * it. Plans of other policies, and runs of earlier versions that recorded nothing, pass.
 */
export function checkResumedBase(runDir: string, plan: { policy?: { kind?: string; params?: Readonly<Record<string, unknown>>; path?: string } }, step: number): void {
  if (plan.policy?.kind !== 'pretrained') return;
  const manifestFile = path.join(runDir, 'checkpoints', `policy-${step}.json`);
  // The checkpoint's integrity record vouched for its policy file; one gone is the resume's to refuse.
  if (!fs.existsSync(manifestFile)) return;
  const manifest = readInputJson(manifestFile, { what: 'checkpoint policy record', maxBytes: 16 * 2 ** 20 }) as Partial<PretrainedManifest>;
  const files = manifest.base?.files;
  if (!files) return;
  let folder: string;
  try {
    folder = resolvePretrained(pretrainedParams(plan.policy.params ?? {}, plan.policy.path), undefined, `policy ${plan.policy.kind}`).folder;
  } catch {
    return; // settings the trainer refuses when it builds the policy, with its own message
  }
  checkBaseFiles(folder, files, manifestFile);
}

/** The run's policy as a model: its base with the weights the run trained (every weight, or the LoRA adapters over the base's). */
export function loadRunModel(run: RunPolicy, folder: ModelFolder, options: PretrainedOptions = {}): PretrainedLm {
  const trained = { weights: run.weights, file: run.stateFile };
  // A base the run held in float16 is read so again: a bf16 weight below float16's normal range was narrowed, and the run's figures are of it.
  const baseDtype = run.manifest.base_dtype === 'float16' ? 'float16' : undefined;
  return PretrainedLm.load(folder, run.manifest.lora ? { ...options, lora: { settings: run.manifest.lora, trained }, ...(baseDtype ? { baseDtype } : {}) } : { ...options, trained });
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
  const folder = openRunBase(run);
  return { folder, load: () => loadRunModel(run, folder, options) };
}
