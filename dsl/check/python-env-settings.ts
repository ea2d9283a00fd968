// Settings of a gymnasium(...), python(...) or python_text(...) env that their types alone do not check: the
// observation names (`observations: ["x", "theta"]`) are names that reward terms write as
// `obs.x`, so each must be an identifier, and each given once. Their number is checked against
// the env's observation size when training starts (the checker never runs Python).
import { PYTHON_IDENTIFIER } from '../schema/python-env.js';
import { pythonEnvRoot, pythonTextRoot, type DeclSymbol } from '../semantics/model.js';
import type { CheckContext } from './context.js';

export function checkPythonEnvSettings(ctx: CheckContext, symbol: DeclSymbol): void {
  const root = ctx.model.effective(symbol).root;
  // A python_text env's `info: [...]` names are written info.NAME in reward terms, as observations are obs.NAME.
  const names = pythonEnvRoot(root) ? 'observations' : pythonTextRoot(root) ? 'info' : undefined;
  if (!names) return;
  const what = names === 'info' ? 'info' : 'observation';
  for (const member of symbol.decl.body?.members ?? []) {
    if (member.kind !== 'Property' || member.path.length !== 1 || member.path[0].text !== names || member.value?.kind !== 'List') continue;
    const seen = new Set<string>();
    for (const item of member.value.items) {
      if (item.kind !== 'String') continue; // the type check says so
      if (!PYTHON_IDENTIFIER.test(item.value)) {
        ctx.accept('error', 'type-mismatch', `"${item.value}" cannot be an ${what} name: reward terms write it as ${names === 'info' ? 'info' : 'obs'}.NAME, so it is letters, digits and _, not starting with a digit`, item.range);
      } else if (seen.has(item.value)) {
        ctx.accept('error', 'duplicate-name', names === 'info' ? `info "${item.value}" is named twice` : `observation "${item.value}" is named twice; each observation number has its own name`, item.range);
      }
      seen.add(item.value);
    }
  }
}
