// Feature test fixtures: sources in memory with a cursor marker `$0` and range markers ⟦ ⟧,
// analysed together into a DocumentContext as the server would build it.
//
//   const f = fixture(`algorithm X = PPO { lea$0 }`);
//   completion(f.doc, f.cursor)
//   const g = fixture({ 'main.rlx': 'import "./envs.rlx"\nexperiment E { env: Po$0le }', 'envs.rlx': 'env ⟦Pole⟧ = CartPole' });
import type { Position, Range } from 'vscode-languageserver';
import { analyze, Workspace } from '../../../dsl/index.js';
import { DEFAULT_SETTINGS, linesOf, pathToUri, toLspRange, type DocumentContext, type ServerSettings } from '../../../server/context.js';
import { CLOSE, MemoryHost, OPEN, virtualPath, MAIN, type Sources } from '../../helpers/source.js';

export const CURSOR = '$0';

interface Marked {
  text: string;
  cursor: number | undefined;
  marks: { start: number; end: number }[];
}

/** Takes `$0`, ⟦ and ⟧ out of a text and says where they were (offsets into the clean text). */
export function parseMarked(marked: string): Marked {
  let text = '';
  let cursor: number | undefined;
  const marks: Marked['marks'] = [];
  let open: number | undefined;
  for (let i = 0; i < marked.length; i++) {
    const ch = marked[i];
    if (marked.startsWith(CURSOR, i)) {
      cursor = text.length;
      i += CURSOR.length - 1;
    } else if (ch === OPEN) open = text.length;
    else if (ch === CLOSE) {
      marks.push({ start: open!, end: text.length });
      open = undefined;
    } else text += ch;
  }
  return { text, cursor, marks };
}

export interface Fixture {
  /** The document with the cursor (or the first file). */
  doc: DocumentContext;
  /** Where `$0` was; fails when the source has none. */
  cursor: Position;
  /** The ⟦ ⟧ ranges of a file (default: the cursor's), in order, as LSP ranges. */
  marks(name?: string): Range[];
  /** The context of another file of the fixture. */
  docOf(name: string): DocumentContext;
  uri(name: string): string;
  /** The clean text of a file. */
  text(name?: string): string;
}

export function fixture(sources: Sources, settings: ServerSettings = DEFAULT_SETTINGS): Fixture {
  const named = typeof sources === 'string' ? { [MAIN]: sources } : sources;
  const files = Object.entries(named).map(([name, text]) => ({ name, ...parseMarked(text) }));
  const main = files.find((f) => f.cursor !== undefined) ?? files[0];
  const host = new MemoryHost(Object.fromEntries(files.map((f) => [f.name, f.text])));
  const analysis = analyze(new Workspace(host), files.map((f) => virtualPath(f.name)));
  const docOf = (name: string): DocumentContext => {
    const unit = analysis.model.unitByPath(virtualPath(name));
    if (!unit) throw new Error(`no file '${name}' in the fixture`);
    return { uri: pathToUri(unit.path), unit, analysis, lines: linesOf(unit), settings };
  };
  const doc = docOf(main.name);
  const file = (name = main.name) => {
    const found = files.find((f) => f.name === name);
    if (!found) throw new Error(`no file '${name}' in the fixture`);
    return found;
  };
  return {
    doc,
    get cursor(): Position {
      if (main.cursor === undefined) throw new Error(`the fixture has no ${CURSOR} cursor`);
      return doc.lines.position(main.cursor);
    },
    marks: (name) => file(name).marks.map((m) => toLspRange(docOf(file(name).name).lines, m)),
    docOf,
    uri: (name) => pathToUri(virtualPath(name)),
    text: (name) => file(name).text,
  };
}

/** The text an LSP range covers in a document. */
export function textAt(doc: DocumentContext, range: Range): string {
  return doc.unit.text.slice(doc.lines.offset(range.start), doc.lines.offset(range.end));
}
