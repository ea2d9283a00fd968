// The worker thread that tries a learner module before the trainer runs it (load.ts): imports
// the bundle and calls its buildLoss on stand-in inputs (the policy's log-probabilities as a fed
// input), checking what it returns as the trainer will. It answers once; load.ts stops it when
// it does not answer in time.
import { parentPort, workerData } from 'node:worker_threads';
import { buildTextLoss } from './text-loss.js';
import { importBundle, learnerExports } from './load.js';
import type { ProbeReply, ProbeRequest } from './probe-protocol.js';

async function main(request: ProbeRequest): Promise<ProbeReply> {
  try {
    const { buildLoss } = learnerExports(await importBundle(request.code, request.label), request.label);
    buildTextLoss(request.label, buildLoss, request.settings, request.groupSize, 'T', {
      logProbs: (g) => ({ logProb: g.input('probe_logp', 'float32', ['B', 'T']), logSoftmax: g.input('probe_log_softmax', 'float32', ['B', 'T', 16]) }),
    }, true);
    return { ok: true };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

if (parentPort) parentPort.postMessage(await main(workerData as ProbeRequest));
