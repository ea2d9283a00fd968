// The worker thread that tries a learner module before the trainer runs it (load.ts): imports
// the bundle and calls its buildLoss on stand-in inputs (the policy's log-probabilities as a fed
// input), or a numeric module's buildLosses on stand-in networks, checking what it returns as
// the trainer will. It answers once; load.ts stops it when
// it does not answer in time.
import { parentPort, workerData } from 'node:worker_threads';
import { buildTextLoss, STAND_IN_POLICY } from './text-loss.js';
import { buildNumericLosses, type GraphNetworks } from './numeric-loss.js';
import type { Graph, Tensor } from '../../tensor/index.js';
import { importBundle, learnerExports } from './load.js';
import type { ProbeReply, ProbeRequest } from './probe-protocol.js';

async function main(request: ProbeRequest): Promise<ProbeReply> {
  try {
    const { entry } = learnerExports(await importBundle(request.code, request.label, 0x7fffffff), request.label); // load.ts stops this thread at build_timeout
    if (entry.kind === 'numeric') buildNumericLosses(request.label, entry.buildLosses, request.settings, 0.99, standInNetworks());
    else {
      buildTextLoss(request.label, entry.buildLoss, request.settings, request.groupSize, 'T', STAND_IN_POLICY, true);
    }
    return { ok: true };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/** One linear layer per network over 3 observations and 1 action: enough for buildLosses to build on. */
function standInNetworks(): GraphNetworks {
  const O = 3;
  const A = 1;
  const param = (g: Graph, name: string, shape: number[]) => g.byName(name) ?? g.param(name, shape);
  const named = (name: string, target: boolean) => `probe.${target ? 'target.' : ''}${name}`;
  return {
    obsDim: O, actionDim: A, low: new Float32Array([-2]), high: new Float32Array([2]), scale: new Float32Array([2]),
    actor: (g, obs, target) => g.mul(g.tanh(g.matmul(obs, param(g, named('actor', target), [O, A]))), 2),
    q: (g, which, obs: Tensor, action: Tensor, target) => g.squeeze(g.matmul(g.concat([obs, action], 1), param(g, named(which, target), [O + A, 1])), [1]),
    trained: { actor: { actor: ['probe.actor'] }, critics: { q1: ['probe.q1'], q2: ['probe.q2'] } },
  };
}

if (parentPort) parentPort.postMessage(await main(workerData as ProbeRequest));
