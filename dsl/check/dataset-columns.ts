// The columns of the dataset a TextTask reads (`task: dataset("./file.jsonl")`), for `row.NAME` in
// its experiments' reward terms: the checker types each name from the file's first rows
// (COLUMN_ROWS) and the editor completes them. Read through the workspace, like the dataset check.
import * as path from 'node:path';
import { datasetInsideFolder, type ColumnType, type DatasetExample } from '../schema/dataset.js';
import type { Model, Target } from '../semantics/model.js';

/** A TextTask's rows: the columns of its readable dataset (the path as written), or `generated` for a generated task, which has none. */
export type TaskRows = { readonly kind: 'dataset'; readonly written: string; readonly columns: ReadonlyMap<string, ColumnType>; readonly examples: readonly DatasetExample[] } | { readonly kind: 'generated'; readonly task: string };

/** The rows of a TextTask target, or undefined where they cannot be known now (not a TextTask, a dataset unreadable, too large, or invalid: reported at its path). */
export function taskRows(model: Model, target: Target | undefined): TaskRows | undefined {
  if (!target) return undefined;
  if (target.kind === 'builtin') return target.spec.name === 'TextTask' ? { kind: 'generated', task: 'addition' } : undefined;
  if (model.rootBuiltin(target.symbol)?.name !== 'TextTask') return undefined;
  const task = model.effective(target.symbol).properties.get('task');
  if (!task) return { kind: 'generated', task: 'addition' };
  const value = task.node.value;
  if (value?.kind === 'Name') return { kind: 'generated', task: value.parts.map((p) => p.text).join('.') };
  if (value?.kind !== 'Call') return undefined;
  const callee = value.callee.parts.map((p) => p.text).join('.');
  if (callee !== 'dataset') return { kind: 'generated', task: callee };
  const arg = value.args[0]?.value;
  if (arg?.kind !== 'String' || arg.value === '') return undefined;
  const folder = path.dirname(task.owner.unit.path);
  // A path out of the folder is refused at the path; its file is not read for names either.
  if (!datasetInsideFolder(arg.value, folder)) return undefined;
  const read = model.dataset(path.resolve(folder, arg.value));
  if (read?.kind !== 'parsed' || !read.parse.ok) return undefined;
  return { kind: 'dataset', written: arg.value, columns: read.parse.columns, examples: read.parse.examples };
}
