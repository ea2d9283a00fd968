// Which .rlx files the server knows and what their texts are: the index of the files under the
// workspace folders, the open documents (their texts overlay the disk's), the size limit (a file
// over it is analysed as empty), and the mapping between the client's URIs and paths.
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { Workspace } from '../dsl/index.js';
import { pathToUri } from './context.js';
import { DiskHost, findRlxFiles, isSkippedPath } from './disk.js';
import { isTooLarge, MAX_DOCUMENT_CHARS } from './limits.js';

export class FileIndex {
  // A UTF-8 file of n bytes holds at least n / 3 UTF-16 code units (3 bytes at most per unit):
  // past three times the limit a file cannot be within it, so it is not read at all.
  private readonly disk = new DiskHost(3 * MAX_DOCUMENT_CHARS);
  /** The texts and parses the front end analyses: open documents over the disk. */
  readonly files = new Workspace({ readFile: (p) => this.readWithinLimit(p), readDataFile: (p) => this.disk.readDataFile(p) });
  /** Files over the size limit (limits.ts), analysed as empty: their length in characters. */
  private readonly oversized = new Map<string, number>();
  private folders: string[] = [];
  /** .rlx files on disk under the workspace folders. */
  private readonly indexed = new Set<string>();
  /** Open documents by path (the client's URI is kept in the TextDocument). */
  private readonly open = new Map<string, TextDocument>();

  // --- Which files exist -------------------------------------------------------------------

  setFolders(folders: string[]): void {
    this.folders = folders.map((f) => path.resolve(f));
  }

  get workspaceFolders(): readonly string[] {
    return this.folders;
  }

  /** Indexes the .rlx files under the folders, replacing the previous index: what is in it now, what joined it and what left it. */
  async scan(): Promise<{ found: string[]; added: string[]; removed: string[] }> {
    const found = (await Promise.all(this.folders.map(findRlxFiles))).flat();
    const now = new Set(found);
    const removed = [...this.indexed].filter((p) => !now.has(p));
    removed.forEach((p) => this.indexed.delete(p));
    const added = found.filter((p) => !this.indexed.has(p));
    added.forEach((p) => this.indexed.add(p));
    return { found, added, removed };
  }

  /** Files the server reports on: indexed ones and open ones. */
  knownFiles(): string[] {
    return [...new Set([...this.indexed, ...this.open.keys()])];
  }

  isKnown(filePath: string): boolean {
    return this.indexed.has(filePath) || this.open.has(filePath);
  }

  isIndexed(filePath: string): boolean {
    return this.indexed.has(filePath);
  }

  /** Adds a file the watcher reported to the index, unless it is in a folder the index skips (run folders, node_modules); false then. */
  add(filePath: string): boolean {
    if (isSkippedPath(filePath, this.folders)) return false;
    this.indexed.add(filePath);
    return true;
  }

  remove(filePath: string): void {
    this.indexed.delete(filePath);
  }

  /** The disk's text of `filePath` is read again when next needed (the file changed). */
  forgetDisk(filePath: string): void {
    this.disk.forget(filePath);
  }

  /** A new file saved in a workspace folder joins the index without waiting for the watcher. */
  indexIfOnDisk(p: string): void {
    if (p.endsWith('.rlx') && !isSkippedPath(p, this.folders) && this.disk.readFile(p) !== undefined) this.indexed.add(p);
  }

  // --- Open documents -----------------------------------------------------------------------

  /** A document was opened or edited: its text now wins over the disk. */
  setDocument(p: string, doc: TextDocument): void {
    this.open.set(p, doc);
    this.files.setOverlay(p, this.withinLimit(p, doc.getText()));
  }

  /** A document was closed: the disk's text applies again. */
  closeDocument(p: string): void {
    this.open.delete(p);
    this.files.setOverlay(p, undefined);
    this.disk.forget(p); // it was probably just saved
  }

  isOpen(filePath: string): boolean {
    return this.open.has(filePath);
  }

  /** The open document of a path. */
  documentAt(filePath: string): TextDocument | undefined {
    return this.open.get(filePath);
  }

  /** The disk's text of `p`, or '' for a file over the size limit (recorded for tooLarge()). */
  private readWithinLimit(p: string): string | undefined {
    const text = this.disk.readFile(p);
    const unreadBytes = this.disk.tooLargeBytes(p);
    if (unreadBytes === undefined) return this.withinLimit(p, text);
    this.oversized.set(p, unreadBytes); // in bytes, not characters: near enough for the message
    return '';
  }

  /** The text to analyse for a file: itself, or nothing when it is over the size limit. */
  private withinLimit(p: string, text: string | undefined): string | undefined {
    if (text === undefined || !isTooLarge(text)) {
      this.oversized.delete(p);
      return text;
    }
    this.oversized.set(p, text.length);
    return '';
  }

  /** The length of a file over the size limit, in characters; undefined for files within it. */
  tooLarge(filePath: string): number | undefined {
    return this.oversized.get(filePath);
  }

  // --- Paths and URIs -----------------------------------------------------------------------

  /**
   * The path the front end knows a document by. Documents that are not files (an untitled
   * buffer) get a path of their own under a folder no real file has, so they never clash
   * with one; their imports resolve nowhere.
   */
  pathOf(uri: string): string {
    if (uri.startsWith('file:')) {
      try {
        return path.resolve(fileURLToPath(uri));
      } catch {
        // a malformed file URI: treated as a non-file document below
      }
    }
    return path.resolve(path.sep, '.rlx-documents', encodeURIComponent(uri));
  }

  /** The URI to report a path under: the client's own for open documents. */
  uriOf(filePath: string): string {
    return this.open.get(filePath)?.uri ?? pathToUri(filePath);
  }

  /** For each open document whose client URI differs from the one features derive from its path. */
  clientUris(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [p, doc] of this.open) {
      const derived = pathToUri(p);
      if (derived !== doc.uri) out.set(derived, doc.uri);
    }
    return out;
  }
}
