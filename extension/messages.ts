// What the extension tells the user when it will not (or could not) do something: one place,
// plain sentences that say what is wrong and what to do, never a stack trace. Pure: tested.

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function fixErrorsFirst(name: string, errors: number): string {
  return `Cannot train ${name}: fix the ${plural(errors, 'error')} first.`;
}

export function untrustedModules(name: string, modules: readonly string[]): string {
  return (
    `Cannot train ${name} in Restricted Mode: its environment loads user code (${modules.join(', ')}), ` +
    'which would run with your permissions. Trust this workspace to train it.'
  );
}

export function trainerMissing(display: string, bundled: boolean): string {
  return bundled
    ? `The trainer bundled with the rlx extension is missing (${display}). Reinstall the extension, or set rlx.trainer.path to an rlx command line.`
    : `The rlx trainer was not found at ${display}. Fix the setting rlx.trainer.path, or clear it to use the trainer bundled with the extension.`;
}

export function trainerBroken(label: string, error: string): string {
  return `Training ${label} did not start: ${error}. Check the trainer (setting rlx.trainer.path) and the output in "rlx Training".`;
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

/** A message of the trainer or the compiler, shortened to its first line for a notification. */
export function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? text;
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}
