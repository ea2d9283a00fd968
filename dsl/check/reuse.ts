// Reusing a declaration's check results from an earlier analysis, so that a keystroke re-checks
// the declarations it can change instead of the whole file (salsa's early cutoff, by hand).
//
// While a declaration is checked, the model tells a recorder what the checks read of it
// (ModelObserver): names looked up in a file (its scope: the names and kinds declared there and
// in its imports), declarations handed out (their text), chains of bases (their texts and where
// they end), and files outside the spec (env modules, model folders, datasets, Python env probes:
// the objects read). The reports are kept with every range stated against the declaration it lies in. A
// later analysis replays them for a declaration of the same text when every one of those reads
// still answers the same, at the positions the declarations now have; else the checks run.
// Reads the observer cannot follow (every file, the memory free now) make a result single-use.
//
// What checks may read without asking the model: their own declaration and the lines it spans
// (the key covers them), the declarations the model handed out, and the names and kinds of
// visibleSymbols(). model.references is not filled for replayed declarations (nothing reads it).
import type { DiagnosticCode, Fix, RelatedInformation, Severity } from '../diagnostics.js';
import type * as A from '../syntax/ast.js';
import type { BaseResolution, DeclSymbol, Model, ModelObserver } from '../semantics/model.js';
import type { SourceUnit } from '../semantics/workspace.js';
import type { CheckContext, ReportOptions } from './context.js';

/** The outside reads checks make, by kind: the analysis' own readers (they also note what was read). */
export type ExternalReads = Record<'module' | 'folder' | 'dataset' | 'python', (key: string) => unknown>;

/** A declaration an entry depends on, found again by file, name and which one of that name. */
interface SymbolRef {
  path: string;
  name: string;
  ordinal: number;
  /** Its text key (textKey) when recorded. */
  key: string;
  /** The checked declaration itself. */
  self: boolean;
}

/** A range stated against the start of a declaration (anchors[anchor]), which then may move. */
interface AnchoredRange {
  anchor: number;
  start: number;
  end: number;
}

interface Report {
  file: string;
  severity: Severity;
  code: DiagnosticCode;
  message: string;
  range: AnchoredRange;
  fixes?: { title: string; edits: { range: AnchoredRange; newText: string }[] }[];
  related?: { file: string; range: AnchoredRange; message: string }[];
}

interface Entry {
  scopes: { path: string; epoch: number }[];
  symbols: SymbolRef[];
  chains: { ref: SymbolRef; signature: string }[];
  reads: { kind: keyof ExternalReads; key: string; value: unknown }[];
  /** anchors[0] is the checked declaration. */
  anchors: SymbolRef[];
  reports: Report[];
}

/** At most this many entries per declaration text (the same text in different surroundings). */
const ENTRIES_PER_KEY = 4;

/**
 * Check results kept between analyses of the same files (AnalyzeOptions.cache). Per file it holds
 * the entries its latest analysis used or made, so it stays the size of the files' declarations.
 */
export class CheckCache {
  readonly entries = new Map<string, Map<string, Entry[]>>();
  /** Each file's scope signature and a number that changes whenever the signature does. */
  readonly scopes = new Map<string, { signature: string; epoch: number }>();
  private epochs = 0;
  /** Declarations whose reports were replayed, and those checked, since the cache was made. */
  readonly counts = { reused: 0, checked: 0 };

  /** The epoch of a file whose scope signature is `signature` now. */
  epochFor(path: string, signature: string): number {
    const known = this.scopes.get(path);
    if (known?.signature === signature) return known.epoch;
    const epoch = ++this.epochs;
    this.scopes.set(path, { signature, epoch });
    return epoch;
  }
}

/** What one declaration's checks read and reported, collected while they run. */
export class Recording implements ModelObserver {
  readonly scopesRead = new Set<SourceUnit>();
  readonly symbolsRead = new Set<DeclSymbol>();
  readonly chainsRead = new Set<DeclSymbol>();
  readonly reads: Entry['reads'] = [];
  readonly reports: { file: string; severity: Severity; code: DiagnosticCode; message: string; range: A.Range; options?: ReportOptions }[] = [];
  isOpaque = false;

