// File-level checks: imports that cannot be read or that loop, and names declared twice.
import * as path from 'node:path';
import { builtinNameKind } from '../schema/index.js';
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

/**
 * A path of imports from `from` back to `target`, if there is one: a breadth-first search
 * within the component of files that import each other (components are computed once per
 * model), so that a long chain of imports costs linear time, and no recursion.
 */
function findCycle(ctx: CheckContext, from: string, target: string): string[] | undefined {
  const component = componentsOf(ctx.model);
  if (component.get(from) === undefined || component.get(from) !== component.get(target)) return undefined;
  const parent = new Map<string, string | null>([[from, null]]);
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const current = queue[head]!;
    if (current === target) {
      const route: string[] = [];
      for (let at: string | null = current; at !== null; at = parent.get(at)!) route.push(at);
      return route.reverse();
    }
    for (const imp of ctx.model.unitByPath(current)?.imports ?? []) {
      if (imp.path && !parent.has(imp.path) && component.get(imp.path) === component.get(from)) {
        parent.set(imp.path, current);
        queue.push(imp.path);
      }
    }
  }
  return undefined;
}

const COMPONENTS = new WeakMap<CheckContext['model'], Map<string, number>>();

/** Each file's strongly connected component of the import graph (Tarjan's algorithm, iteratively). */
function componentsOf(model: CheckContext['model']): Map<string, number> {
  const cached = COMPONENTS.get(model);
  if (cached) return cached;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const component = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  let counter = 0;
  let components = 0;
  const importsOf = (p: string) => (model.unitByPath(p)?.imports ?? []).flatMap((imp) => (imp.path && model.unitByPath(imp.path) ? [imp.path] : []));
  for (const unit of model.units) {
    if (index.has(unit.path)) continue;
    const work: { node: string; next: number; edges: string[] }[] = [];
    const open = (node: string) => {
      index.set(node, counter);
      low.set(node, counter++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, next: 0, edges: importsOf(node) });
    };
    open(unit.path);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.next < frame.edges.length) {
        const to = frame.edges[frame.next++]!;
        if (!index.has(to)) open(to);
        else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const up = work[work.length - 1]!.node;
        low.set(up, Math.min(low.get(up)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        for (;;) {
          const member = stack.pop()!;
          onStack.delete(member);
          component.set(member, components);
          if (member === frame.node) break;
        }
        components++;
      }
    }
  }
  COMPONENTS.set(model, component);
  return component;
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
    const kind = builtinNameKind(name);
    if (kind) ctx.accept('error', 'duplicate-name', `'${name}' is the name of a ${kind}; choose another name`, first.decl.name!.range);
  }
}
