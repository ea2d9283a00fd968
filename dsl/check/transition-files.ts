// The offline learners' `data` (a `file` setting of format `transitions`: BC's, TD3BC's, IQL's):
// an .npz of transitions (shared/transitions/transitions.ts). Its headers are read here, where
// the spec names the file (the zip directory and each array's .npy header, never the data, so
// a file of millions of rows checks at once): missing keys, rows that disagree, unreadable
// dtypes are errors at the value. And in an experiment, its observations must have as many
// numbers as the env's named fields: the policy it trains is evaluated there. `rlx train` reads
// the data and checks the rest (NaN, flags, episode boundaries, the action numbers).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as A from '../syntax/ast.js';
import type { DeclSymbol, Effective, Target } from '../semantics/model.js';
import { algorithmSpec, fileTypeOf, type AlgorithmSpec } from '../schema/index.js';
import { datasetInsideFolder } from '../schema/dataset.js';
import { fileSource, NpzError } from '../../shared/transitions/npz.js';
import { readTransitionsHeader, type TransitionsHeader } from '../../shared/transitions/transitions.js';
import type { Accept, CheckContext } from './context.js';

type HeaderRead = { readonly header: TransitionsHeader } | { readonly problem: string };

/** Headers read, by file, while the file's size and time are the same. */
const cache = new Map<string, { readonly stamp: string; readonly read: HeaderRead }>();

/** The headers of the transitions file at absolute path `file`, written `written`; a problem in words otherwise. */
export function transitionsHeaderOf(file: string, written: string): HeaderRead {
  let stamp: string;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return { problem: `cannot read '${written}': it is not a regular file` };
    stamp = `${stat.size}:${stat.mtimeMs}`;
  } catch {
    return { problem: `cannot read '${written}': no such file` };
  }
  const cached = cache.get(file);
  if (cached?.stamp === stamp) return cached.read;
  let read: HeaderRead;
  try {
    const source = fileSource(written, file);
    try {
      read = { header: readTransitionsHeader(source) };
    } finally {
      source.close();
    }
  } catch (err) {
    if (!(err instanceof NpzError)) throw err;
    read = { problem: err.message };
  }
  cache.set(file, { stamp, read });
  return read;
}

/** A transitions file's headers, reported at `literal` when they are wrong (ValueChecker calls it for a file setting of format `transitions`). */
export function checkTransitionsHeader(ctx: CheckContext, literal: A.StringLiteral, accept: Accept): void {
  const folder = path.dirname(ctx.unit.path);
  if (!datasetInsideFolder(literal.value, folder)) return; // reported by checkDataFile
  const read = transitionsHeaderOf(path.resolve(folder, literal.value), literal.value);
  if ('problem' in read) accept('error', 'invalid-dataset', read.problem, literal.range);
}

/** In an experiment: each stage's (or the algorithm's) required settings stated, and its transitions file against the env's observation fields. */
export function checkTransitionFiles(ctx: CheckContext, experiment: DeclSymbol, stages: Effective<A.NamedMember>[]): void {
  const { model } = ctx;
  const envTarget = model.referencedTarget(experiment, 'env');
  const env = model.envSpec(envTarget);
  const envName = envTarget?.kind === 'builtin' ? envTarget.spec.name : envTarget?.symbol.name;
  /** The env's observation numbers where the checker knows them. */
  const envObs = env && env.action !== 'text' && env.obsFields.length > 0 ? env.obsFields : undefined;

  const report = (spec: AlgorithmSpec, stated: (name: string) => { value: A.Expression | undefined; unit: DeclSymbol['unit'] } | undefined) => {
    for (const param of spec.params) {
      const at = stated(param.name);
      if (!envObs || at?.value?.kind !== 'String' || fileTypeOf(param.type, at.value.value)?.format !== 'transitions') continue;
      const folder = path.dirname(at.unit.path);
      if (!datasetInsideFolder(at.value.value, folder)) continue;
      const read = transitionsHeaderOf(path.resolve(folder, at.value.value), at.value.value);
      if (!('header' in read) || read.header.obsDim === envObs.length) continue;
      ctx.forUnit(at.unit).accept('error', 'incompatible-env',
        `'${at.value.value}' holds observations of ${read.header.obsDim} numbers, and env ${envName} of experiment ${experiment.name} has ${envObs.length} (${envObs.join(', ')}): `
        + `${spec.name}'s policy is evaluated there; record the dataset on that env (rlx record)`, at.value.range);
    }
  };
  /** `where`: the experiment's `algorithm:` value or the stage's name, where a required setting nobody states is reported. */
  const fromDeclaration = (target: Target | undefined, where: { range: A.Range | undefined; unit: DeclSymbol['unit']; what: string }, own?: A.Body, ownUnit?: DeclSymbol['unit']) => {
    const spec = target?.kind === 'builtin' ? algorithmSpec(target.spec.name) : target ? model.rootBuiltin(target.symbol) : undefined;
    if (spec?.declKind !== 'algorithm') return;
    const properties = target?.kind === 'decl' ? model.effective(target.symbol).properties : undefined;
    const stated = (name: string) => {
      const local = own?.members.find((m): m is A.Property => m.kind === 'Property' && m.path.length === 1 && m.path[0].text === name);
      if (local) return { value: local.value, unit: ownUnit! };
      const inherited = properties?.get(name);
      return inherited ? { value: inherited.node.value, unit: inherited.owner.unit } : undefined;
    };
    report(spec, stated);
    // A setting without a default (the offline learners' data) that neither the declaration nor its bases state.
    const missing = spec.params.filter((p) => p.required && stated(p.name) === undefined);
    if (missing.length > 0 && where.range) {
      ctx.forUnit(where.unit).accept('error', 'missing-property', `${where.what} trains with ${spec.name}, which needs ${missing.map((p) => `'${p.name}'`).join(' and ')} (it has no default): set it in the algorithm's declaration`, where.range);
    }
  };
  if (stages.length === 0) {
    const value = model.effective(experiment).properties.get('algorithm');
    fromDeclaration(model.referencedTarget(experiment, 'algorithm'), { range: value?.node.value?.range, unit: value?.owner.unit ?? experiment.unit, what: `experiment ${experiment.name}` });
  }
  for (const stage of stages) {
    const baseName = stage.node.base?.name.parts[0];
    const where = { range: stage.node.name?.range ?? stage.node.keywordRange, unit: stage.owner.unit, what: `stage ${stage.node.name?.text ?? ''}` };
    fromDeclaration(baseName ? model.lookup(stage.owner.unit, baseName.text) : undefined, where, stage.node.body, stage.owner.unit);
  }
}
