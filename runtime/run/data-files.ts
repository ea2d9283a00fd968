// The data files a plan's settings name: every setting the registry types `file` (SFT's `data`,
// GRPO's `sft_data`, whatever a new learner declares so; dsl/schema/work.ts stageDataFiles says
// which). A new run reads each once, before anything is written, and keeps a copy in the run
// folder, data/<stage>.<setting><ext>, listed with its sha256 in data/files.json; a resume, or
// a new run from the run's plan.json (`rlx train --plan runs/.../plan.json`, a copied run
// folder), reads those copies and never the original path. The algorithm is handed each file by
// its setting (AlgorithmContext.dataFiles) and reads it as it likes; nothing here knows one.
//
// docs/run-directory.md#data is the contract.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Plan, PlanStage } from '../../dsl/compile/plan.js';
import { datasetInsideFolder, MAX_DATASET_BYTES } from '../../dsl/schema/dataset.js';
import { stageDataFiles } from '../../dsl/schema/index.js';
import { InputFileError, readInputFile } from '../../shared/input-files.js';
import { writeFileAtomic, writeJsonAtomic } from '../atomic-files.js';
import { readRunFile, readRunJson, RUN_FILE_LIMITS, runFileExists } from './run-files.js';

/** The run folder's copies of its data files, and the record of them. */
export const DATA_FOLDER = 'data';
export const DATA_MANIFEST = path.join(DATA_FOLDER, 'files.json');

/** One line of data/files.json: a data file a stage's setting names, and the run's copy of it. */
export interface DataFileRecord {
  /** The stage, by name, and its setting that names the file. */
  readonly stage: string;
  readonly param: string;
  /** The path as the plan names it (relative to the .rlx file's folder). */
  readonly path: string;
  /** The run's copy, relative to the run folder: `data/<stage>.<param><ext>`. */
  readonly file: string;
  readonly sha256: string;
  readonly bytes: number;
}

/** A data file as an algorithm reads it: the path the plan names (for messages) and its bytes. */
export interface DataFile {
  readonly path: string;
  /** The file's bytes: as read when the run started, or the run folder's copy (its sha256 checked). */
  bytes(): Uint8Array;
}

interface Entry {
  readonly index: number;
  readonly record: DataFileRecord;
  /** The bytes until the run folder holds its copy; then read from there. */
  bytes: Uint8Array | undefined;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A stage's or setting's name as a file name: no separators, nothing hidden. */
const fileName = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, '_') || 'stage';

/** The original's extension where it is a plain one (`.jsonl`), so the copy opens as the same kind of file. */
const extensionOf = (file: string) => (/^\.[A-Za-z0-9]{1,10}$/.test(path.extname(file)) ? path.extname(file) : '');

export class RunDataFiles {
  private runDir: string | undefined;

  private constructor(private readonly stages: readonly PlanStage[], private readonly entries: readonly Entry[], runDir?: string) {
    this.runDir = runDir;
  }

  /**
   * The data files of a new run of `plan`, read now: each relative to `baseDir` (the .rlx file's
   * folder) and inside it, a regular file of at most MAX_DATASET_BYTES; or, where `baseDir` is a
   * run folder that keeps a copy of the same path, that copy. `text`: whether the env is text
   * (what a learner module's settings are). An InputFileError naming the stage, setting and path.
   */
  static read(plan: Plan, baseDir: string | undefined, text: boolean): RunDataFiles {
    const kept = baseDir !== undefined && runFileExists(path.join(baseDir, DATA_MANIFEST)) ? RunDataFiles.ofRun(baseDir, plan, text, { partial: true }) : undefined;
    const entries: Entry[] = [];
    const taken = new Set<string>();
    wanted(plan, text).forEach(({ index, stage, param, file: written }) => {
      const at = `stage ${stage.name}: ${param} ${JSON.stringify(written)}`;
      let name = `${fileName(stage.name)}.${fileName(param)}${extensionOf(written)}`;
      if (taken.has(name)) name = `${index}-${name}`; // two stages of one name (a plan written by hand)
      taken.add(name);
      const copy = kept?.entries.find((e) => e.record.path === written);
      let bytes: Uint8Array;
      if (copy) {
        bytes = kept!.bytesOf(copy);
      } else {
        if (baseDir === undefined) throw new InputFileError(`${at}: the path is relative to the folder of the .rlx file, which this run was not given; train from the .rlx file`);
        if (!datasetInsideFolder(written, baseDir)) throw new InputFileError(`${at}: the file is outside the folder of the .rlx file (${baseDir}); data file paths stay inside it: copy the file there (or link to it from there)`);
        try {
          bytes = readInputFile(path.resolve(baseDir, written), { what: 'data file', maxBytes: MAX_DATASET_BYTES });
        } catch (err) {
          if (!(err instanceof InputFileError)) throw err;
          throw new InputFileError(`${at}: ${err.message}; paths are relative to the folder of the .rlx file`, { cause: err });
        }
      }
      entries.push({ index, bytes, record: { stage: stage.name, param, path: written, file: `${DATA_FOLDER}/${name}`, sha256: sha256(bytes), bytes: bytes.length } });
    });
    return new RunDataFiles(plan.stages, entries);
  }