  scope(unit: SourceUnit): void {
    this.scopesRead.add(unit);
  }
  symbol(symbol: DeclSymbol): void {
    this.symbolsRead.add(symbol);
  }
  chain(symbol: DeclSymbol): void {
    this.chainsRead.add(symbol);
  }
  opaque(): void {
    this.isOpaque = true;
  }
  read(kind: keyof ExternalReads, key: string, value: unknown): void {
    this.reads.push({ kind, key, value });
  }
  report(file: string, severity: Severity, code: DiagnosticCode, message: string, range: A.Range, options?: ReportOptions): void {
    this.reports.push({ file, severity, code, message, range, ...(options ? { options } : {}) });
  }
}

/** One analysis' use of the cache: what it needs to know of its model, computed once each. */
export class ReuseSession {
  private readonly keys = new Map<DeclSymbol, string>();
  private readonly ordinals = new Map<SourceUnit, Map<DeclSymbol, number>>();
  private readonly ownScopes = new Map<SourceUnit, string>();
  private readonly epochs = new Map<SourceUnit, number>();
  private readonly chains = new Map<DeclSymbol, string | null>();
  /** Entries this analysis used or made, by file: the file's entries once its checks are done. */
  private readonly next = new Map<string, Map<string, Entry[]>>();

  constructor(private readonly cache: CheckCache, private readonly model: Model, private readonly reads: ExternalReads) {}

  /** Replays the reports of a reusable entry for this declaration; false when there is none. */
  replay(symbol: DeclSymbol, contextFor: (unit: SourceUnit) => CheckContext): boolean {
    const key = this.keyOf(symbol);
    const path = symbol.unit.path;
    for (const entry of candidates(this.nextFor(path).get(key), this.cache.entries.get(path)?.get(key))) {
      const starts = this.validStarts(entry, symbol);
      if (!starts) continue;
      const at = (r: AnchoredRange): A.Range => ({ start: starts[r.anchor] + r.start, end: starts[r.anchor] + r.end });
      for (const report of entry.reports) {
        const options: ReportOptions = {};
        if (report.fixes) options.fixes = report.fixes.map((f): Fix => ({ title: f.title, edits: f.edits.map((e) => ({ range: at(e.range), newText: e.newText })) }));
        if (report.related) options.related = report.related.map((r): RelatedInformation => ({ file: r.file, range: at(r.range), message: r.message }));
        contextFor(this.model.unitAt(report.file)!).accept(report.severity, report.code, report.message, at(report.range), report.fixes || report.related ? options : undefined);
      }
      this.keep(path, key, entry);
      this.cache.counts.reused++;
      return true;
    }
    this.cache.counts.checked++;
    return false;
  }

  /** Keeps what a declaration's checks read and reported, when all of it can be followed. */
  store(symbol: DeclSymbol, recording: Recording): void {
    if (recording.isOpaque) return;
    const entry = this.entryOf(symbol, recording);
    if (entry) this.keep(symbol.unit.path, this.keyOf(symbol), entry);
  }

  /** A file's checks are done: its entries are those this analysis used or made. */
  unitDone(unit: SourceUnit): void {
    this.cache.entries.set(unit.path, this.nextFor(unit.path));
    this.next.delete(unit.path);
  }

  private nextFor(path: string): Map<string, Entry[]> {
    let map = this.next.get(path);
    if (!map) this.next.set(path, (map = new Map()));
    return map;
  }

  private keep(path: string, key: string, entry: Entry): void {
    const map = this.nextFor(path);
    const list = map.get(key);
    if (!list) map.set(key, [entry]);
    else if (!list.includes(entry)) {
      list.unshift(entry);
      if (list.length > ENTRIES_PER_KEY) list.pop();
    }
  }

  /** The start of each anchor now, when every dependency of the entry answers as recorded. */
  private validStarts(entry: Entry, symbol: DeclSymbol): number[] | undefined {
    for (const { path, epoch } of entry.scopes) {
      const unit = this.model.unitAt(path);
      if (!unit || this.epochOf(unit) !== epoch) return undefined;
    }
    for (const ref of entry.symbols) if (!this.find(ref, symbol)) return undefined;
    for (const { ref, signature } of entry.chains) {
      const found = this.find(ref, symbol);
      if (!found || this.chainSignature(found) !== signature) return undefined;
    }
    for (const { kind, key, value } of entry.reads) if (this.reads[kind](key) !== value) return undefined;
    const starts: number[] = [symbol.decl.range.start];
    for (let i = 1; i < entry.anchors.length; i++) {
      const found = this.find(entry.anchors[i], symbol);
      if (!found) return undefined;
      starts.push(found.decl.range.start);
    }
    for (const report of entry.reports) if (!this.model.unitAt(report.file)) return undefined;
    return starts;
  }

