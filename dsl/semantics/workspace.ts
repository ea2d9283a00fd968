// The set of .rlx files being analysed: their texts, parses and resolved imports. A parse is
// reused while a file's text is unchanged, so re-checking after an edit re-parses one file.
import * as os from 'node:os';
import * as path from 'node:path';
import type { Import } from '../syntax/ast.js';
import { parse, type ParseResult } from '../syntax/parse.js';
import { reparse } from '../syntax/incremental.js';
import { readEnvModuleSpec, type EnvModuleRead } from './env-module.js';

/** Where file texts come from: the disk for the command line, open editors plus disk for the server. */
export interface FileHost {
  /** The file's text, or undefined when it cannot be read. */
  readFile(filePath: string): string | undefined;
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

  /** What the user env module at an absolute path declares (env-module.ts); read again only when its text changed. */
  envModule(filePath: string): EnvModuleRead {
    const text = this.host.readFile(filePath);
    if (text === undefined) {
      this.envModules.delete(filePath);
      return { kind: 'missing' };
    }
    const cached = this.envModules.get(filePath);
    if (cached?.text === text) return cached.read;
    const read = readEnvModuleSpec(text);
    this.envModules.set(filePath, { text, read });
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
