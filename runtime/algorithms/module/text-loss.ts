// Builds a text learner module's loss: the module's buildLoss called on a LossGraph over the
// batch inputs rlx feeds (runtime/learner/text-batch.ts), and its result checked. Used on the
// trainer's thread against the policy's graph, and first in a worker thread (probe-worker.ts)
// against stand-in inputs, where a buildLoss that never returns can be stopped.
import { describeThrown, short } from '../../envs/module-errors.js';
import { LossGraph, LossTensor } from '../../learner/loss-graph.js';
import { METRIC_NAME, type BuildTextLoss, type LearnerSettings, type TextBatch } from '../../learner/text-batch.js';
import { Graph, type Dim, type Tensor } from '../../tensor/index.js';
import { LearnerModuleError, readingModuleValue } from './errors.js';

/** The batch inputs a module may read, as fed to the graph: name -> how the trainer feeds it. */
export type FedInput = 'tokens' | 'targets' | 'mask' | 'rewards' | 'advantages' | 'old_logp' | 'ref_logp' | 'inv_tokens' | 'inv_rows' | 'inv_temperature';

/** How the policy's own tensors enter the graph: from the model (training), or as stand-in inputs (the probe). */
export interface PolicyTensors {
  /** log pi(target) [B, T] and the log-softmax [B, T, V] from the token inputs and the fed 1/temperature. */
  logProbs(g: Graph, tokens: Tensor, targets: Tensor, invTemperature: Tensor): { logProb: Tensor; logSoftmax: Tensor | null; entropy?: Tensor };
}

/** The vocabulary of the stand-in policy. */
export const STAND_IN_VOCABULARY = 16;

/**
 * The policy's tensors as fed inputs (`probe_logp` [B, T], `probe_log_softmax` [B, T, 16]): what
 * a module's loss is built over where no model is at hand (the probe, probe-worker.ts; the check
 * that the loss is a sum over rows, row-additivity.ts).
 */
export const STAND_IN_POLICY: PolicyTensors = {
  logProbs: (g) => ({ logProb: g.input('probe_logp', 'float32', ['B', 'T']), logSoftmax: g.input('probe_log_softmax', 'float32', ['B', 'T', STAND_IN_VOCABULARY]) }),
};

export interface BuiltTextLoss {
  readonly graph: Graph;
  readonly loss: Tensor;
  readonly metrics: Readonly<Record<string, Tensor>>;
  /** The inputs the module read (and so the feeds the graph needs), besides those every graph has. */
  readonly used: ReadonlySet<FedInput>;
}

