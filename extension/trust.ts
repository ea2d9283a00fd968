// Workspace Trust: an env written `module("./env.ts")` is the workspace's own code, which the
// trainer would import and run. Reading, checking and completing a spec is safe in any
// workspace; training one that loads user code waits until the workspace is trusted.
import type { Plan } from '../dsl/compile/plan.js';

/** The user modules the plans would load (env modules), each once. */
export function userModules(plans: readonly Plan[]): string[] {
  const modules = new Set<string>();
  for (const plan of plans) {
    if (plan.env.kind === 'module') modules.add(plan.env.module ?? plan.env.name);
  }
  return [...modules];
}
