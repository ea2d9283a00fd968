// Who imports whom among the known .rlx files, as of each file's latest parse. A changed file is
// marked dirty and parsed when the graph is next asked (so edits arriving faster than requests
// cost one parse, not one each); the reverse graph is rebuilt only when some file's imports changed.
import type { SourceUnit } from '../dsl/index.js';

/** Where the graph reads files from: their current parse, and whether the server knows them. */
export interface ImportSource {
  unit(filePath: string): SourceUnit | undefined;
  isKnown(filePath: string): boolean;
}

export class ImportGraph {
  /** Paths whose text changed since their imports were last read. */
  private readonly dirty = new Set<string>();
  /** Resolved imports of every known file, as of its latest parse. */
  private readonly importsOf = new Map<string, string[]>();
  private generation = 0;
  private importersMemo: { generation: number; reverse: Map<string, string[]> } | undefined;

  constructor(private readonly source: ImportSource) {}

  /** The file's text changed (or it appeared or went): its imports are read again when next needed. */
  markDirty(filePath: string): void {
    this.dirty.add(filePath);
  }

  /** Brings parses up to date for changed files and records their imports. */
  refresh(): void {
    for (const p of this.dirty) {
      const unit = this.source.unit(p);
      const imports = unit ? unit.imports.flatMap((i) => (i.path ? [i.path] : [])) : undefined;
      const after = imports && this.source.isKnown(p) ? imports : undefined;
      if (!sameList(this.importsOf.get(p), after)) this.generation++;
      if (after) this.importsOf.set(p, after);
      else this.importsOf.delete(p);
    }
    this.dirty.clear();
  }

  /** Files that import `p`, directly or through others (not `p` itself). */
  importersOf(p: string): string[] {
    this.refresh();
    if (this.importersMemo?.generation !== this.generation) {
      const reverse = new Map<string, string[]>();
      for (const [from, imports] of this.importsOf) {
        for (const to of imports) {
          const list = reverse.get(to);
          if (list) list.push(from);
          else reverse.set(to, [from]);
        }
      }
      this.importersMemo = { generation: this.generation, reverse };
    }
    const reverse = this.importersMemo.reverse;
    const seen = new Set<string>([p]);
    const queue = [p];
    while (queue.length > 0) {
      for (const importer of reverse.get(queue.pop()!) ?? []) {
        if (!seen.has(importer)) {
          seen.add(importer);
          queue.push(importer);
        }
      }
    }
    seen.delete(p);
    return [...seen];
  }

  /** The roots an analysis of these files needs: the files and all their importers. */
  rootsFor(paths: string[]): string[] {
    const roots = new Set<string>();
    for (const p of paths) {
      roots.add(p);
      for (const importer of this.importersOf(p)) roots.add(importer);
    }
    return [...roots];
  }
}

function sameList(a: string[] | undefined, b: string[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
