// The matrix products one off-policy update must run (matmul-floor.ts times them alone), for
// DQN's and SAC's networks as CleanRL builds them: whether issue 16's speed target is reachable
// on this CPU, or lies below the arithmetic of the update itself.
import { matmulFloor, type FloorSession, type LinearUse } from './matmul-floor.js';

/** An MLP's layers [in, out] for `inDim` -> hidden... -> `outDim`. */
function mlpShapes(inDim: number, hidden: readonly number[], outDim: number): [number, number][] {
  const sizes = [inDim, ...hidden, outDim];
  return sizes.slice(1).map((out, i) => [sizes[i]!, out]);
}

/** The network run forward only (a target network, or the actor under no_grad). */
const forwardOnly = (shapes: [number, number][]): LinearUse[] => shapes.map(([inDim, outDim]) => ({ inDim, outDim, weightGradient: false, inputGradient: false }));

/** Trained: every weight gradient, and input gradients down to (not into) the data it reads. */
const trained = (shapes: [number, number][]): LinearUse[] => shapes.map(([inDim, outDim], i) => ({ inDim, outDim, weightGradient: true, inputGradient: i > 0 }));

/** Frozen but differentiated through, down to its input (the critics in the actor's loss, to the action). */
const through = (shapes: [number, number][]): LinearUse[] => shapes.map(([inDim, outDim]) => ({ inDim, outDim, weightGradient: false, inputGradient: true }));

/** DQN: the target network on the next observations, and the Q-network's forward and backward. */
export function dqnUpdateFloor(obsDim: number, hidden: readonly number[], actions: number): Promise<FloorSession> {
  const q = mlpShapes(obsDim, hidden, actions);
  return matmulFloor([...forwardOnly(q), ...trained(q)]);
}

/**
 * SAC (continuous), one critic step and one actor step (policy_frequency steps every
 * policy_frequency critic steps: one each on average). Critic step: the actor and both target
 * critics on the next observations, both critics trained. Actor step: the actor trained through
 * both critics, whose weights it does not train. The temperature's step needs no product.
 */
export function sacUpdateFloor(obsDim: number, hidden: readonly number[], actionDim: number): Promise<FloorSession> {
  const actor = mlpShapes(obsDim, hidden, 2 * actionDim); // the mean and log-std heads
  const critic = mlpShapes(obsDim + actionDim, hidden, 1);
  return matmulFloor([
    ...forwardOnly(actor), ...forwardOnly(critic), ...forwardOnly(critic),
    ...trained(critic), ...trained(critic),
    ...trained(actor), ...through(critic), ...through(critic),
  ]);
}
