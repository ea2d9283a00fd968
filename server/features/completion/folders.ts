// Completion of the folder path in `pretrained("...")`, one path segment at a time as the user
// types (`./mo` -> `./models/`, then the model folders in it): the folders under the one typed
// so far, relative to the .rlx file. A folder holding a config.json is a model (read as the
// checker reads it, so its architecture shows beside it); the others end in `/` and ask for
// completion again once chosen, to go on into them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CompletionItemKind, type CompletionItem } from 'vscode-languageserver';
import { readModelFolder } from '../../../dsl/semantics/model-folder.js';
import { toLspRange, type DocumentContext } from '../../context.js';
import { modelSummary } from '../shared/pretrained.js';
import { sortKey } from './items.js';

/** The string of a `pretrained(` call the cursor is in: what is typed of it before the cursor. */
const IN_PATH = /\bpretrained\(\s*"([^"\n]*)$/;

/** At most this many folders are listed (a folder of thousands is not browsed here). */
const MAX_ITEMS = 500;

const RETRIGGER = { title: 'Complete the path', command: 'editor.action.triggerSuggest' };

/**
 * Folder items when the cursor is in the path of `pretrained("...")`; undefined elsewhere, so
 * that completion goes on as usual.
 */
export function folderItems(doc: DocumentContext, offset: number): CompletionItem[] | undefined {
  const text = doc.unit.text;
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const typed = IN_PATH.exec(text.slice(lineStart, offset))?.[1];
  if (typed === undefined) return undefined;
  const slash = typed.lastIndexOf('/');
  const parent = typed.slice(0, slash + 1);
  const segment = typed.slice(slash + 1);
  // The item replaces the segment: what is typed of it, and what follows up to the next / or ".
  let end = offset;
  while (end < text.length && !/["/\n]/.test(text[end])) end++;
  const range = toLspRange(doc.lines, { start: offset - segment.length, end });
  const dir = path.resolve(path.dirname(doc.unit.path), parent === '' ? '.' : parent);
  // Nothing typed yet: start the path with ./ as paths relative to the file are written.
  const lead = typed === '' ? './' : '';
  const items: CompletionItem[] = [];
  if (segment.startsWith('.') && '..'.startsWith(segment)) {
    items.push({ label: '../', kind: CompletionItemKind.Folder, detail: 'the folder above', textEdit: { range, newText: `${lead}../` }, command: RETRIGGER, sortText: sortKey(1, 0) });
  }
  for (const name of subfolders(dir, segment.startsWith('.'))) {
    if (items.length >= MAX_ITEMS) break;
    const read = readModelFolder(path.join(dir, name));
    const isModel = read.kind === 'model' || read.kind === 'incomplete' || read.kind === 'invalid-config' && fs.existsSync(path.join(dir, name, 'config.json'));
    if (isModel) {
      items.push({
        label: name,
        kind: CompletionItemKind.Module,
        detail: read.kind === 'invalid-config' ? 'model folder (its config.json is not one rlx builds)' : `model: ${modelSummary(read.config)}`,
        textEdit: { range, newText: `${lead}${name}` },
        sortText: sortKey(0, items.length),
      });
    } else {
      items.push({ label: `${name}/`, kind: CompletionItemKind.Folder, textEdit: { range, newText: `${lead}${name}/` }, command: RETRIGGER, sortText: sortKey(1, items.length) });
    }
  }
  return items;
}

/** The folders in `dir` (links to folders included), sorted; hidden ones only when asked for. */
function subfolders(dir: string, hidden: boolean): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => (hidden || !e.name.startsWith('.')) && (e.isDirectory() || (e.isSymbolicLink() && isFolder(path.join(dir, e.name)))))
    .map((e) => e.name)
    .sort();
}

function isFolder(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
