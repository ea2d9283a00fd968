// Recurrent cells built from graph primitives, so their gradients come from the primitives'
// rules (test/runtime/tensor/recurrent.test.ts checks them against finite differences):
// GRU (Cho et al. 2014) and LSTM (Hochreiter & Schmidhuber 1997) with PyTorch's nn.GRU and
// nn.LSTM equations and gate order. A cell's state is one tensor [N, stateWidth]: a GRU's h,
// an LSTM's h and c side by side (h first), so a policy carries one buffer per env copy
// whichever cell it has.
//
// `recurrentSequence` unrolls a cell over T steps of a [T, N, in] input, as CleanRL's
// ppo_atari_lstm.py does in its get_states loop: before step t, rows whose episode starts
// there (`starts[t, n]` = 1) have their state zeroed, so one segment may hold several episodes.
import type { Graph } from './graph.js';
import type { Tensor } from './tensor.js';

export type CellKind = 'gru' | 'lstm';

/** Gates per cell: GRU r, z, n; LSTM i, f, g, o (PyTorch's order). */
export const CELL_GATES: Readonly<Record<CellKind, number>> = { gru: 3, lstm: 4 };

/** Numbers of state per row: a GRU's h; an LSTM's h then c. */
export function stateWidth(kind: CellKind, size: number): number {
  return kind === 'gru' ? size : 2 * size;
}

/** A cell's weights as graph tensors: input [in, G*H] and recurrent [H, G*H] matrices, each with its bias [G*H]. */
export interface CellWeights {
  readonly wx: Tensor;
  readonly bx: Tensor;
  readonly wh: Tensor;
  readonly bh: Tensor;
}

/**
 * One step of a cell: the new state [N, stateWidth] from `gx` (the input's projection
 * x @ wx + bx, [N, G*H], computed for every step at once by recurrentSequence) and `state`.
 */
export function cellStep(g: Graph, kind: CellKind, size: number, gx: Tensor, state: Tensor, w: Pick<CellWeights, 'wh' | 'bh'>): Tensor {
  const gate = (t: Tensor, k: number) => g.slice(t, -1, k * size, (k + 1) * size);
  if (kind === 'gru') {
    const h = state;
    const gh = g.linear(h, w.wh, w.bh);
    const r = g.sigmoid(g.add(gate(gx, 0), gate(gh, 0)));
    const z = g.sigmoid(g.add(gate(gx, 1), gate(gh, 1)));
    // PyTorch applies r to the recurrent projection with its bias: n = tanh(W_in x + b_in + r * (W_hn h + b_hn)).
    const n = g.tanh(g.add(gate(gx, 2), g.mul(r, gate(gh, 2))));
    // h' = (1 - z) * n + z * h, written with one multiply.
    return g.add(n, g.mul(z, g.sub(h, n)));
  }
  const h = g.slice(state, -1, 0, size);
  const c = g.slice(state, -1, size, 2 * size);
  const gates = g.add(gx, g.linear(h, w.wh, w.bh));
  const i = g.sigmoid(gate(gates, 0));
  const f = g.sigmoid(gate(gates, 1));
  const cand = g.tanh(gate(gates, 2));
  const o = g.sigmoid(gate(gates, 3));
  const c2 = g.add(g.mul(f, c), g.mul(i, cand));
  return g.concat([g.mul(o, g.tanh(c2)), c2], -1);
}

/** The cell's output of a state: its h. */
export function cellOutput(g: Graph, kind: CellKind, size: number, state: Tensor): Tensor {
  return kind === 'gru' ? state : g.slice(state, -1, 0, size);
}

export interface SequenceResult {
  /** The cell's output at every step, [T, N, H]. */
  readonly outputs: Tensor;
  /** The state after the last step, [N, stateWidth]. */
  readonly last: Tensor;
}

/**
 * The cell unrolled over `steps` steps of `x` [T, N, in] from `state0` [N, stateWidth]; `starts`
 * [T, N] (float, 1 or 0) zeroes a row's state before the step where its episode starts.
 * T is static (the graph holds one copy of the cell per step); N may be symbolic.
 */
export function recurrentSequence(g: Graph, kind: CellKind, size: number, steps: number, x: Tensor, starts: Tensor, state0: Tensor, w: CellWeights): SequenceResult {
  // The input projection of every step at once: one MatMul instead of T.
  const gxAll = g.linear(x, w.wx, w.bx);
  const keepAll = g.sub(1, starts);
  let state = state0;
  const outputs: Tensor[] = [];
  for (let t = 0; t < steps; t++) {
    const gx = g.squeeze(g.slice(gxAll, 0, t, t + 1), [0]);
    const keep = g.unsqueeze(g.squeeze(g.slice(keepAll, 0, t, t + 1), [0]), [1]);
    state = cellStep(g, kind, size, gx, g.mul(state, keep), w);
    outputs.push(g.unsqueeze(cellOutput(g, kind, size, state), [0]));
  }
  return { outputs: steps === 1 ? outputs[0]! : g.concat(outputs, 0), last: state };
}
