// Loss, the gradient of every parameter, and any extra metrics in ONE session.run: the
// shape of a training minibatch step. The optimiser then updates the WeightStore in JS.

import { grad } from './grad.js';
import type { Graph } from './graph.js';
import type { WeightStore } from './weights.js';
import { type Feed, Session, type SessionOptions } from './session.js';
import type { Tensor } from './tensor.js';
import { formatShape } from './types.js';

export interface GradientSessionOptions extends Omit<SessionOptions, 'weights' | 'bake'> {
  /** The scalar float32 loss. */
  readonly loss: Tensor;
  /** The graph's weights, fed at each run and (by the optimiser) updated in place. */
  readonly weights: WeightStore;
  /** Weights to differentiate, in this order; all of the store's by default. */
  readonly wrt?: readonly string[];
  /** Extra float32 outputs from the same run (entropy, approx KL, clip fraction, ...). */
  readonly extras?: Readonly<Record<string, Tensor>>;
}

export interface LossAndGrads {
  readonly loss: number;
  /** One gradient per parameter, in the order of `names`. */
  readonly grads: Float32Array[];
  readonly extras: Record<string, Float32Array>;
}

export class GradientSession {
  private constructor(
    private readonly session: Session,
    /** Parameter names, in the order of the gradients. */
    readonly names: readonly string[],
    private readonly extraNames: readonly string[],
  ) {}

  static async create(graph: Graph, options: GradientSessionOptions): Promise<GradientSession> {
    const { loss, weights, extras = {} } = options;
    const names = options.wrt ?? weights.names;
    const wrt = names.map((name) => {
      const t = graph.byName(name);
      const p = weights.get(name);
      if (!t || t.op !== 'Param') throw new Error(`GradientSession: the graph declares no parameter '${name}'`);
      if (t.shape.join(',') !== p.shape.join(',')) {
        throw new Error(`GradientSession: parameter '${name}' is ${formatShape(t.shape)} in the graph but ${formatShape(p.shape)} in the store`);
      }
      return t;
    });
    for (const name of Object.keys(extras)) {
      if (name === 'loss' || name.startsWith('grad:')) throw new Error(`GradientSession: extra output name '${name}' is reserved`);
    }
    const grads = grad(loss, wrt);
    const outputs: Record<string, Tensor> = { loss, ...extras };
    names.forEach((name, i) => (outputs[gradName(name)] = grads[i]!));
    const session = await Session.create(graph, outputs, { ...options, weights });
    return new GradientSession(session, names, Object.keys(extras));
  }

  /** One forward + backward pass on a minibatch. */
  async run(feeds: Readonly<Record<string, Feed>>): Promise<LossAndGrads> {
    const out = await this.session.run(feeds);
    const extras: Record<string, Float32Array> = {};
    for (const name of this.extraNames) extras[name] = out[name]!;
    return { loss: out.loss![0]!, grads: this.names.map((n) => out[gradName(n)]!), extras };
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

const gradName = (param: string) => `grad:${param}`;
