// File-level checks: imports that cannot be read or that loop, and names declared twice.
import * as path from 'node:path';
import { builtin } from '../schema/index.js';
import type { SourceUnit } from '../semantics/workspace.js';
import type { CheckContext } from './context.js';

export function checkImports(ctx: CheckContext): void {
  for (const imp of ctx.unit.imports) {
    const str = imp.node.path;
    if (!str) continue;
    if (!imp.path || str.value.trim() === '') {
      ctx.accept('error', 'import-not-found', 'an import needs a file path, such as import "./envs.rlx"', str.range);
      continue;
    }
    if (!ctx.model.unitByPath(imp.path)) {
      ctx.accept('error', 'import-not-found', `cannot read '${str.value}' (looked for ${path.relative(path.dirname(ctx.unit.path), imp.path) || imp.path} next to this file)`, str.range);
      continue;
    }
    if (imp.path === ctx.unit.path) {
      ctx.accept('error', 'import-cycle', 'a file cannot import itself', str.range);
      continue;
    }
    const cycle = findCycle(ctx, imp.path, ctx.unit.path);
    if (cycle) {
      const names = [ctx.unit.path, ...cycle].map((p) => path.basename(p));
      ctx.accept('error', 'import-cycle', `import cycle: ${names.join(' -> ')}`, str.range);
    }
  }
}

/** A path of imports from `from` back to `target`, if there is one. */
function findCycle(ctx: CheckContext, from: string, target: string): string[] | undefined {
  const seen = new Set<string>();
  const walk = (current: string): string[] | undefined => {
    if (current === target) return [current];
    if (seen.has(current)) return undefined;
    seen.add(current);
    const unit = ctx.model.unitByPath(current);
    for (const imp of unit?.imports ?? []) {
      if (!imp.path) continue;
      const rest = walk(imp.path);
      if (rest) return [current, ...rest];
    }
    return undefined;
  };
  return walk(from);
}

export function checkDuplicateNames(ctx: CheckContext): void {
  const { model, unit } = ctx;
  const imported = new Map<string, SourceUnit>();
  for (const imp of unit.imports) {
    const other = imp.path ? model.unitByPath(imp.path) : undefined;
    if (!other || other === unit) continue;
    for (const [name, symbols] of model.declaredIn(other)) {
      const earlier = imported.get(name);
      if (earlier && earlier !== other && imp.node.path) {
        ctx.accept('error', 'duplicate-name', `'${name}' is declared both in ${path.basename(earlier.path)} and in ${path.basename(other.path)}`, imp.node.path.range, {
          related: [{ file: symbols[0].unit.path, range: symbols[0].decl.name!.range, message: `'${name}' declared here` }],
        });
      } else {
        imported.set(name, other);
      }
    }
  }
  for (const [name, symbols] of model.declaredIn(unit)) {
    const first = symbols[0];
    for (const again of symbols.slice(1)) {
      ctx.accept('error', 'duplicate-name', `'${name}' is already declared in this file`, again.decl.name!.range, {
        related: [{ file: unit.path, range: first.decl.name!.range, message: 'first declared here' }],
      });
    }
    const importedFrom = imported.get(name);
    if (importedFrom) {
      const other = model.declaredIn(importedFrom).get(name)![0];
      ctx.accept('error', 'duplicate-name', `'${name}' is also declared in ${path.basename(importedFrom.path)}, which this file imports`, first.decl.name!.range, {
        related: [{ file: importedFrom.path, range: other.decl.name!.range, message: 'also declared here' }],
      });
    }
    const spec = builtin(name);
    if (spec) {
      ctx.accept('error', 'duplicate-name', `'${name}' is the name of a built-in ${spec.declKind}; choose another name`, first.decl.name!.range);
    }
  }
}
