// How each kind of rlx declaration shows in an editor: one table, so that the outline, completion
// and semantic colouring agree. The mapping, and why:
//   env -> class            an environment is the world a policy lives in, built from a base
//   policy -> struct        a network: a plain bundle of layer settings
//   algorithm -> type       a learner you derive variants from (`Fast = Tuned { ... }`)
//   reward -> function      evaluated every step into a number
//   experiment -> namespace a named bundle of what to train
//   sweep -> macro          expands into many experiments
import { CompletionItemKind, SymbolKind } from 'vscode-languageserver';
import type { DeclKind } from '../../../dsl/index.js';

export interface KindStyle {
  symbol: SymbolKind;
  completion: CompletionItemKind;
  /** A semantic token type of SEMANTIC_TOKENS_LEGEND. */
  token: 'class' | 'struct' | 'type' | 'function' | 'namespace' | 'macro';
}

export const KIND_STYLES: Record<DeclKind, KindStyle> = {
  env: { symbol: SymbolKind.Class, completion: CompletionItemKind.Class, token: 'class' },
  policy: { symbol: SymbolKind.Struct, completion: CompletionItemKind.Struct, token: 'struct' },
  algorithm: { symbol: SymbolKind.Interface, completion: CompletionItemKind.Interface, token: 'type' },
  reward: { symbol: SymbolKind.Function, completion: CompletionItemKind.Function, token: 'function' },
  experiment: { symbol: SymbolKind.Module, completion: CompletionItemKind.Module, token: 'namespace' },
  sweep: { symbol: SymbolKind.Namespace, completion: CompletionItemKind.Module, token: 'macro' },
};

export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
