// Completion outside bodies: declaration keywords and templates at the top level, the base
// after `=` (built-ins and user declarations of the same kind, `module("...")` for envs), the
// experiment after `sweep X over`.
import { CompletionItemKind, InsertTextFormat, type CompletionItem } from 'vscode-languageserver';
import { builtinsOfKind, takesFolder } from '../../../dsl/schema/index.js';
import type { DeclKind, DeclSymbol, Model, SourceUnit } from '../../../dsl/index.js';
import { builtinDoc, signatureDoc } from '../shared/docs.js';
import { visibleOfKind } from '../../../dsl/navigation/body-schema.js';
import { MODULE_SIGNATURE } from '../../../dsl/navigation/signatures.js';
import { keywordItem, markdown, nameItems, snippetItem, sortKey } from './items.js';

const KINDS: DeclKind[] = ['env', 'policy', 'algorithm', 'reward', 'experiment', 'sweep'];

/** `${2|Pole,CartPole|}`: the names a placeholder may take, the user's first. */
function choice(index: number, names: string[], fallback: string): string {
  return names.length > 0 ? `\${${index}|${[...new Set(names)].join(',')}|}` : `\${${index}:${fallback}}`;
}

function namesOf(model: Model, unit: SourceUnit, kind: DeclKind): string[] {
  const builtins = kind === 'env' || kind === 'policy' || kind === 'algorithm' ? builtinsOfKind(kind).filter((b) => !takesFolder(b)).map((b) => b.name) : [];
  return [...visibleOfKind(model, unit, kind).map((s) => s.name), ...builtins];
}

/** Templates for new declarations, with placeholders to tab through. */
function templates(model: Model, unit: SourceUnit): Record<DeclKind, string> {
  const builtin = (kind: DeclKind) => builtinsOfKind(kind).filter((b) => !takesFolder(b)).map((b) => b.name);
  return {
    env: `env \${1:Name} = ${choice(2, builtin('env'), 'CartPole')} {\n  $0\n}`,
    policy: `policy \${1:Name} = ${choice(2, builtin('policy'), 'mlp')} {\n  $0\n}`,
    algorithm: `algorithm \${1:Name} = ${choice(2, builtin('algorithm'), 'PPO')} {\n  $0\n}`,
    reward: 'reward ${1:Name} {\n  term ${2:name} = ${0:1.0}\n}',
    experiment: `experiment \${1:Name} {\n  env: ${choice(2, namesOf(model, unit, 'env'), 'Env')}\n  policy: ${choice(3, namesOf(model, unit, 'policy'), 'Policy')}\n`
      + `  algorithm: ${choice(4, namesOf(model, unit, 'algorithm'), 'Algorithm')}\n  budget: \${5:100k}\n}`,
    sweep: `sweep \${1:Name} over ${choice(2, namesOf(model, unit, 'experiment'), 'Experiment')} {\n  algorithm.learning_rate: [\${3:1e-4, 3e-4, 1e-3}]\n}`,
  };
}

export function topLevelItems(model: Model, unit: SourceUnit): CompletionItem[] {
  const bodies = templates(model, unit);
  const snippets = KINDS.map((kind, i) => snippetItem(kind, bodies[kind], `new ${kind}`, i));
  const keywords = KINDS.map((kind, i) => keywordItem(kind, i + 1));
  const importItem: CompletionItem = { ...keywordItem('import', 0), insertText: 'import "$1"', insertTextFormat: InsertTextFormat.Snippet };
  return [...snippets, importItem, ...keywords];
}

/** After `algorithm X = `: what it may be built from. */
export function baseItems(model: Model, unit: SourceUnit, kind: DeclKind, self: DeclSymbol | undefined): CompletionItem[] {
  const items = nameItems(model, unit, kind, self);
  if (kind === 'env' || kind === 'algorithm') {
    items.push({
      label: 'module',
      kind: CompletionItemKind.Function,
      labelDetails: { detail: '("...")' },
      detail: kind === 'env' ? 'an environment written in TypeScript' : 'a learner written in TypeScript (docs/learners.md)',
      documentation: markdown(signatureDoc(MODULE_SIGNATURE)),
      insertText: kind === 'env' ? 'module("${1:./env.ts}")' : 'module("${1:./learner.ts}")',
      insertTextFormat: InsertTextFormat.Snippet,
      sortText: sortKey(2, 0),
    });
  }
  for (const spec of kind === 'policy' ? builtinsOfKind(kind).filter(takesFolder) : []) {
    items.push({
      label: spec.name,
      kind: CompletionItemKind.Function,
      labelDetails: { detail: '("...")' },
      detail: 'a pretrained language model from a Hugging Face folder',
      documentation: markdown(builtinDoc(spec)),
      insertText: `${spec.name}("\${1:./models/}")`,
      insertTextFormat: InsertTextFormat.Snippet,
      sortText: sortKey(2, 1),
    });
  }
  return items;
}