  /** The declaration a reference names now, if it has the same text and is (or is not) the checked one as before. */
  private find(ref: SymbolRef, checked: DeclSymbol): DeclSymbol | undefined {
    if (ref.self) return checked;
    const unit = this.model.unitAt(ref.path);
    const found = unit && this.model.declarationNamed(unit, ref.name, ref.ordinal);
    return found && found !== checked && this.keyOf(found) === ref.key ? found : undefined;
  }

  private entryOf(symbol: DeclSymbol, recording: Recording): Entry | undefined {
    const refOf = (s: DeclSymbol): SymbolRef => ({ path: s.unit.path, name: s.name, ordinal: this.ordinalOf(s), key: this.keyOf(s), self: s === symbol });
    const chains: Entry['chains'] = [];
    const scopes = new Set(recording.scopesRead);
    for (const s of recording.chainsRead) {
      // The declaration's own chain, ending at once (a built-in, module(...), an unknown name):
      // its text and the names of its file settle it, and a replay looks at both anyway.
      if (s === symbol && this.model.base(s, false).kind !== 'decl') {
        scopes.add(s.unit);
        continue;
      }
      const signature = this.chainSignature(s);
      if (signature === undefined) return undefined;
      chains.push({ ref: refOf(s), signature });
    }
    const anchors: SymbolRef[] = [refOf(symbol)];
    const anchorIndex = new Map<DeclSymbol, number>([[symbol, 0]]);
    let unanchored = false;
    const anchored = (file: string, range: A.Range): AnchoredRange => {
      const owner = file === symbol.unit.path && within(range, symbol.decl.range) ? symbol : this.declarationAround(file, range);
      if (!owner) {
        unanchored = true;
        return { anchor: 0, start: 0, end: 0 };
      }
      let index = anchorIndex.get(owner);
      if (index === undefined) {
        index = anchors.push(refOf(owner)) - 1;
        anchorIndex.set(owner, index);
      }
      const start = owner.decl.range.start;
      return { anchor: index, start: range.start - start, end: range.end - start };
    };
    const reports = recording.reports.map(({ file, severity, code, message, range, options }): Report => ({
      file, severity, code, message, range: anchored(file, range),
      ...(options?.fixes ? { fixes: options.fixes.map((f) => ({ title: f.title, edits: f.edits.map((e) => ({ range: anchored(file, e.range), newText: e.newText })) })) } : {}),
      ...(options?.related ? { related: options.related.map((r) => ({ file: r.file, range: anchored(r.file, r.range), message: r.message })) } : {}),
    }));
    if (unanchored) return undefined;
    return {
      scopes: [...scopes].map((unit) => ({ path: unit.path, epoch: this.epochOf(unit) })),
      symbols: [...recording.symbolsRead].map(refOf),
      chains,
      reads: recording.reads,
      anchors,
      // Copied: names in messages are slices of the file's text, which they would keep alive.
      reports: JSON.parse(JSON.stringify(reports)) as Report[],
    };
  }

