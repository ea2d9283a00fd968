// What every editor feature receives: one document, the analysis of the workspace it belongs to,
// and conversions between the front end's offsets and LSP positions. Features are pure
// functions of a DocumentContext (and the request's parameters); only handlers/ talk LSP.
import { pathToFileURL, fileURLToPath } from 'node:url';
import type { Position as LspPosition, Range as LspRange, Location } from 'vscode-languageserver';
import { LineIndex, type Analysis, type Range, type SourceUnit } from '../dsl/index.js';

export interface DocumentContext {
  uri: string;
  unit: SourceUnit;
  analysis: Analysis;
  lines: LineIndex;
  /** Settings that change what features return (inlay hints on/off, ...). */
  settings: ServerSettings;
}

export interface ServerSettings {
  inlayHints: { defaults: boolean };
}

export const DEFAULT_SETTINGS: ServerSettings = { inlayHints: { defaults: true } };

export function uriToPath(uri: string): string {
  return uri.startsWith('file:') ? fileURLToPath(uri) : uri;
}

export function pathToUri(filePath: string): string {
  return pathToFileURL(filePath).toString();
}

const lineIndexes = new WeakMap<SourceUnit, LineIndex>();

/** A LineIndex per parsed unit, built once (units are replaced, not mutated, when text changes). */
export function linesOf(unit: SourceUnit): LineIndex {
  let index = lineIndexes.get(unit);
  if (!index) {
    index = new LineIndex(unit.text);
    lineIndexes.set(unit, index);
  }
  return index;
}

export function toLspRange(lines: LineIndex, range: Range): LspRange {
  return { start: lines.position(range.start), end: lines.position(range.end) };
}

export function toOffset(lines: LineIndex, position: LspPosition): number {
  return lines.offset(position);
}

/** A location in any analysed file (definitions and references cross files). */
export function locationOf(unit: SourceUnit, range: Range): Location {
  return { uri: pathToUri(unit.path), range: toLspRange(linesOf(unit), range) };
}
