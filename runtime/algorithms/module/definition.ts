// A loaded learner module as an AlgorithmDefinition, found by the plan's stage: the trainer
// loads each stage's module before it starts (loadStageLearners) and looks its definition up
// by the stage's algorithm component (stageAlgorithm in ../index.ts), as a built-in's by name.
import * as path from 'node:path';
import type { PlanComponent, PlanStage } from '../../../dsl/compile/plan.js';
import { learnerParams, moduleAlgorithmSpec, type LearnerModuleSpec } from '../../../dsl/schema/learner-module.js';
import { PlanParams } from '../../plan-params.js';
import type { AlgorithmContext, AlgorithmDefinition, TextAlgorithmContext } from '../algorithm.js';
import { LearnerModuleError } from './errors.js';
import { learnerLabel, loadBundledLearner, loadLearnerModule, type LoadedLearner } from './load.js';
import { ModuleNumericLearner, type ModuleNumericSettings } from './numeric-learner.js';
import { ModuleTextLearner, type ModuleTextSettings } from './text-learner.js';
import { promptLength, samplingControls } from '../sampling-settings.js';
import { countOrAuto } from '../text/memory-settings.js';

const LOADED = new WeakMap<PlanComponent, AlgorithmDefinition<unknown, unknown>>();

/** The definition of a stage's learner module, once loaded; undefined before (or for a built-in). */
export function loadedLearner(component: PlanComponent): AlgorithmDefinition<unknown, unknown> | undefined {
  return LOADED.get(component) as AlgorithmDefinition<unknown, unknown> | undefined;
}

/** The stages whose algorithm is a learner module. */
export function learnerStages(stages: readonly PlanStage[]): { stage: PlanStage; index: number }[] {
  return stages.flatMap((stage, index) => (stage.algorithm.kind === 'module' ? [{ stage, index }] : []));
}

/** Where a run directory keeps stage `index`'s bundle. */
export function learnerBundleFile(index: number): string {
  return path.join('source', `learner-${index}.mjs`);
}

export interface StageLearnerSource {
  /** The .rlx file's folder (module paths are relative to it), for a new run. */
  readonly baseDir?: string;
  /** A run directory whose bundles to load instead (a resume). */
  readonly runDir?: string;
  readonly buildTimeoutMs?: number;
}

/** Loads each stage's learner module and registers its definition; the bundles by stage index, to keep in the run directory. */
export async function loadStageLearners(stages: readonly PlanStage[], source: StageLearnerSource): Promise<Map<number, string>> {
  const bundles = new Map<number, string>();
  for (const { stage, index } of learnerStages(stages)) {
    const component = stage.algorithm;
    const written = component.module ?? '';
    const label = learnerLabel(component.name, written);
    const groupSize = typeof component.params.group_size === 'number' ? component.params.group_size : 8;
    // The module's own settings, as far as the plan tells them apart before the module's kind is known (rlx's names of both kinds left out).
    const rlxOwn = [...learnerParams('text'), ...learnerParams('numeric')];
    const settings = Object.fromEntries(Object.entries(component.params).filter(([k, v]) => !rlxOwn.some((p) => p.name === k) && (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string'))) as Record<string, number | boolean | string>;
    const timeout = component.params.build_timeout;
    const buildTimeoutMs = source.buildTimeoutMs ?? (typeof timeout === 'number' && timeout > 0 ? timeout * 1000 : undefined);
    const options = { name: component.name, written, settings, groupSize, buildTimeoutMs };
    let learner: LoadedLearner;
    if (source.runDir) learner = await loadBundledLearner(source.runDir, path.join(source.runDir, learnerBundleFile(index)), options);
    else if (source.baseDir) learner = await loadLearnerModule(path.resolve(source.baseDir, written), options);
    else throw new LearnerModuleError(`${label} is user code: pass the .rlx file's folder as baseDir (rlx train resolves module paths next to the .rlx file)`);
    LOADED.set(component, (learner.spec.kind === 'numeric' ? numericLearnerDefinition(learner, written) : learnerDefinition(learner, written)) as AlgorithmDefinition<unknown, unknown>);
    bundles.set(index, learner.code);
  }
  return bundles;
}

/** The definition of a loaded text learner: its settings read against the spec its code exports. */
export function learnerDefinition(learner: LoadedLearner, written: string): AlgorithmDefinition<ModuleTextSettings, TextAlgorithmContext> {
  const declared = moduleAlgorithmSpec(learner.spec, written).params;
  return {
    name: learner.label,
    actions: ['text'],
    params(hyperparameters) {
      const p = new PlanParams(learner.label, declared, hyperparameters);
      const module = moduleSettings(p, learner.spec);
      return {
        group_size: p.count('group_size'),
        prompts_per_update: p.count('prompts_per_update'),
        learning_rate: p.schedule('learning_rate'),
        iterations: p.count('iterations'),
        max_new_tokens: p.count('max_new_tokens'),
        temperature: p.number('temperature'),
        sampling: samplingControls(p),
        ...promptLength(p),
        max_grad_norm: p.number('max_grad_norm'),
        micro_batch: countOrAuto(p, 'micro_batch'),
        generation_batch: countOrAuto(p, 'generation_batch'),
        module,
      };
    },
    create: (context, settings) => ModuleTextLearner.create(context, learner, settings),
  };
}

/** The definition of a loaded numeric learner: rlx's off-policy settings and the module's own. */
export function numericLearnerDefinition(learner: LoadedLearner, written: string): AlgorithmDefinition<ModuleNumericSettings, AlgorithmContext> {
  const declared = moduleAlgorithmSpec(learner.spec, written).params;
  return {
    name: learner.label,
    actions: ['continuous'],
    params(hyperparameters) {
      const p = new PlanParams(learner.label, declared, hyperparameters);
      return {
        learning_rate: p.schedule('learning_rate'),
        buffer: p.count('buffer'),
        batch_size: p.count('batch_size'),
        gamma: p.number('gamma'),
        tau: p.number('tau'),
        learning_starts: p.number('learning_starts'),
        exploration_noise: p.number('exploration_noise'),
        train_every: p.count('train_every'),
        gradient_steps: p.count('gradient_steps'),
        module: moduleSettings(p, learner.spec),
      };
    },
    create: (context, settings) => ModuleNumericLearner.create(context, learner, settings),
  };
}

/** The module's own settings, read against its spec. */
function moduleSettings(p: PlanParams, spec: LearnerModuleSpec): Record<string, number | boolean | string> {
  const module: Record<string, number | boolean | string> = {};
  for (const s of spec.settings) {
    module[s.name] = s.type === 'bool' ? p.flag(s.name) : s.type === 'choice' ? p.option(s.name, s.options!) : s.type === 'int' ? intSetting(p, s.name) : p.number(s.name);
  }
  return module;
}

function intSetting(p: PlanParams, name: string): number {
  const v = p.number(name);
  return Number.isInteger(v) ? v : p.fail(name, 'a whole number');
}