  /** The named declaration of `file` whose range holds `range`. */
  private declarationAround(file: string, range: A.Range): DeclSymbol | undefined {
    const unit = this.model.unitAt(file);
    if (!unit) return undefined;
    const declarations = unit.parse.file.declarations;
    let lo = 0;
    let hi = declarations.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (declarations[mid].range.start <= range.start) lo = mid;
      else hi = mid - 1;
    }
    const decl = declarations[lo];
    if (!decl || !within(range, decl.range)) return undefined;
    const symbol = this.model.symbolOf(decl);
    return symbol?.unit === unit ? symbol : undefined;
  }

  /** A hash of the declaration's text with the rest of its first and last lines (fixes read the indentation), and its place on them. */
  private keyOf(symbol: DeclSymbol): string {
    let key = this.keys.get(symbol);
    if (key === undefined) {
      const { text } = symbol.unit;
      const { start, end } = symbol.decl.range;
      const lineStart = text.lastIndexOf('\n', start - 1) + 1;
      const lineEnd = text.indexOf('\n', end);
      // Where on those lines it lies, too: two declarations can share a line, and so its text.
      const column = start - lineStart;
      const length = end - start;
      key = hashText(text, lineStart, lineEnd < 0 ? text.length : lineEnd) + String.fromCharCode(column & 0xffff, column >>> 16, length & 0xffff, length >>> 16);
      this.keys.set(symbol, key);
    }
    return key;
  }

  /** Which of the declarations of its name in its file the symbol is. */
  private ordinalOf(symbol: DeclSymbol): number {
    let table = this.ordinals.get(symbol.unit);
    if (!table) {
      table = new Map();
      const counts = new Map<string, number>();
      for (const decl of symbol.unit.parse.file.declarations) {
        const s = this.model.symbolOf(decl);
        if (!s) continue;
        const n = counts.get(s.name) ?? 0;
        counts.set(s.name, n + 1);
        table.set(s, n);
      }
      this.ordinals.set(symbol.unit, table);
    }
    return table.get(symbol)!;
  }

  /** The names a lookup in this file can find: its own declarations' and its imports', with kinds, in order. */
  private epochOf(unit: SourceUnit): number {
    let epoch = this.epochs.get(unit);
    if (epoch === undefined) {
      const parts = [this.ownScope(unit)];
      for (const imp of unit.imports) {
        const imported = imp.path === undefined ? undefined : this.model.unitAt(imp.path);
        parts.push(`import ${JSON.stringify(imp.path ?? null)}\n`, imported && imported !== unit ? this.ownScope(imported) : '-\n');
      }
      epoch = this.cache.epochFor(unit.path, parts.join(''));
      this.epochs.set(unit, epoch);
    }
    return epoch;
  }

  private ownScope(unit: SourceUnit): string {
    let scope = this.ownScopes.get(unit);
    if (scope === undefined) {
      scope = unit.parse.file.declarations.map((d) => (d.name ? `${d.declKind} ${d.name.text}\n` : '')).join('') + 'end\n';
      this.ownScopes.set(unit, scope);
    }
    return scope;
  }

  /**
   * What effective() of a declaration is made of: the files and texts of its chain of bases and
   * where the chain ends. Undefined for a chain that loops (rare; its checks simply run).
   * Memoised along the chain, as effective() is.
   */
  private chainSignature(symbol: DeclSymbol): string | undefined {
    const known = this.chains.get(symbol);
    if (known !== undefined) return known ?? undefined;
    const path: DeclSymbol[] = [];
    let onPath: Set<DeclSymbol> | undefined; // made only for a long chain: most are one or two links
    let tail: string | null | undefined;
    let fromRoot = false;
    for (let current = symbol; ;) {
      tail = this.chains.get(current);
      if (tail !== undefined) break;
      if (path.length > 8) onPath ??= new Set(path);
      if (onPath ? onPath.has(current) : path.includes(current)) {
        tail = null;
        break;
      }
      onPath?.add(current);
      path.push(current);
      const base = this.model.base(current, false);
      if (base.kind !== 'decl') {
        tail = rootSignature(base);
        fromRoot = true;
        break;
      }
      current = base.symbol;
    }
    for (let i = path.length - 1; i >= 0; i--) {
      // Hashed only past the first link: a long chain would otherwise make long strings.
      if (tail !== null) {
        const link: string = `${path[i].unit.path}\0${this.keyOf(path[i])}\0${tail}`;
        tail = fromRoot && i === path.length - 1 ? link : hashString(link);
      }
      this.chains.set(path[i], tail as string | null);
    }
    return tail ?? undefined;
  }
}

/** This analysis' entries for a key, then the previous analysis' (without copying either list). */
function* candidates(mine: Entry[] | undefined, previous: Entry[] | undefined): Generator<Entry> {
  if (mine) yield* mine;
  if (previous) yield* previous;
}

function rootSignature(root: BaseResolution): string {
  switch (root.kind) {
    case 'builtin': return JSON.stringify(['builtin', root.spec.declKind, root.spec.name, root.folder ?? null]);
    case 'module': return JSON.stringify(['module', root.path ?? null]);
    default: return root.kind;
  }
}

function within(inner: A.Range, outer: A.Range): boolean {
  return inner.start >= outer.start && inner.end <= outer.end;
}

const hashString = (s: string) => hashText(s, 0, s.length);

/** A 64-bit hash (cyrb53's mixing, two lanes kept) of text[from, to), with its length: a string of 6 UTF-16 units. */
function hashText(text: string, from: number, to: number): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  // Each 32-bit number as two UTF-16 units: keys stay short and cost no number formatting.
  const length = to - from;
  return String.fromCharCode(h1 & 0xffff, h1 >>> 16, h2 & 0xffff, h2 >>> 16, length & 0xffff, length >>> 16);
}
