// Snippets as plain text, for clients that cannot expand them (Eglot, say, without yasnippet):
// `linear(${1:from}, ${2:to})` inserts `linear(from, to)`, `${2|Pole,CartPole|}` its first
// choice, tab stops nothing. The same text documents a snippet item.
import { InsertTextFormat, type CompletionItem } from 'vscode-languageserver';

/** The text a snippet inserts with every placeholder left at its default. */
export function snippetText(snippet: string): string {
  let out = '';
  let depth = 0; // open `${n:` placeholders, whose closing `}` is dropped
  for (let i = 0; i < snippet.length; i++) {
    const rest = snippet.slice(i);
    const ch = snippet[i];
    if (ch === '\\' && /^\\[$}\\]/.test(rest)) {
      out += snippet[++i];
      continue;
    }
    const tabStop = /^\$(\d+|\{\d+\})/.exec(rest);
    if (tabStop) {
      i += tabStop[0].length - 1;
      continue;
    }
    const choice = /^\$\{\d+\|((?:[^,|\\]|\\.)*)(?:,(?:[^|\\]|\\.)*)*\|\}/.exec(rest);
    if (choice) {
      out += choice[1].replace(/\\(.)/g, '$1');
      i += choice[0].length - 1;
      continue;
    }
    const placeholder = /^\$\{\d+:/.exec(rest);
    if (placeholder) {
      depth++;
      i += placeholder[0].length - 1;
      continue;
    }
    if (ch === '}' && depth > 0) {
      depth--;
      continue;
    }
    out += ch;
  }
  return out;
}

/** The items with every snippet insertion turned into its plain text. */
export function withoutSnippets(items: CompletionItem[]): CompletionItem[] {
  return items.map(({ insertTextFormat, ...item }) => {
    if (insertTextFormat !== InsertTextFormat.Snippet) return item;
    const plain = { ...item }; // no format: plain text
    if (item.insertText !== undefined) plain.insertText = snippetText(item.insertText);
    if (item.textEdit) plain.textEdit = { ...item.textEdit, newText: snippetText(item.textEdit.newText) };
    return plain;
  });
}
