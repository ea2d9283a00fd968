// Which schema applies where: the parameters a body may hold (a declaration's, a block's, a
// stage's, a sweep path's), where an unstated value would be inherited from, and which envs a
// reward is paired with. Hover, completion, definition and inlay hints all ask these questions.
import { GYMNASIUM_ENV_BLOCKS, GYMNASIUM_ENV_PARAMS } from '../schema/python-env.js';
import { PYTHON_TEXT_ENV_BLOCKS, PYTHON_TEXT_ENV_PARAMS } from '../schema/python-text-env.js';
import {
  algorithmSpec, DECLARATION_SCHEMAS, type BlockSpec, type BuiltinSpec, type ChoiceOption, type EnvSpec, type ParamSpec, type ValueType,
} from '../schema/index.js';
import type { DeclSymbol, Model, SourceUnit, Target } from '../index.js';
import { declaredObservations, pythonEnvLabel, pythonEnvRoot, pythonTextRoot, type Effective } from '../semantics/model.js';
import type * as A from '../index.js';

/** Which body of a declaration: its own, one of its blocks (`eval { }`), or a stage's (`stage main = SFT { }`). */
export type BodyPlace = { kind: 'declaration' } | { kind: 'block'; name: string } | { kind: 'stage'; base: string | undefined };

export interface BodySchema {
  /** The parameters; 'any' for user-code envs whose parameters cannot be known. */
  params: ParamSpec[] | 'any';
  blocks: BlockSpec[];
  named?: 'term' | 'stage';
  /** For people: "PPO", "experiment", "eval { }", "stage (SFT)". */
  label: string;
  /** Where a property this body does not state gets its value: the base declaration, or a stage's algorithm. */
  inherits: DeclSymbol | undefined;
  /** Set for blocks: inherited values come from this block of `inherits`. */
  block?: string;
}

const EXPERIMENT = DECLARATION_SCHEMAS.experiment;
const SWEEP = DECLARATION_SCHEMAS.sweep;
/** The parts of an experiment a sweep path or a curriculum path may go into. */
export const PARTS = ['env', 'policy', 'algorithm'] as const;

export function specOf(model: Model, target: Target | undefined): BuiltinSpec | undefined {
  if (!target) return undefined;
  return target.kind === 'builtin' ? target.spec : model.rootBuiltin(target.symbol);
}

/** The declaration a symbol directly inherits from, when that is another declaration. */
export function baseSymbol(model: Model, symbol: DeclSymbol): DeclSymbol | undefined {
  const base = model.base(symbol);
  return base.kind === 'decl' ? base.symbol : undefined;
}

export function bodySchema(model: Model, symbol: DeclSymbol, place: BodyPlace): BodySchema | undefined {
  const decl = declarationSchema(model, symbol);
  if (place.kind === 'declaration' || !decl) return decl;
  if (place.kind === 'block') {
    const spec = decl.blocks.find((b) => b.name === place.name);
    return spec && { params: spec.params, blocks: [], label: `${spec.name} { }`, inherits: decl.inherits, block: spec.name };
  }
  const target = place.base === undefined ? undefined : model.lookup(symbol.unit, place.base);
  const spec = target?.kind === 'builtin' ? algorithmSpec(target.spec.name) : target && model.rootBuiltin(target.symbol);
  if (spec?.declKind !== 'algorithm') return undefined;
  return {
    params: [...DECLARATION_SCHEMAS.stage.params, ...spec.params],
    blocks: [],
    label: `stage (${spec.name})`,
    inherits: target?.kind === 'decl' ? target.symbol : undefined,
  };
}

function declarationSchema(model: Model, symbol: DeclSymbol): BodySchema | undefined {
  const kind = symbol.decl.declKind;
  if (kind === 'experiment' || kind === 'reward') {
    const schema = DECLARATION_SCHEMAS[kind];
    return { params: schema.params, blocks: schema.blocks, named: schema.named, label: kind, inherits: baseSymbol(model, symbol) };
  }
  if (kind === 'sweep') return { params: SWEEP.params, blocks: SWEEP.blocks, label: 'sweep', inherits: undefined };
  const root = model.effective(symbol).root;
  const inherits = baseSymbol(model, symbol);
  if (root.kind === 'builtin') return { params: root.spec.params, blocks: root.spec.blocks ?? [], label: root.spec.name, inherits };
  if (root.kind === 'module' && kind === 'algorithm') {
    const learner = model.learnerModule(symbol)?.spec;
    return learner ? { params: learner.params, blocks: [], label: learner.name, inherits } : { params: 'any', blocks: [], label: 'user learner', inherits };
  }
  const text = pythonTextRoot(root);
  if (text) return { params: PYTHON_TEXT_ENV_PARAMS, blocks: PYTHON_TEXT_ENV_BLOCKS, label: `python_text("${text.pythonText.written}")`, inherits };
  const python = pythonEnvRoot(root);
  if (python) return { params: GYMNASIUM_ENV_PARAMS, blocks: GYMNASIUM_ENV_BLOCKS, label: pythonEnvLabel(python), inherits };
  if (root.kind === 'module') return { params: 'any', blocks: [], label: 'user environment', inherits };
  return undefined;
}

/** The statement a declaration (or one of its blocks) inherits for a property, if any. */
export function inheritedStatement(model: Model, from: DeclSymbol | undefined, key: string, block?: string): Effective<A.Property> | undefined {
  if (!from) return undefined;
  const effective = model.effective(from);
  return block ? effective.blocks.get(block)?.get(key) : effective.properties.get(key);
}

