// A plan stage's work (AlgorithmSpec.work) as the trainer reads it: the stage's algorithm by its
// kind (`module` for a learner module, whose own settings are checked once it is loaded, so rlx's
// settings of its kind stand for it), with the registry's default for each setting a plan leaves
// out or gives a value of another type (a hand-written plan; the algorithm itself refuses the
// value when it is built).
import { ALGORITHMS } from './algorithms.js';
import { learnerParams, learnerWork } from './learner-module.js';
import type { AlgorithmSpec, AlgorithmWork, DataFileType, ParamSpec, PlanValue, ValueType, WorkContext } from './types.js';

/**
 * The file a value of a setting of `type` names, by the type's `file`: a string it takes as a
 * file, not one of its options (`none`, `demos`); undefined for any other value.
 */
export function fileTypeOf(type: ValueType, value: PlanValue | undefined): DataFileType | undefined {
  if (typeof value !== 'string') return undefined;
  if (type.kind === 'string') return type.file;
  if (type.kind !== 'oneOf') return undefined;
  const isOption = type.types.some((t) => t.kind === 'choice' && t.options.some((o) => o.name === value));
  return isOption ? undefined : type.types.find((t): t is ValueType & { kind: 'string' } => t.kind === 'string' && t.file !== undefined)?.file;
}

/** The data files settings `values` name, by the settings' types (`file`): declared once, in the registry. */
export function dataFilesOf(params: readonly ParamSpec[], values: Readonly<Record<string, PlanValue>>): AlgorithmWork['dataFiles'] {
  return params.flatMap((p) => {
    const file = fileTypeOf(p.type, values[p.name]);
    return file ? [{ param: p.name, path: values[p.name] as string, file }] : [];
  });
}

/** An algorithm's work at settings `values` (every setting given, defaults filled), its data files included. */
export function algorithmWork(spec: { readonly params: readonly ParamSpec[]; readonly work: AlgorithmSpec['work'] }, values: Readonly<Record<string, PlanValue>>, on: WorkContext): AlgorithmWork {
  return { ...spec.work(values, on), dataFiles: dataFilesOf(spec.params, values) };
}

function filled(params: readonly ParamSpec[], given: Readonly<Record<string, unknown>>): Record<string, PlanValue> {
  const values: Record<string, PlanValue> = {};
  for (const p of params) {
    const value = given[p.name];
    const sameType = value !== undefined && value !== null && (p.default === undefined || typeof value === typeof p.default);
    values[p.name] = (sameType ? value : p.default ?? null) as PlanValue;
  }
  return values;
}

/** The settings of a stage whose algorithm is `kind` (`module`: a learner module, by what it learns on); undefined for a kind the registry does not know. */
function stageParams(kind: string, text: boolean): readonly ParamSpec[] | undefined {
  if (kind === 'module') return learnerParams(text ? 'text' : 'numeric');
  return ALGORITHMS.find((a) => a.name === kind)?.params;
}

/** The work of one stage whose algorithm is `kind` with settings `given`; a kind the registry does not know is a bug (plans are checked first). */
export function stageWork(kind: string, given: Readonly<Record<string, unknown>>, on: WorkContext): AlgorithmWork {
  if (kind === 'module') {
    const learner = on.text ? 'text' : 'numeric';
    return algorithmWork({ params: learnerParams(learner), work: learnerWork(learner) }, filled(learnerParams(learner), given), on);
  }
  const spec = ALGORITHMS.find((a) => a.name === kind);
  if (!spec) throw new Error(`no algorithm ${kind} in the schema registry (dsl/schema/algorithms.ts)`);
  return algorithmWork(spec, filled(spec.params, given), on);
}

/**
 * The data files a plan stage's settings `given` name (its `file` settings that hold a path),
 * without working out the rest of its work: what `rlx train` copies into the run folder. None
 * for a kind the registry does not know (checkPlan refuses it).
 */
export function stageDataFiles(kind: string, given: Readonly<Record<string, unknown>>, text: boolean): AlgorithmWork['dataFiles'] {
  const params = stageParams(kind, text);
  return params ? dataFilesOf(params, filled(params, given)) : [];
}
