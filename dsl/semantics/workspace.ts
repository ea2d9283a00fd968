// The set of .rlx files being analysed: their texts, parses and resolved imports. A parse is
// reused while a file's text is unchanged, so re-checking after an edit re-parses one file.
import * as os from 'node:os';
import * as path from 'node:path';
import type { Import } from '../syntax/ast.js';
import { parse, type ParseResult } from '../syntax/parse.js';
import { reparse } from '../syntax/incremental.js';
import { readEnvModuleSpec, readPythonNames, type EnvModuleRead } from './env-module.js';
import { parseDatasetText, type DatasetParse, type DecodedText } from '../schema/dataset.js';

/** What a host found at a data file's path (a text task's `dataset("...")`). */
export type DataFileRead =
  | ({ readonly kind: 'text' } & DecodedText)
  /** Larger than the host reads to check while editing; `rlx train` reads and checks it. */
  | { readonly kind: 'large'; readonly bytes: number }
  /** `reason` in a few words: "no such file", "it is a folder, not a file". */
  | { readonly kind: 'unreadable'; readonly reason: string };

/** A dataset as the checker sees it: unreadable, too large to check now, or its lines read. */
export type DatasetRead = Exclude<DataFileRead, { kind: 'text' }> | { readonly kind: 'parsed'; readonly parse: DatasetParse; readonly invalidUtf8Line?: number };

/** Where file texts come from: the disk for the command line, open editors plus disk for the server. */
export interface FileHost {
  /** The file's text, or undefined when it cannot be read. */
  readFile(filePath: string): string | undefined;
  /**
   * A data file (a dataset), checked for what it is before it is read: a FIFO or a device is
   * unreadable, not waited on. Return the same object while the file is unchanged: its parse is
   * then reused. Hosts without it have datasets read with readFile().
   */
  readDataFile?(filePath: string): DataFileRead;
}

export interface ResolvedImport {
  node: Import;
  /** Absolute path of the imported file; undefined when the import has no path. */
  path: string | undefined;
}

export interface SourceUnit {
  path: string;
  text: string;
  parse: ParseResult;
  imports: ResolvedImport[];
}

export class Workspace {
  private readonly units = new Map<string, SourceUnit>();
  private readonly overlays = new Map<string, string>();
  /** What each env module declares, as of the text it was read from. */
  private readonly envModules = new Map<string, { text: string; read: EnvModuleRead }>();
  /** Each dataset's lines as read, kept while the host reports the same read of it. */
  private readonly datasets = new Map<string, { from: DataFileRead | string; read: DatasetRead }>();

  constructor(
    private readonly host: FileHost,
    /** Bytes of memory free now (pretrained models' memory estimate is checked against it); tests pass their own. */
    readonly freeMemory: () => number = os.freemem,
  ) {}

  /** Use this text instead of the host's for a file (an editor's unsaved buffer). */
  setOverlay(filePath: string, text: string | undefined): void {
    const key = path.resolve(filePath);
    if (text === undefined) this.overlays.delete(key);
    else this.overlays.set(key, text);
  }

  /** The unit for a file, parsed anew only if its text changed; undefined when unreadable. */
  unit(filePath: string): SourceUnit | undefined {
    const key = path.resolve(filePath);
    const text = this.overlays.get(key) ?? this.host.readFile(key);
    if (text === undefined) {
      this.units.delete(key);
      return undefined;
    }
    const cached = this.units.get(key);
    if (cached && cached.text === text) return cached;
    // After an edit, only the declaration that changed is parsed again (see incremental.ts).
    const parsed = cached ? reparse(cached.parse, cached.text, text) : parse(text);
    const dir = path.dirname(key);
    const imports = parsed.file.imports.map((node) => ({
      node,
      path: node.path && node.path.value.length > 0 ? path.resolve(dir, node.path.value) : undefined,
    }));
    const unit: SourceUnit = { path: key, text, parse: parsed, imports };
    this.units.set(key, unit);
    return unit;
  }

  /** What the user env module at an absolute path declares (env-module.ts; a .py file: the names it defines); read again only when its text changed. */
  envModule(filePath: string): EnvModuleRead {
    const text = this.host.readFile(filePath);
    if (text === undefined) {
      this.envModules.delete(filePath);
      return { kind: 'missing' };
    }
    const cached = this.envModules.get(filePath);
    if (cached?.text === text) return cached.read;
    const read = filePath.endsWith('.py') ? readPythonNames(text) : readEnvModuleSpec(text);
    this.envModules.set(filePath, { text, read });
    return read;
  }

  /** The dataset at an absolute path, its lines parsed (dsl/schema/dataset.ts); parsed again only when the host read it anew. */
  dataset(filePath: string): DatasetRead {
    const from: DataFileRead | string | undefined = this.host.readDataFile ? this.host.readDataFile(filePath) : this.host.readFile(filePath);
    if (from === undefined) return { kind: 'unreadable', reason: 'no such file' };
    const cached = this.datasets.get(filePath);
    if (cached?.from === from) return cached.read;
    const file: DataFileRead = typeof from === 'string' ? { kind: 'text', text: from } : from;
    const read: DatasetRead = file.kind === 'text' ? { kind: 'parsed', parse: parseDatasetText(file.text), ...(file.invalidUtf8Line !== undefined ? { invalidUtf8Line: file.invalidUtf8Line } : {}) } : file;
    this.datasets.set(filePath, { from, read });
    return read;
  }

  /**
   * The units of `roots` and of every file they import, transitively, each once, depth first
   * in import order. Iterative: an import chain may be thousands of files long.
   */
  closure(roots: string[]): SourceUnit[] {
    const seen = new Map<string, SourceUnit>();
    const stack = [...roots].reverse();
    while (stack.length > 0) {
      const key = path.resolve(stack.pop()!);
      if (seen.has(key)) continue;
      const unit = this.unit(key);
      if (!unit) continue;
      seen.set(key, unit);
      for (let i = unit.imports.length - 1; i >= 0; i--) {
        const imported = unit.imports[i]!.path;
        if (imported) stack.push(imported);
      }
    }
    return [...seen.values()];
  }
}