/** Calls `buildLoss` once and checks what it returns; errors name the module (`label`) and the call. */
export function buildTextLoss(label: string, buildLoss: BuildTextLoss, settings: LearnerSettings, groupSize: number, T: Dim, policy: PolicyTensors, oldFed: boolean): BuiltTextLoss {
  const g = new Graph();
  const lg = new LossGraph(g);
  const used = new Set<FedInput>();
  const memo = new Map<string, Tensor>();
  const once = (key: string, make: () => Tensor): Tensor => {
    let t = memo.get(key);
    if (!t) memo.set(key, (t = make()));
    return t;
  };
  const input = (name: FedInput, dtype: 'float32' | 'int64', shape: Dim[]): Tensor => once(name, () => {
    used.add(name);
    return g.input(name, dtype, shape);
  });
  const tokens = input('tokens', 'int64', ['B', T]);
  const targets = input('targets', 'int64', ['B', T]);
  const policyTensors = () => once('logp', () => {
    const out = policy.logProbs(g, tokens, targets, input('inv_temperature', 'float32', []));
    if (out.logSoftmax) memo.set('logsoftmax', out.logSoftmax);
    if (out.entropy) memo.set('entropy', out.entropy);
    return out.logProb;
  });
  const wrap = (t: Tensor) => LossGraph.wrap(lg, t);
  const batch: TextBatch = Object.freeze({
    groupSize,
    get tokens() { return wrap(tokens); },
    get targets() { return wrap(targets); },
    get mask() { return wrap(input('mask', 'float32', ['B', T])); },
    get logProb() { return wrap(policyTensors()); },
    get entropy() {
      policyTensors();
      return wrap(once('entropy', () => {
        const logSoftmax = memo.get('logsoftmax')!;
        return g.neg(g.reduceSum(g.mul(g.exp(logSoftmax), logSoftmax), { axes: [-1] }));
      }));
    },
    get rewards() { return wrap(input('rewards', 'float32', ['B'])); },
    get advantages() { return wrap(input('advantages', 'float32', ['B'])); },
    get oldLogProb() { return wrap(oldFed ? input('old_logp', 'float32', ['B', T]) : once('old', () => g.stopGradient(policyTensors()))); },
    get refLogProb() { return wrap(input('ref_logp', 'float32', ['B', T])); },
    get invTokens() { return wrap(input('inv_tokens', 'float32', [])); },
    get invRows() { return wrap(input('inv_rows', 'float32', [])); },
  });

  let result: unknown;
  try {
    result = buildLoss(lg, batch, Object.freeze({ ...settings }));
  } catch (err) {
    if (err instanceof LearnerModuleError) throw err; // stopped by the watchdog (watchdog.ts), named already
    throw new LearnerModuleError(`${label}: buildLoss threw while building the loss: ${describeThrown(err)}`);
  }
  // What it returned is the module's value: reading it may run the module's code (a Proxy's traps).
  const { lossTensor, metricTensors } = readingModuleValue(label, 'what buildLoss returned', () => {
    if (result !== null && typeof result === 'object' && 'then' in result) throw new LearnerModuleError(`${label}: buildLoss returned a Promise; it must build the graph synchronously and return { loss, metrics? }`);
    if (result === null || typeof result !== 'object' || !('loss' in result)) throw new LearnerModuleError(`${label}: buildLoss must return { loss, metrics? }, not ${short(result)}`);
    const { loss, metrics = {} } = result as { loss: unknown; metrics?: unknown };
    const lossTensor = scalarLoss(label, lg, loss, 'the loss');
    const logp = memo.get('logp');
    if (!logp || !dependsOn(lossTensor, logp)) throw new LearnerModuleError(`${label}: buildLoss returned a loss that no gradient flows from to the policy: it must be computed from batch.logProb or batch.entropy (not only through g.stopGradient)`);
    if (metrics === null || typeof metrics !== 'object' || Array.isArray(metrics)) throw new LearnerModuleError(`${label}: buildLoss's metrics must be an object of scalar tensors, not ${short(metrics)}`);
    const metricTensors: Record<string, Tensor> = {};
    for (const [name, value] of Object.entries(metrics as Record<string, unknown>)) {
      if (!METRIC_NAME.test(name)) throw new LearnerModuleError(`${label}: metric '${name}': a metric's name is lower case letters, digits and '_', starting with a letter (logged as learner/NAME)`);
      metricTensors[name] = scalarLoss(label, lg, value, `metric '${name}'`);
    }
    return { lossTensor, metricTensors };
  });
  return { graph: g, loss: lossTensor, metrics: metricTensors, used };
}

/** Whether a gradient flows from `from` to `on` (a walk over the graph's inputs, each node once, stopped at StopGradient). */
function dependsOn(from: Tensor, on: Tensor): boolean {
  const seen = new Set<Tensor>();
  const stack = [from];
  while (stack.length > 0) {
    const t = stack.pop()!;
    if (t === on) return true;
    if (seen.has(t) || t.op === 'StopGradient') continue;
    seen.add(t);
    stack.push(...t.inputs);
  }
  return false;
}

/** A scalar float tensor of this graph, or an error that says what it is instead. */
export function scalarLoss(label: string, lg: LossGraph, value: unknown, what: string, call = 'buildLoss'): Tensor {
  if (!(value instanceof LossTensor)) {
    throw new LearnerModuleError(`${label}: ${call} returned ${what} as ${short(value)}, not a tensor of the loss graph (build it with the LossGraph ${call} is given)`);
  }
  let t: Tensor;
  try {
    t = LossGraph.unwrap(lg, value, what);
  } catch (err) {
    throw new LearnerModuleError(`${label}: ${call} returned ${what} from another graph: ${(err as Error).message}`);
  }
  if (t.shape.length !== 0) {
    throw new LearnerModuleError(`${label}: ${call} returned ${what} of shape [${t.shape.join(', ')}]; it must be a scalar (shape []): reduce it, e.g. g.mean(x) or g.sum(x)`);
  }
  if (t.dtype !== 'float32') throw new LearnerModuleError(`${label}: ${call} returned ${what} of type ${t.dtype}; it must be float32 (g.toFloat() turns a bool into one)`);
  return t;
}
