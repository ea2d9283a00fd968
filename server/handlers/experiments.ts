// The rlx extension's own requests: the experiments of a document (the "Train" CodeLens) and the
// plan of one of them (the plan preview).
import { experiments, planFor } from '../features/experiments.js';
import { EXPERIMENTS_METHOD, PLAN_METHOD, type ExperimentsParams, type PlanParams } from '../protocol.js';
import type { Session } from './session.js';

export function registerExperiments(session: Session): void {
  const { connection } = session;
  connection.onRequest(EXPERIMENTS_METHOD, session.onDocument('rlx/experiments', [], (doc, _p: ExperimentsParams) => experiments(doc)));
  connection.onRequest(PLAN_METHOD, session.onDocument('rlx/plan', { ok: false as const, error: 'no such document' }, (doc, p: PlanParams) =>
    typeof p.name === 'string' ? planFor(doc, p.name) : { ok: false as const, error: 'rlx/plan needs params.name, the name of an experiment or sweep of the document, as a string' }));
}
