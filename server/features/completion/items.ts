// Completion items for the things rlx names (declarations, built-ins, options, callables) and
// the matching rule: a client filters again as the user types, so the server only drops items
// that no fuzzy matcher would show (the typed letters must start at a word start, then follow
// in order: `lr` finds learning_rate, `rate` does not find it).
import { CompletionItemKind, InsertTextFormat, MarkupKind, type CompletionItem } from 'vscode-languageserver';
import { builtinsOfKind, takesFolder, type ChoiceOption } from '../../../dsl/schema/index.js';
import type { DeclKind, DeclSymbol, Model, SourceUnit } from '../../../dsl/index.js';
import { builtinDoc, code, declarationHeader, join, optionDoc, signatureDoc, whereDeclared } from '../shared/docs.js';
import { KIND_STYLES } from '../shared/kinds.js';
import { visibleOfKind } from '../../../dsl/navigation/body-schema.js';
import { optionSignature, type Signature } from '../../../dsl/navigation/signatures.js';
import { defaultText } from '../../../dsl/navigation/value-text.js';
import { snippetText } from './snippets.js';

export function markdown(value: string): CompletionItem['documentation'] {
  return { kind: MarkupKind.Markdown, value };
}

/** Sorts groups before one another, keeping each group's own order. */
export function sortKey(group: number, index: number): string {
  return `${group}${String(index).padStart(4, '0')}`;
}

/** User declarations of a kind first (this file's, then imported), then built-ins of that kind. */
export function nameItems(model: Model, unit: SourceUnit, kind: DeclKind, exclude?: DeclSymbol): CompletionItem[] {
  const style = KIND_STYLES[kind];
  const own = visibleOfKind(model, unit, kind).filter((s) => s !== exclude).map((s, i): CompletionItem => ({
    label: s.name,
    kind: style.completion,
    detail: declarationHeader(s),
    documentation: markdown(join(s.decl.doc, `Declared in ${whereDeclared(s)}`)),
    sortText: sortKey(0, i),
  }));
  // `pretrained` is never a bare name: bases offer it as a call (declarations.ts).
  const builtins = kind === 'reward' || kind === 'experiment' || kind === 'sweep' ? [] : builtinsOfKind(kind).filter((b) => !takesFolder(b)).map((b, i): CompletionItem => ({
    label: b.name,
    kind: style.completion,
    detail: `${kind} (built-in)`,
    documentation: markdown(builtinDoc(b)),
    sortText: sortKey(1, i),
  }));
  return [...own, ...builtins];
}

/** `tanh`, or `future(k: 4)` inserted with its arguments as placeholders. */
export function optionItem(option: ChoiceOption, index: number, fallback?: string): CompletionItem {
  const params = option.params ?? [];
  const item: CompletionItem = {
    label: option.name,
    kind: CompletionItemKind.EnumMember,
    documentation: markdown(optionDoc(option)),
    sortText: sortKey(0, index),
    ...(fallback === option.name ? { detail: 'default' } : {}),
  };
  if (params.length === 0) return item;
  const args = params.map((p, i) => `${p.name}: \${${i + 1}${defaultText(p) !== undefined ? `:${defaultText(p)}` : ''}}`);
  return { ...item, labelDetails: { detail: `(${params.map((p) => p.name).join(', ')})` }, insertText: `${option.name}(${args.join(', ')})`, insertTextFormat: InsertTextFormat.Snippet, detail: optionSignature(option).label };
}

/** A function or schedule, inserted as a call with its required parameters as placeholders. */
export function callItem(signature: Signature, index: number, required: (name: string) => boolean): CompletionItem {
  const needed = signature.params.filter((p) => required(p.name));
  const args = needed.map((p, i) => `\${${i + 1}:${p.name}}`).join(', ');
  return {
    label: signature.name,
    kind: CompletionItemKind.Function,
    detail: signature.label,
    documentation: markdown(signatureDoc(signature)),
    insertText: `${signature.name}(${args})`,
    insertTextFormat: InsertTextFormat.Snippet,
    sortText: sortKey(2, index),
  };
}

export function keywordItem(word: string, index: number, detail?: string): CompletionItem {
  return { label: word, kind: CompletionItemKind.Keyword, sortText: sortKey(1, index), ...(detail ? { detail } : {}) };
}

export function snippetItem(label: string, body: string, description: string, index: number): CompletionItem {
  return {
    label,
    kind: CompletionItemKind.Snippet,
    labelDetails: { description },
    insertText: body,
    insertTextFormat: InsertTextFormat.Snippet,
    documentation: markdown(code(snippetText(body))),
    sortText: sortKey(0, index),
  };
}

/** Whether a client's fuzzy matcher could show `candidate` for the typed prefix. */
export function couldMatch(typed: string, candidate: string): boolean {
  if (typed.length === 0) return true;
  const t = typed.toLowerCase();
  const c = candidate.toLowerCase();
  for (let start = 0; start < c.length; start++) {
    const wordStart = start === 0 || /[_.\s(]/.test(c[start - 1]) || (candidate[start] !== c[start] && candidate[start - 1] === c[start - 1]);
    if (!wordStart || c[start] !== t[0]) continue;
    let at = 1;
    for (let i = start + 1; i < c.length && at < t.length; i++) if (c[i] === t[at]) at++;
    if (at === t.length) return true;
  }
  return false;
}
