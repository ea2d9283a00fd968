// What a run records of the model folder it started from, and the check that the folder is
// still that model when the run's policy is read back (`rlx eval`, `rlx generate`, `rlx export`
// on a run directory). A checkpoint holds only what the run trained: LoRA adapters need the
// base weights they were trained over, and every run needs the base's config, tokenizer and
// chat template. A folder re-downloaded at another revision, or a fine-tuned model exported
// over it, would load without complaint and give other figures; so the run records the sha256
// of each file it read and a changed file is refused, naming it.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputFileError, openInputFile } from '../../shared/input-files.js';
import { fileErrorReason } from '../../shared/file-errors.js';
import { indexModelWeights, INDEX_NAME, SINGLE_FILE } from '../../hf/safetensors.js';

/** The files besides the weights that opening a model folder reads (model-folder.ts). */
const FOLDER_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja', 'generation_config.json'];
const HASH_CHUNK = 16 * 2 ** 20;

/** File name (relative to the folder) -> sha256 of its bytes. */
export type BaseFiles = Readonly<Record<string, string>>;

/** A model folder that is no longer the one a run trained on. */
export class BaseModelChangedError extends InputFileError {
  override name = 'BaseModelChangedError';
}

/**
 * The sha256 of each file of model folder `dir` that a run reads: the small files always, the
 * weights files (model.safetensors, or the index and its shards) when `withWeights` (a LoRA
 * run, whose checkpoints hold the adapters only). Weights are hashed at about 1 GB/s.
 */
export function recordBaseFiles(dir: string, withWeights: boolean): BaseFiles {
  const names = FOLDER_FILES.filter((name) => fs.existsSync(path.join(dir, name)));
  if (withWeights) {
    const { files } = indexModelWeights(dir);
    // Shards are read through the index (a single model.safetensors wins over one).
    if (!fs.existsSync(path.join(dir, SINGLE_FILE))) names.push(INDEX_NAME);
    names.push(...files.map((f) => path.relative(dir, f)));
  }
  return Object.fromEntries(names.sort().map((name) => [name, fileSha256(path.join(dir, name))]));
}

/**
 * Refuses folder `dir` unless its files are those `recorded` (by `what`, a checkpoint's policy
 * record): a file changed, gone, or (for the small files) added since is named, with what to do.
 */
export function checkBaseFiles(dir: string, recorded: BaseFiles, what: string): void {
  const withWeights = Object.keys(recorded).some((name) => name.endsWith('.safetensors'));
  const refuse = (why: string): never => {
    throw new BaseModelChangedError(
      `the base model ${dir} is not the one this run trained on: ${why} (sha256 recorded in ${what}); ` +
        `put the model the run started from back in that folder (the same revision), or train again on this one`,
    );
  };
  // The record comes from a run folder: names of files inside the base folder, each with a sha256.
  const entries = recorded !== null && typeof recorded === 'object' ? Object.entries(recorded) : [];
  if (entries.length === 0 || entries.some(([name, sha]) => typeof sha !== 'string' || path.isAbsolute(name) || name.split(/[\\/]/).includes('..'))) {
    throw new BaseModelChangedError(`${what}: its record of the base model's files is damaged; evaluate another checkpoint, or train again`);
  }
  for (const name of Object.keys(recorded)) {
    if (!fs.existsSync(path.join(dir, name))) refuse(`${name} is gone`);
  }
  let now: BaseFiles;
  try {
    now = recordBaseFiles(dir, withWeights);
  } catch (err) {
    return refuse((err as Error).message);
  }
  for (const [name, sha] of Object.entries(recorded)) {
    if (now[name] !== sha) refuse(`${name} has changed since`);
  }
  for (const name of Object.keys(now)) {
    if (!(name in recorded)) refuse(`${name} was not there when the run began`);
  }
}

function fileSha256(file: string): string {
  const { fd, size } = openInputFile(file, { what: 'base model file', maxBytes: Number.MAX_SAFE_INTEGER });
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(Math.min(HASH_CHUNK, Math.max(size, 1)));
  try {
    for (let at = 0; at < size; ) {
      const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, size - at), at);
      if (n === 0) break; // shrank while reading: the digest differs, as it should
      hash.update(chunk.subarray(0, n));
      at += n;
    }
  } catch (err) {
    throw new InputFileError(`cannot read the base model file ${file}: ${fileErrorReason(err)}`);
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}