/** The experiment a sweep varies. */
export function sweptExperiment(model: Model, sweep: DeclSymbol): DeclSymbol | undefined {
  const name = sweep.decl.over?.parts[0];
  const target = name ? model.lookup(sweep.unit, name.text) : undefined;
  return target?.kind === 'decl' && target.symbol.decl.declKind === 'experiment' ? target.symbol : undefined;
}

/** What `head.` of a sweep path goes into: a part of the experiment (`algorithm.`) or one of its blocks (`eval.`). */
export function sweepSegment(model: Model, sweep: DeclSymbol, head: string): BodySchema | undefined {
  const experiment = sweptExperiment(model, sweep);
  const block = EXPERIMENT.blocks.find((b) => b.name === head);
  if (block) return { params: block.params, blocks: [], label: `${head} { }`, inherits: experiment, block: head };
  return experiment && partSchema(model, experiment, head);
}

/** The parameters of one part of an experiment (`env`, `policy`, `algorithm`), as paths into it see them. */
export function partSchema(model: Model, experiment: DeclSymbol, part: string): BodySchema | undefined {
  if (!(PARTS as readonly string[]).includes(part)) return undefined;
  const target = model.referencedTarget(experiment, part);
  const spec = specOf(model, target);
  if (!spec) return undefined;
  return { params: spec.params, blocks: [], label: `${part} (${spec.name})`, inherits: target?.kind === 'decl' ? target.symbol : undefined };
}

/** The experiment's own properties, as sweeps and paths see them. */
export function experimentSchema(experiment: DeclSymbol | undefined): BodySchema {
  return { params: EXPERIMENT.params, blocks: EXPERIMENT.blocks, label: 'experiment', inherits: experiment };
}

/** The parameter a sweep property varies: a sweep setting, an experiment property, or `part.param`. */
export function sweepParam(model: Model, sweep: DeclSymbol, path: string[]): { param: ParamSpec | undefined; schema: BodySchema | undefined } {
  if (path.length === 1) {
    const own = SWEEP.params.find((p) => p.name === path[0]);
    if (own) return { param: own, schema: { params: SWEEP.params, blocks: [], label: 'sweep', inherits: undefined } };
    return { param: EXPERIMENT.params.find((p) => p.name === path[0]), schema: experimentSchema(sweptExperiment(model, sweep)) };
  }
  const schema = path.length === 2 ? sweepSegment(model, sweep, path[0]) : undefined;
  const params = schema?.params === 'any' ? [] : schema?.params ?? [];
  return { param: params.find((p) => p.name === path[1]), schema };
}

/** Every named option a value type accepts (through `oneOf`). */
export function optionsOf(type: ValueType | undefined): ChoiceOption[] {
  if (!type) return [];
  if (type.kind === 'choice') return type.options;
  if (type.kind === 'oneOf') return type.types.flatMap(optionsOf);
  return [];
}

/** The alternatives of a type, `oneOf` flattened. */
export function alternatives(type: ValueType | undefined): ValueType[] {
  if (!type) return [];
  return type.kind === 'oneOf' ? type.types.flatMap(alternatives) : [type];
}

/** An env a reward's terms are evaluated against, through an experiment that uses the reward. */
export interface EnvUse {
  spec: EnvSpec;
  /** `Pole (CartPole)` or `CartPole`. */
  label: string;
  experiment: DeclSymbol;
}

const envUseCache = new WeakMap<Model, Map<DeclSymbol, EnvUse[]>>();

/** The envs of all experiments whose reward is this one (or derives from it), each env once. */
export function envsOfReward(model: Model, reward: DeclSymbol): EnvUse[] {
  let byReward = envUseCache.get(model);
  if (!byReward) {
    byReward = new Map();
    envUseCache.set(model, byReward);
    for (const experiment of model.allSymbols()) {
      if (experiment.decl.declKind !== 'experiment') continue;
      const rewardTarget = model.referencedTarget(experiment, 'reward');
      if (rewardTarget?.kind !== 'decl' || rewardTarget.symbol.decl.declKind !== 'reward') continue;
      const envTarget = model.referencedTarget(experiment, 'env');
      if (!envTarget) continue;
      const spec = model.envSpec(envTarget) ?? undeclaredModule(model, envTarget);
      if (!spec) continue;
      const label = envTarget.kind === 'decl' ? `${envTarget.symbol.name} (${spec.name})` : spec.name;
      for (const owner of model.effective(rewardTarget.symbol).chain) {
        const list = byReward.get(owner) ?? [];
        if (!list.some((u) => u.label === label)) list.push({ spec, label, experiment });
        byReward.set(owner, list);
      }
    }
  }
  return byReward.get(reward) ?? [];
}

/**
 * A user module that declares no spec: its names are unknown, so it offers none (rather than
 * every built-in's, as a reward paired with nothing does).
 */
function undeclaredModule(model: Model, target: Target): EnvSpec | undefined {
  const python = target.kind === 'decl' ? pythonEnvRoot(model.effective(target.symbol).root) : undefined;
  if (python) {
    // A Python env offers the observation names it declares (its action kind is learnt when training starts).
    const names = declaredObservations(model.effective((target as { symbol: DeclSymbol }).symbol)) ?? [];
    return { declKind: 'env', name: pythonEnvLabel(python), doc: '', params: [], obsFields: names, action: 'discrete', infoFields: [] };
  }
  const module = target.kind === 'decl' ? model.envModule(target.symbol) : undefined;
  if (!module) return undefined;
  return { declKind: 'env', name: `module("${module.written}")`, doc: '', params: [], obsFields: [], action: 'discrete', infoFields: [] };
}

/** Declarations visible in a file that are of a kind, own file first. */
export function visibleOfKind(model: Model, unit: SourceUnit, kind: A.DeclKind): DeclSymbol[] {
  return model.visibleSymbols(unit).filter((s) => s.decl.declKind === kind);
}