  /**
   * The data files the run folder `runDir` keeps for `plan` (data/files.json): each copy a
   * regular file of the run folder, read when a stage asks and refused when its sha256 is not
   * the one recorded. A stage's file the record does not list is an InputFileError, unless
   * `partial` (a plan taken from the run may name files of its own).
   */
  static ofRun(runDir: string, plan: Plan, text: boolean, options: { partial?: boolean } = {}): RunDataFiles {
    const records = runFileExists(path.join(runDir, DATA_MANIFEST)) ? readManifest(runDir) : [];
    const entries: Entry[] = [];
    for (const { index, stage, param, file: written } of wanted(plan, text)) {
      const record = records.find((r) => r.stage === stage.name && r.param === param && r.path === written) ?? (options.partial ? records.find((r) => r.path === written) : undefined);
      if (record) entries.push({ index, record, bytes: undefined });
      else if (!options.partial) {
        throw new InputFileError(`${path.join(runDir, DATA_MANIFEST)} lists no copy of stage ${stage.name}'s ${param} ${JSON.stringify(written)}, which the run reads; restore the run folder from a copy, or train the .rlx file as a new run`);
      }
    }
    const files = new RunDataFiles(plan.stages, entries, runDir);
    for (const entry of entries) files.bytesOf(entry); // a copy changed since is refused before anything is written
    return files;
  }

  /** What data/files.json lists. */
  get records(): readonly DataFileRecord[] {
    return this.entries.map((e) => e.record);
  }

  /** What the hparams event of `stage` says of its data files: by setting, the path, the run's copy and its sha256. */
  hparamsOf(stage: PlanStage): Record<string, { path: string; file: string; sha256: string }> {
    const index = this.stages.indexOf(stage);
    return Object.fromEntries(this.entries.filter((e) => e.index === index).map(({ record: r }) => [r.param, { path: r.path, file: r.file, sha256: r.sha256 }]));
  }

  /** The data files of `stage` (one of the plan's stages), by setting. */
  forStage(stage: PlanStage): ReadonlyMap<string, DataFile> {
    const index = this.stages.indexOf(stage);
    return new Map(this.entries.filter((e) => e.index === index).map((e) => [e.record.param, { path: e.record.path, bytes: () => this.bytesOf(e) }]));
  }

  /**
   * Writes the copies and data/files.json into the new run folder `runDir` (each atomically; the
   * record last, so a run folder never lists a copy it lacks); later reads come from there.
   */
  keepIn(runDir: string): void {
    if (this.entries.length === 0) return;
    fs.mkdirSync(path.join(runDir, DATA_FOLDER), { recursive: true });
    for (const entry of this.entries) writeFileAtomic(path.join(runDir, entry.record.file), entry.bytes!);
    writeJsonAtomic(path.join(runDir, DATA_MANIFEST), { files: this.records });
    this.runDir = runDir;
    for (const entry of this.entries) entry.bytes = undefined;
  }

  private bytesOf(entry: Entry): Uint8Array {
    if (entry.bytes) return entry.bytes;
    const runDir = this.runDir!;
    const file = path.join(runDir, entry.record.file);
    const bytes = readRunFile(runDir, file, RUN_FILE_LIMITS.dataFile);
    if (bytes.length !== entry.record.bytes || sha256(bytes) !== entry.record.sha256) {
      throw new InputFileError(`${file} is not the file the run trained on (its sha256 is not the one ${DATA_MANIFEST} records for stage ${entry.record.stage}'s ${entry.record.param}); restore it from a copy of the run`);
    }
    return bytes;
  }
}

/** Each stage's settings that name a file, in stage order. */
function wanted(plan: Plan, text: boolean): { index: number; stage: PlanStage; param: string; file: string }[] {
  return plan.stages.flatMap((stage, index) => stageDataFiles(stage.algorithm.kind, stage.algorithm.params as Record<string, unknown>, text).map((f) => ({ index, stage, param: f.param, file: f.path })));
}

/** data/files.json's records, each checked: a copy's name stays inside data/ (a run folder may come from a stranger). */
function readManifest(runDir: string): DataFileRecord[] {
  const where = path.join(runDir, DATA_MANIFEST);
  const files = (readRunJson(runDir, where, RUN_FILE_LIMITS.dataManifest) as { files?: unknown } | null)?.files;
  const valid = (r: unknown): r is DataFileRecord => {
    if (typeof r !== 'object' || r === null) return false;
    const { stage, param, path: written, file, sha256: hash, bytes } = r as Record<string, unknown>;
    return [stage, param, written].every((s) => typeof s === 'string') && typeof file === 'string' && /^data\/[A-Za-z0-9_.-]+$/.test(file) && !file.includes('..')
      && typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash) && Number.isSafeInteger(bytes) && (bytes as number) >= 0;
  };
  if (!Array.isArray(files) || !files.every(valid)) {
    throw new InputFileError(`${where} is not a record of the run's data files ({"files": [{"stage", "param", "path", "file": "data/...", "sha256", "bytes"}, ...]}); restore it from a copy of the run`);
  }
  return files;
}
