// Builds a numeric learner module's losses: the module's buildLosses called on a LossGraph over
// the batch inputs rlx feeds and the networks rlx declares (runtime/learner/numeric-batch.ts),
// and its result checked. Used on the trainer's thread with the real networks, and first in a
// worker thread (probe-worker.ts) with stand-ins, where a buildLosses that never returns can be
// stopped. Both losses live in one graph; each becomes its own GradientStep.
import { describeThrown, short } from '../../envs/module-errors.js';
import { LossGraph, LossTensor } from '../../learner/loss-graph.js';
import type { BuildNumericLosses, NumericNetworks } from '../../learner/numeric-batch.js';
import { METRIC_NAME, type LearnerSettings } from '../../learner/text-batch.js';
import { Graph, paramsReachedByGradient, type Tensor } from '../../tensor/index.js';
import { LearnerModuleError, readingModuleValue } from './errors.js';
import { scalarLoss } from './text-loss.js';

/** The networks in a graph: a forward pass each, and the names of the weights each trained set declares. */
export interface GraphNetworks {
  readonly obsDim: number;
  readonly actionDim: number;
  readonly low: Float32Array;
  readonly high: Float32Array;
  readonly scale: Float32Array;
  actor(g: Graph, obs: Tensor, target: boolean): Tensor;
  q(g: Graph, which: 'q1' | 'q2', obs: Tensor, action: Tensor, target: boolean): Tensor;
  /** The weights the `actor` and `critics` losses train, by the network (`networks.NAME`) that holds them. */
  readonly trained: { readonly actor: { readonly actor: readonly string[] }; readonly critics: { readonly q1: readonly string[]; readonly q2: readonly string[] } };
}

export const LOSS_KEYS = ['critics', 'actor'] as const;
export type LossKey = (typeof LOSS_KEYS)[number];

export interface BuiltNumericLoss {
  readonly loss: Tensor;
  readonly every: number;
  readonly metrics: Readonly<Record<string, Tensor>>;
}

export interface BuiltNumericLosses {
  readonly graph: Graph;
  readonly losses: Readonly<Record<LossKey, BuiltNumericLoss>>;
}

/** Calls `buildLosses` once and checks what it returns; errors name the module (`label`) and the call. */
export function buildNumericLosses(label: string, buildLosses: BuildNumericLosses, settings: LearnerSettings, gamma: number, nets: GraphNetworks): BuiltNumericLosses {
  const g = new Graph();
  const lg = new LossGraph(g);
  const { obsDim: O, actionDim: A } = nets;
  const input = (name: string, shape: (number | 'B')[]) => LossGraph.wrap(lg, g.byName(name) ?? g.input(name, 'float32', shape));
  const batch = Object.freeze({
    gamma,
    get observations() { return input('obs', ['B', O]); },
    get actions() { return input('action', ['B', A]); },
    get rewards() { return input('reward', ['B']); },
    get nextObservations() { return input('next_obs', ['B', O]); },
    get dones() { return input('done', ['B']); },
    get noise() { return input('noise', ['B', A]); },
  });
  // A wrong argument throws inside buildLosses, which names the module and the call.
  const tensor = (x: unknown, what: string): Tensor => LossGraph.unwrap(lg, x, what);
  const wrap = (t: Tensor) => LossGraph.wrap(lg, t);
  // The easy step to get wrong: a target's value must not train anything, so it is cut here, not by the module.
  const networks: NumericNetworks = Object.freeze({
    actor: (obs: LossTensor) => wrap(nets.actor(g, tensor(obs, 'actor\'s observations'), false)),
    targetActor: (obs: LossTensor) => wrap(g.stopGradient(nets.actor(g, tensor(obs, 'targetActor\'s observations'), true))),
    q1: (obs: LossTensor, action: LossTensor) => wrap(nets.q(g, 'q1', tensor(obs, 'q1\'s observations'), tensor(action, 'q1\'s actions'), false)),
    q2: (obs: LossTensor, action: LossTensor) => wrap(nets.q(g, 'q2', tensor(obs, 'q2\'s observations'), tensor(action, 'q2\'s actions'), false)),
    targetQ1: (obs: LossTensor, action: LossTensor) => wrap(g.stopGradient(nets.q(g, 'q1', tensor(obs, 'targetQ1\'s observations'), tensor(action, 'targetQ1\'s actions'), true))),
    targetQ2: (obs: LossTensor, action: LossTensor) => wrap(g.stopGradient(nets.q(g, 'q2', tensor(obs, 'targetQ2\'s observations'), tensor(action, 'targetQ2\'s actions'), true))),
    actionLow: wrap(g.const(nets.low)),
    actionHigh: wrap(g.const(nets.high)),
    actionScale: wrap(g.const(nets.scale)),
  });

  let result: unknown;
  try {
    result = buildLosses(lg, batch, networks, Object.freeze({ ...settings }));
  } catch (err) {
    if (err instanceof LearnerModuleError) throw err; // stopped by the watchdog (watchdog.ts), named already
    throw new LearnerModuleError(`${label}: buildLosses threw while building the losses: ${describeThrown(err)}`);
  }
  // What it returned is the module's value: reading it may run the module's code (a Proxy's traps).
  const losses = readingModuleValue(label, 'what buildLosses returned', () => {
    if (result !== null && typeof result === 'object' && 'then' in result) throw new LearnerModuleError(`${label}: buildLosses returned a Promise; it must build the graph synchronously and return { critics: { loss }, actor: { loss, every? } }`);
    if (result === null || typeof result !== 'object') throw new LearnerModuleError(`${label}: buildLosses must return { critics: { loss }, actor: { loss, every? } }, not ${short(result)}`);
    const record = result as Record<string, unknown>;
    const unknown = Object.keys(record).filter((k) => !(LOSS_KEYS as readonly string[]).includes(k));
    if (unknown.length > 0) throw new LearnerModuleError(`${label}: buildLosses returned ${unknown.map((k) => `'${k}'`).join(', ')}; its keys name the networks each loss trains: critics, actor`);
    const seen = new Set<string>();
    const losses = Object.fromEntries(LOSS_KEYS.map((key) => [key, lossOf(label, lg, key, record[key], nets.trained[key], seen)])) as Record<LossKey, BuiltNumericLoss>;
    return losses;
  });
  return { graph: g, losses };
}

