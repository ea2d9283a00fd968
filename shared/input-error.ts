// The one type of error for input a user gave rlx that it refuses: a spec's value, a dataset,
// a model folder, a run directory. The command line recognises it by type (instanceof), prints
// its message without a stack and exits 2; anything else that escapes is a bug in rlx. Each
// refusal (PlanError, DatasetError, SafetensorsError, ...) extends it and names the file or
// field and what to do.
export class InputError extends Error {
  override name = 'InputError';
}

/** Whether `err` is a refusal of user input (an InputError of any subclass). */
export function isInputError(err: unknown): err is InputError {
  return err instanceof InputError;
}
