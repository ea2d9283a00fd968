// Hover on a pretrained policy: on its name, the declaration's usual summary and then its model;
// on its `pretrained("...")` call, the model (shared/pretrained.ts says what).
import type { Hover } from 'vscode-languageserver';
import { MarkupKind } from 'vscode-languageserver';
import { toLspRange, type DocumentContext } from '../context.js';
import { code, declarationDoc, join } from './shared/docs.js';
import { pretrainedModelDoc } from './shared/pretrained.js';

export function pretrainedHover(doc: DocumentContext, offset: number): Hover | null {
  const { model } = doc.analysis;
  for (const decl of doc.unit.parse.file.declarations) {
    if (decl.declKind !== 'policy' || decl.range.start > offset || offset > decl.range.end) continue;
    const symbol = model.symbolOf(decl);
    const onName = decl.name && decl.name.range.start <= offset && offset <= decl.name.range.end;
    const onCall = decl.base?.args !== undefined && decl.base.range.start <= offset && offset <= decl.base.range.end;
    if (!symbol || !(onName || onCall)) return null;
    const about = pretrainedModelDoc(model, symbol);
    if (!about) return null;
    const range = onName ? decl.name!.range : decl.base!.range;
    const value = onName ? join(declarationDoc(model, symbol), about) : join(code(doc.unit.text.slice(decl.base!.range.start, decl.base!.range.end)), about);
    return { contents: { kind: MarkupKind.Markdown, value }, range: toLspRange(doc.lines, range) };
  }
  return null;
}
