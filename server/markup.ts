// Documentation is written once, in markdown (features/shared/docs.ts); a client that renders
// only plain text gets the same words without the markdown syntax, rather than raw backticks,
// fences and link targets.
import { MarkupKind, type MarkupContent } from 'vscode-languageserver';

/** `value` as the client wants it: the markdown itself, or its plain text. */
export function markup(kind: MarkupKind, markdown: string): MarkupContent {
  return kind === MarkupKind.Markdown ? { kind, value: markdown } : { kind: MarkupKind.PlainText, value: plainText(markdown) };
}

/** Converts a MarkupContent in markdown for a client that takes plain text; anything else passes. */
export function asKind<T>(kind: MarkupKind, content: T): T | MarkupContent {
  if (kind === MarkupKind.Markdown || !isMarkdown(content)) return content;
  return markup(kind, content.value);
}

function isMarkdown(content: unknown): content is MarkupContent {
  return typeof content === 'object' && content !== null && (content as MarkupContent).kind === MarkupKind.Markdown;
}

/** The markdown our docs use, as plain text: code fences and backticks dropped, links as their text, hard breaks as newlines. */
export function plainText(markdown: string): string {
  return markdown
    .replace(/^```[a-z]*\n([\s\S]*?)\n```$/gm, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/ {2}$/gm, '');
}
