// How long a run has trained, as status.json counts it (`training_seconds`: a resumed run's time
// stopped left out). Shared by the dashboard's header and the Runs view, so both say the same.

/**
 * status.json's training seconds, running on from its last write while the run trains;
 * undefined when the status has no count (a run of an earlier version).
 */
export function trainedSeconds(status: { training_seconds?: number; updated?: string }, running: boolean, nowSeconds: number): number | undefined {
  const trained = status.training_seconds;
  if (typeof trained !== 'number' || !Number.isFinite(trained)) return undefined;
  const since = running && status.updated ? nowSeconds - Date.parse(status.updated) / 1000 : 0;
  return trained + (Number.isFinite(since) ? Math.max(0, since) : 0);
}
