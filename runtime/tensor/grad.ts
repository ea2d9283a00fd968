// Reverse-mode autodiff: walks from the loss back to the requested tensors in reverse
// topological order, applying the rules of gradients.ts and summing the gradients of
// tensors used more than once.

import { CUSTOM_GRADIENT } from './graph.js';
import { GRADIENTS } from './gradients.js';
import { shapesCompatible } from './shape.js';
import type { Tensor } from './tensor.js';
import { formatShape, isFloat } from './types.js';

export interface GradOptions {
  /**
   * What to do for a requested tensor the loss does not depend on (no path, or only paths
   * through StopGradient or integer/bool tensors): 'error' (default) throws naming it,
   * 'zeros' returns a zero tensor of its shape.
   */
  readonly unreachable?: 'error' | 'zeros';
  /** Gradient flowing into `loss`; required when loss is not a scalar. Defaults to 1. */
  readonly seed?: Tensor;
}

/** d(loss)/d(t) for each t of `wrt` (parameters, inputs, or intermediate tensors). */
export function grad(loss: Tensor, wrt: readonly Tensor[], options: GradOptions = {}): Tensor[] {
  const g = loss.graph;
  if (!isFloat(loss.dtype)) throw new Error(`grad: loss must be a float tensor, got ${loss.describe()}`);
  if (options.seed === undefined && loss.rank !== 0) {
    throw new Error(`grad: loss must be a scalar, got shape ${formatShape(loss.shape)}; reduce it first (e.g. g.mean(loss))`);
  }
  if (options.seed && (options.seed.dtype !== loss.dtype || !shapesCompatible(options.seed.shape, loss.shape))) {
    throw new Error(`grad: seed ${options.seed.describe()} does not match loss ${loss.describe()}`);
  }
  for (const t of wrt) {
    if (t.graph !== g) throw new Error(`grad: ${t.describe()} belongs to another graph than the loss`);
    if (!isFloat(t.dtype)) throw new Error(`grad: cannot differentiate with respect to ${t.describe()} (not a float tensor)`);
  }

  const needed = nodesOnPaths(loss, wrt);
  const pending = new Map<number, Tensor[]>();
  pending.set(loss.id, [options.seed ?? g.scalar(1, loss.dtype)]);
  const total = new Map<number, Tensor>();

  for (const node of [...needed].sort((a, b) => b.id - a.id)) {
    const parts = pending.get(node.id);
    if (!parts) continue; // every path through it ended in a rule that returned null
    const dy = parts.reduce((sum, p) => g.add(sum, p));
    total.set(node.id, dy);

    const wanted = node.inputs.map((t) => needed.has(t));
    if (!wanted.some(Boolean)) continue;
    const rule = GRADIENTS[node.op];
    if (!rule) {
      throw new Error(
        `grad: no gradient rule for op '${node.op}' (${node.describe()}), which lies between the loss and ` +
          `${describeTargets(wrt)}; build it from differentiable ops, wrap it in stopGradient, or add a rule to runtime/tensor/gradients.ts`,
      );
    }
    const grads = rule(dy, node);
    node.inputs.forEach((input, i) => {
      const gi = grads[i];
      if (!wanted[i] || gi === null || gi === undefined) return;
      if (!shapesCompatible(gi.shape, input.shape)) {
        throw new Error(
          `grad: the rule for '${node.op}' gave input ${i} a gradient of shape ${formatShape(gi.shape)} for ${input.describe()} (a bug in gradients.ts)`,
        );
      }
      const list = pending.get(input.id);
      if (list) list.push(gi);
      else pending.set(input.id, [gi]);
    });
  }

  return wrt.map((t) => {
    const gt = total.get(t.id);
    if (gt) return gt;
    if (!needed.has(t) && options.unreachable !== 'zeros') {
      throw new Error(
        `grad: the loss does not depend on ${t.describe()} (no path, or only through stopGradient or integer/bool values); ` +
          `remove it from the list or pass { unreachable: 'zeros' }`,
      );
    }
    // Reachable but every rule on the way gave no gradient (e.g. through Sign): it is zero.
    return g.zerosLike(t);
  });
}

/**
 * Tensors that lie on a differentiable path from some target to the loss: those whose
 * gradient must be built. Gradients flow only through float tensors, never into the input
 * of a StopGradient, and out of a withGradient() node only into its rule's targets.
 */
function nodesOnPaths(loss: Tensor, wrt: readonly Tensor[]): Set<Tensor> {
  const targets = new Set(wrt);
  const fromTarget = new Set<Tensor>();
  for (const node of loss.graph.nodes) {
    if (node.id > loss.id) break;
    if (targets.has(node)) fromTarget.add(node);
    else if (node.op !== 'StopGradient' && isFloat(node.dtype) && node.inputs.some((t) => fromTarget.has(t))) {
      fromTarget.add(node);
    }
  }
  const needed = new Set<Tensor>();
  const stack = [loss];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (needed.has(node) || !fromTarget.has(node)) continue;
    needed.add(node);
    if (node.op === CUSTOM_GRADIENT) stack.push(...node.inputs.slice(1));
    else if (node.op !== 'StopGradient') stack.push(...node.inputs);
  }
  return needed;
}

/**
 * The names of the parameters a gradient from `loss` reaches, as grad() walks: over inputs,
 * never into the input of a StopGradient, and out of a withGradient() node only into its rule's
 * targets. What a loss trains (and what it leaves frozen) is these.
 */
export function paramsReachedByGradient(loss: Tensor): Set<string> {
  const reached = new Set<Tensor>();
  const params = new Set<string>();
  const stack = [loss];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (reached.has(node)) continue;
    reached.add(node);
    if (node.op === 'Param') params.add(node.name!);
    if (node.op === 'StopGradient') continue;
    stack.push(...(node.op === CUSTOM_GRADIENT ? node.inputs.slice(1) : node.inputs));
  }
  return params;
}

function describeTargets(wrt: readonly Tensor[]): string {
  const names = wrt.slice(0, 4).map((t) => (t.name !== undefined ? `'${t.name}'` : `#${t.id}`));
  return names.join(', ') + (wrt.length > 4 ? ` and ${wrt.length - 4} more` : '');
}
