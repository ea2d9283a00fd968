// A policy's recurrent core (`core: gru(64)` | `lstm(64)`, declared in dsl/schema/policies.ts):
// its weights in the network's store, its pass over a sequence in a graph (the cells of
// ../tensor/recurrent.ts) and the same cell outside onnxruntime for acting, one step over the
// rows of one vectorised step. Weights are named `${prefix}.wx` [features, G*H], `.bx`,
// `.wh` [H, G*H], `.bh` (prefix `core`, `actor.core` or `critic.core`), gates in PyTorch's order; initialised as CleanRL's
// ppo_atari_lstm.py does its LSTM: orthogonal weights (gain 1), zero biases.
import type { Rng } from '../../shared/random.js';
import { PlanParams } from '../plan-params.js';
import type { Graph, Tensor, WeightStore } from '../tensor/index.js';
import { orthogonal } from '../tensor/init.js';
import { CELL_GATES, recurrentSequence, stateWidth, type CellKind, type SequenceResult } from '../tensor/recurrent.js';

export interface CoreSettings {
  readonly kind: CellKind;
  readonly size: number;
}

/** The plan's `core` of policy kind `kind` (none, or `{ kind: 'gru' | 'lstm', size }`); null for none. Errors name the param. */
export function coreSetting(p: PlanParams): CoreSettings | null {
  const value = p.value('core');
  if (value === undefined || value === null || value === 'none') return null;
  const kind = typeof value === 'string' ? value : (value as { kind?: unknown }).kind;
  const size = typeof value === 'object' ? (value as { size?: unknown }).size ?? 64 : 64;
  if ((kind !== 'gru' && kind !== 'lstm') || !Number.isSafeInteger(size) || (size as number) < 1 || (size as number) > 4096) {
    return p.fail('core', 'none, gru(size) or lstm(size) with a whole size from 1 to 4096');
  }
  return { kind, size: size as number };
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

export class RecurrentCore {
  /** Numbers of state per row (a GRU's h; an LSTM's h then c). */
  readonly stateWidth: number;
  private readonly gates: number;
  private scratch = new Float32Array(0);

  constructor(
    readonly settings: CoreSettings,
    readonly inputs: number,
    private readonly store: WeightStore,
    rng: Rng,
    readonly prefix = 'core',
  ) {
    const { kind, size } = settings;
    this.stateWidth = stateWidth(kind, size);
    this.gates = CELL_GATES[kind] * size;
    const random = () => rng.uniform();
    store.add(`${prefix}.wx`, [inputs, this.gates], () => orthogonal(random, inputs, this.gates, 1));
    store.add(`${prefix}.bx`, [this.gates]);
    store.add(`${prefix}.wh`, [size, this.gates], () => orthogonal(random, size, this.gates, 1));
    store.add(`${prefix}.bh`, [this.gates]);
  }

  /** Its outputs per row: H numbers. */
  get features(): number {
    return this.settings.size;
  }

  /** The core over `steps` steps of `x` [T, N, inputs] in `g`, from `state0` [N, stateWidth], states zeroed where `starts` [T, N] is 1. */
  sequence(g: Graph, steps: number, x: Tensor, starts: Tensor, state0: Tensor): SequenceResult {
    const w = this.graphWeights(g);
    return recurrentSequence(g, this.settings.kind, this.settings.size, steps, x, starts, state0, w);
  }

  /** Its weights in `g`, declared once per graph. */
  graphWeights(g: Graph): { wx: Tensor; bx: Tensor; wh: Tensor; bh: Tensor } {
    const p = (name: string) => g.byName(`${this.prefix}.${name}`) ?? g.param(`${this.prefix}.${name}`, this.store.get(`${this.prefix}.${name}`).shape);
    return { wx: p('wx'), bx: p('bx'), wh: p('wh'), bh: p('bh') };
  }

  /**
   * One step outside onnxruntime: each row's state, numbers [r * stride + offset, + stateWidth)
   * of `state`, advanced in place by `x` [rows, inputs], in float32 as the graph computes;
   * writes each row's output h to `out` [rows, H]. The caller zeroes the rows whose episode
   * starts first.
   */
  step(x: Float32Array, rows: number, state: Float32Array, out: Float32Array, stride = this.stateWidth, offset = 0): void {
    const { size, kind } = this.settings;
    const G = this.gates;
    const wx = this.store.get(`${this.prefix}.wx`).data;
    const bx = this.store.get(`${this.prefix}.bx`).data;
    const wh = this.store.get(`${this.prefix}.wh`).data;
    const bh = this.store.get(`${this.prefix}.bh`).data;
    if (this.scratch.length < 2 * G) this.scratch = new Float32Array(2 * G);
    const gx = this.scratch.subarray(0, G);
    const gh = this.scratch.subarray(G, 2 * G);
    for (let r = 0; r < rows; r++) {
      const xo = r * this.inputs;
      const so = r * stride + offset;
      for (let j = 0; j < G; j++) {
        let a = bx[j]!;
        for (let k = 0; k < this.inputs; k++) a += x[xo + k]! * wx[k * G + j]!;
        gx[j] = a;
        let b = bh[j]!;
        for (let k = 0; k < size; k++) b += state[so + k]! * wh[k * G + j]!;
        gh[j] = b;
      }
      if (kind === 'gru') {
        for (let j = 0; j < size; j++) {
          const rGate = sigmoid(gx[j]! + gh[j]!);
          const z = sigmoid(gx[size + j]! + gh[size + j]!);
          const n = Math.tanh(gx[2 * size + j]! + rGate * gh[2 * size + j]!);
          const h = n + z * (state[so + j]! - n);
          state[so + j] = h;
          out[r * size + j] = h;
        }
      } else {
        for (let j = 0; j < size; j++) {
          const i = sigmoid(gx[j]! + gh[j]!);
          const f = sigmoid(gx[size + j]! + gh[size + j]!);
          const cand = Math.tanh(gx[2 * size + j]! + gh[2 * size + j]!);
          const o = sigmoid(gx[3 * size + j]! + gh[3 * size + j]!);
          const c = f * state[so + size + j]! + i * cand;
          const h = o * Math.tanh(c);
          state[so + size + j] = c;
          state[so + j] = h;
          out[r * size + j] = h;
        }
      }
    }
  }
}
