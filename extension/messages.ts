// What the extension tells the user when it will not (or could not) do something: one place,
// plain sentences that say what is wrong and what to do, never a stack trace. Pure: tested.

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function fixErrorsFirst(name: string, errors: number): string {
  return `Cannot train ${name}: fix the ${plural(errors, 'error')} first.`;
}

export function untrustedModules(name: string, modules: readonly string[]): string {
  // Python envs (userModules writes them as gymnasium("Id") or their .py file) run the
  // workspace's interpreter and packages: "loads user code (gymnasium(...))" did not say so.
  const python = modules.filter((m) => m.startsWith('gymnasium(') || m.endsWith('.py'));
  const code = modules.filter((m) => !python.includes(m));
  const what = [
    python.length > 0 ? `runs the workspace's Python (${python.join(', ')})` : '',
    code.length > 0 ? `loads user code (${code.join(', ')})` : '',
  ].filter(Boolean);
  return `Cannot train ${name} in Restricted Mode: it ${what.join(' and ')}, which would run with your permissions. Trust this workspace to train it.`;
}

export function trainerMissing(display: string, bundled: boolean): string {
  return bundled
    ? `The trainer bundled with the rlx extension is missing (${display}). Reinstall the extension, or set rlx.trainer.path to an rlx command line.`
    : `The rlx trainer was not found at ${display}. Fix the setting rlx.trainer.path, or clear it to use the trainer bundled with the extension.`;
}

export function trainerBroken(label: string, error: string): string {
  return `Training ${label} did not start: ${oneParagraph(error)}. Check the trainer (setting rlx.trainer.path) and the output in "rlx Training".`;
}

/** The buttons a failure notification offers, each leading to what can fix it. */
export type FailureAction = 'Open Log' | 'Open Run' | 'Open Settings' | 'Open Spec';

/**
 * What a failed job's notification says and offers, by its cause (job.ts FailureCause): every
 * line of the reason (a refused plan lists all its problems), and the way to the thing to fix.
 */
export function failureReport(label: string, error: string, cause: 'start' | 'crash' | 'refused' | 'run', canOpenSpec: boolean): { message: string; actions: FailureAction[] } {
  switch (cause) {
    case 'run':
      return { message: trainingFailed(label, oneParagraph(error)), actions: ['Open Log', 'Open Run'] };
    case 'refused':
      // The trainer ran and refused the spec or its plan: the setting is not the problem.
      return { message: `Training ${label} did not start: ${oneParagraph(error)}`, actions: canOpenSpec ? ['Open Spec', 'Open Log'] : ['Open Log'] };
    default:
      return { message: trainerBroken(label, error), actions: ['Open Log', 'Open Settings'] };
  }
}

/**
 * A multi-line reason as one notification paragraph (notifications drop line breaks): "x:\n  - a\n
 * - b" becomes "x: a; b". Nothing is cut: a notification can be expanded.
 */
export function oneParagraph(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const [head = '', ...rest] = lines;
  const items = rest.map((l) => l.replace(/^[-*]\s+/, '').replace(/[.;]$/, ''));
  if (items.length === 0) return head.replace(/[.:]$/, '');
  return `${head.replace(/[.:]$/, '')}: ${items.join('; ')}`;
}

export function runsFolderUnwritable(folder: string, reason: string): string {
  return `Cannot write runs to ${folder} (${reason}). Choose another folder with the setting rlx.runs.folder.`;
}

export function trainingFailed(label: string, error: string): string {
  return `Training ${label} failed: ${error}`;
}

export function noExperiment(name: string, file: string): string {
  return `There is no experiment or sweep named ${name} in ${file}.`;
}

export function serverNotRunning(): string {
  return 'The rlx language server is not running, so the experiments of this file are unknown. Restart it with "rlx: Restart Language Server".';
}

/**
 * The notification when a batch ends without failures: what happened in editor words, and what
 * can follow. `dashboardOpen`: the one run's dashboard is open already (no button to open it).
 */
export function batchEnded(label: string, finished: number, stopped: number, runs: number, dashboardOpen = false): { message: string; actions: ('Resume' | 'Open Dashboard')[] } {
  const dashboard = runs > 0 && !dashboardOpen ? (['Open Dashboard'] as const) : [];
  // A sweep's or a seed list's label counts its runs already ("sweep TwoRates (2 runs)").
  const counted = /\(\d+ (?:runs?|seeds?)\)$/.test(label);
  if (stopped === 0) return { message: `Training ${label} finished${counted ? '' : ` (${plural(runs, 'run')})`}.`, actions: [...dashboard] };
  const which = stopped === 1 ? 'It saved a checkpoint' : `The ${stopped} stopped runs saved checkpoints`;
  const also = finished > 0 ? ` (${finished} finished)` : '';
  return { message: `Training ${label} stopped${also}. ${which}: Resume goes on from there.`, actions: ['Resume', ...dashboard] };
}

/** The trainer's refusal words without the checker's lead-in, for a lens or a notification. */
function refusalReason(message: string): string {
  return message.replace(/^`rlx train` will refuse this: /, '');
}

/** The lens over an experiment the trainer cannot run yet: why, short (the tooltip has all). */
export function cannotTrainLens(reasons: readonly string[]): { title: string; tooltip: string } {
  const first = refusalReason(reasons[0] ?? '');
  const short = first.length > 90 ? `${first.slice(0, 87)}...` : first;
  const more = reasons.length > 1 ? ` (+${reasons.length - 1} more)` : '';
  return { title: `$(warning) Cannot train yet: ${short}${more}`, tooltip: reasons.map(refusalReason).join('\n') };
}

export function cannotTrainYet(name: string, reasons: readonly string[]): string {
  return `Cannot train ${name}: the trainer does not run this yet. ${reasons.map(refusalReason).join(' ')}`;
}

/** A message of the trainer or the compiler, shortened to its first line for a notification. */
export function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? text;
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}
