// The argument of a python("./rewards.py:accuracy") reward term: a "string" literal naming a .py
// file inside this file's folder that is there, and a function it defines (read from its text,
// without running it: a name made otherwise, by exec or a star import, is only a warning).
import * as path from 'node:path';
import { closestNames, didYouMean } from '../diagnostics.js';
import { datasetInsideFolder } from '../schema/dataset.js';
import { parsePythonFunction } from '../schema/python-reward.js';
import type { StringLiteral } from '../syntax/ast.js';
import type { Accept, CheckContext } from './context.js';

export function checkPythonFunction(ctx: CheckContext, literal: StringLiteral, accept: Accept): void {
  const parsed = parsePythonFunction(literal.value);
  if (typeof parsed === 'string') {
    accept('error', 'type-mismatch', `python(): ${parsed}`, literal.range);
    return;
  }
  const folder = path.dirname(ctx.unit.path);
  if (!datasetInsideFolder(parsed.file, folder)) {
    accept('error', 'module-not-found', `'${parsed.file}' is outside the folder of this file; python("...") paths stay inside it: copy the file there (or link to it from there)`, literal.range);
    return;
  }
  const read = ctx.model.pythonFile(path.resolve(folder, parsed.file));
  if (read.kind === 'missing') {
    accept('error', 'module-not-found', `cannot find '${parsed.file}' (looked for ${path.relative(folder, path.resolve(folder, parsed.file))}); python("...") paths are relative to this file`, literal.range);
  } else if (read.kind === 'python' && !read.names.includes(parsed.function)) {
    const close = closestNames(parsed.function, read.names);
    accept('warning', 'unknown-name', `${parsed.file} seems to define no function '${parsed.function}' (rlx reads its top-level names without running it)${didYouMean(parsed.function, close)}`, literal.range);
  }
}
