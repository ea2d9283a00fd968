// `python("./rewards.py:accuracy")` in a reward term: the file and the function, read the same way
// by the checker (dsl/check/python-rewards.ts) and the trainer (runtime/rewards/python-rewards.ts).

/** The file (as written) and the function of a python() reward term's argument, or what is wrong with it. */
export function parsePythonFunction(spec: string): { readonly file: string; readonly function: string } | string {
  const colon = spec.lastIndexOf(':');
  const file = colon < 0 ? '' : spec.slice(0, colon);
  const fn = colon < 0 ? '' : spec.slice(colon + 1);
  if (file === '' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(fn)) return `write the file and the function, such as python("./rewards.py:accuracy")`;
  if (!file.endsWith('.py')) return `${JSON.stringify(file)} is not a .py file; write the Python file and the function, such as python("./rewards.py:accuracy")`;
  return { file, function: fn };
}