function lossOf(label: string, lg: LossGraph, key: LossKey, value: unknown, trained: Readonly<Record<string, readonly string[]>>, seen: Set<string>): BuiltNumericLoss {
  if (value === null || typeof value !== 'object' || !('loss' in value)) throw new LearnerModuleError(`${label}: buildLosses must return ${key}: { loss, every?, metrics? }, not ${short(value)}`);
  const { loss, every = 1, metrics = {} } = value as { loss: unknown; every?: unknown; metrics?: unknown };
  const lossTensor = scalarLoss(label, lg, loss, `the ${key} loss`, 'buildLosses');
  const reached = paramsReachedByGradient(lossTensor);
  const unused = Object.keys(trained).filter((network) => !trained[network]!.some((name) => reached.has(name)));
  if (unused.length === Object.keys(trained).length) {
    const from = key === 'actor' ? 'networks.actor(...) (not only through g.stopGradient)' : 'networks.q1(...) and networks.q2(...)';
    throw new LearnerModuleError(`${label}: buildLosses returned a ${key} loss that no gradient flows from to the ${key}: it must be computed from ${from}`);
  }
  // The step trains every network of its loss: one the loss never reads would have no gradient (a DDPG without q2).
  if (unused.length > 0) {
    throw new LearnerModuleError(`${label}: buildLosses returned a ${key} loss that does not use networks.${unused.join(', networks.')}: rlx trains both critics (q1 and q2) on the critics loss, so it must read each of them (not only through g.stopGradient); a learner with one critic can give ${unused.join(', ')} a TD loss of its own, added to the critics loss`);
  }
  if (typeof every !== 'number' || !Number.isInteger(every) || every < 1) throw new LearnerModuleError(`${label}: ${key}.every must be a whole number of at least 1 (take the step every that many updates), not ${short(every)}`);
  if (metrics === null || typeof metrics !== 'object' || Array.isArray(metrics)) throw new LearnerModuleError(`${label}: ${key}.metrics must be an object of scalar tensors, not ${short(metrics)}`);
  const metricTensors: Record<string, Tensor> = {};
  for (const [name, metric] of Object.entries(metrics as Record<string, unknown>)) {
    if (!METRIC_NAME.test(name)) throw new LearnerModuleError(`${label}: metric '${name}': a metric's name is lower case letters, digits and '_', starting with a letter (logged as learner/NAME)`);
    if (seen.has(name)) throw new LearnerModuleError(`${label}: metric '${name}' is returned by both losses; name them apart`);
    seen.add(name);
    metricTensors[name] = scalarLoss(label, lg, metric, `metric '${name}'`, 'buildLosses');
  }
  return { loss: lossTensor, every, metrics: metricTensors };
}
