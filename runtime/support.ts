// Checks, before anything starts, that this runtime can run a plan: the plan format, and
// every built-in and feature it names (the not-implemented ones are listed in
// not-implemented.ts). All problems are reported at once, each with what to do.
import { GYMNASIUM_ENV_KIND } from '../dsl/schema/python-env.js';
import { PYTHON_TEXT_ENV_KIND } from '../dsl/schema/python-text-env.js';
import { PLAN_FORMAT, type Plan } from '../dsl/compile/plan.js';
import { ALGORITHMS, stageAlgorithm } from './algorithms/index.js';
import { envKinds } from './envs/registry.js';
import { NOT_IMPLEMENTED } from './not-implemented.js';
import { ACTOR_CRITIC, buildsAs, LANGUAGE_MODEL, ownsTokenizer, POLICIES, policyDefinition } from './policies/index.js';
import { isTextEnv, TEXT_ENVS } from './text/env.js';
import { builtin, stageHandoverProblem, type EnvSpec } from '../dsl/schema/index.js';
import { curriculumProblems } from './curriculum.js';
import { InputError } from '../shared/input-error.js';
import { PRECISIONS, type Precision } from './tensor/index.js';

/** A plan this runtime cannot run; the message lists every reason. */
export class PlanError extends InputError {
  constructor(readonly problems: readonly string[]) {
    super(problems.length === 1 ? problems[0] : `the plan cannot run here:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'PlanError';
  }
}

function builtinProblem(kind: 'env' | 'algorithm' | 'policy', name: string, implemented: readonly string[]): string | undefined {
  if (implemented.includes(name)) return undefined;
  const why = NOT_IMPLEMENTED[kind][name];
  if (why) return `${kind} ${name} is not implemented yet: ${why}`;
  return `unknown ${kind} kind "${name}" (implemented: ${implemented.join(', ')})`;
}

/** What is wrong with the plan's `precision`: an unknown one, or fp16 for a policy whose steps it does not lower. */
function precisionProblems(plan: Plan): string[] {
  const precision = plan.precision ?? 'fp32';
  if (!(PRECISIONS as readonly string[]).includes(precision)) return [`unknown precision "${precision}" (known: ${PRECISIONS.join(', ')})`];
  if (precision === 'fp16' && !buildsAs(LANGUAGE_MODEL, plan.policy.kind)) {
    return [`precision fp16 lowers the gradient steps of transformer and pretrained policies; policy ${plan.policy.name} is ${plan.policy.kind}: remove precision (an MLP's products are too small to gain from float16)`];
  }
  return [];
}

/** The plan's precision, once checkPlan passed it: fp32 where the plan has none. */
export function planPrecision(plan: Plan): Precision {
  return (plan.precision ?? 'fp32') as Precision;
}

/** The message of a params reader's error, if it throws: a bad hyperparameter or setting. */
function paramProblems(read: () => unknown): string[] {
  try {
    read();
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
}

/**
 * Throws a PlanError unless this runtime implements everything `plan` uses. A user module's
 * kind (text or numeric) is known once it is loaded: pass `envModule` then; before, what
 * depends on it is left to that second check.
 */
export function checkPlan(plan: Plan, envModule?: { readonly text: unknown }): void {
  const problems: string[] = [];
  if (plan.rlx_plan !== PLAN_FORMAT) {
    throw new PlanError([`plan format ${String(plan.rlx_plan)} is not the one this runtime reads (${PLAN_FORMAT}); recompile the plan with this version of rlx`]);
  }
  // A user module's spaces are only known once it is loaded (the env workload checks them then).
  const isPython = plan.env.kind === GYMNASIUM_ENV_KIND;
  const isModule = plan.env.kind === 'module' || isPython;
  const isPythonText = plan.env.kind === PYTHON_TEXT_ENV_KIND;
  if (!isModule && !isPythonText) {
    const problem = builtinProblem('env', plan.env.kind, [...envKinds(), ...TEXT_ENVS]);
    if (problem) problems.push(problem);
  }
  /** Whether the env's actions are text; undefined for a module not loaded yet. */
  const text = isPython ? false : isModule ? (envModule ? Boolean(envModule.text) : undefined) : isTextEnv(plan.env.kind);
  const envLabel = isPythonText ? `env ${plan.env.name} (python_text "${String(plan.env.params.file)}:${String(plan.env.params.class)}")` : isPython ? `env ${plan.env.name} (gymnasium "${String(plan.env.params.id)}")` : isModule ? `env ${plan.env.name} (module "${plan.env.module ?? ''}")` : plan.env.kind;
  const policyProblem = builtinProblem('policy', plan.policy.kind, POLICIES.map((p) => p.name));
  if (policyProblem) problems.push(policyProblem);
  else {
    const definition = policyDefinition(plan.policy.kind)!;
    problems.push(...paramProblems(() => definition.settings(plan.policy.params, plan.policy)));
    // Text envs train a token model, the others an actor-critic over observation vectors.
    const name = `policy ${plan.policy.name} (${plan.policy.kind})`;
    if (text === true && !buildsAs(LANGUAGE_MODEL, plan.policy.kind)) problems.push(`${name} cannot write text: ${envLabel} needs a transformer or pretrained policy`);
    if (text === false && ownsTokenizer(plan.policy.kind)) problems.push(`${name} writes text: ${envLabel} has actions of numbers; pair it with a TextTask`);
    if (text === false && !buildsAs(ACTOR_CRITIC, plan.policy.kind) && !ownsTokenizer(plan.policy.kind)) problems.push(`${name} reads tokens, not observation vectors: ${envLabel} needs an mlp policy`);
  }
  problems.push(...precisionProblems(plan));
  // On an env of numbers each stage starts from the networks the one before it trained.
  if (text !== true) {
    plan.stages.slice(1).forEach((next, i) => {
      const previous = plan.stages[i]!;
      const problem = stageHandoverProblem({ name: previous.name, algorithm: previous.algorithm.kind }, { name: next.name, algorithm: next.algorithm.kind });
      if (problem) problems.push(problem);
    });
  }
  for (const stage of plan.stages) {
    const isLearnerModule = stage.algorithm.kind === 'module';
    const algorithm = isLearnerModule ? `algorithm ${stage.algorithm.name} (module "${stage.algorithm.module ?? ''}")` : stage.algorithm.kind;
    // A learner module's settings and actions are checked once it is loaded (train() loads it, then checks again).
    const problem = isLearnerModule ? undefined : builtinProblem('algorithm', algorithm, ALGORITHMS.map((a) => a.name));
    const definition = stageAlgorithm(stage.algorithm);
    const learnerText = isLearnerModule && definition ? definition.actions.includes('text') : undefined;
    if (isLearnerModule && learnerText === true && text === false) problems.push(`${algorithm} is a text learner: ${envLabel} has actions of numbers; write a learner of kind 'numeric' for it (docs/learners.md#numeric-learners)`);
    else if (isLearnerModule && learnerText === false && text === true) problems.push(`${algorithm} is a numeric learner: ${envLabel} is a text task; write a learner of kind 'text' for it (docs/learners.md#writing-a-learner-module)`);
    else if (isLearnerModule && !definition) { /* not loaded yet */ }
    else if (problem || !definition) problems.push(problem!);
    else {
      problems.push(...paramProblems(() => definition.params(stage.algorithm.params)));
      if (envKinds().includes(plan.env.kind) || text === true) {
        // The registry's action kind (the drift test holds the runtime to it): a MuJoCo env is not built before its engine loads.
        const action = text ? 'text' : (builtin(plan.env.kind) as EnvSpec).action;
        if (!definition.actions.includes(action)) problems.push(`${algorithm} does not train on ${action} actions (${envLabel})`);
      }
    }
    // SFT runs its own `updates` without a budget; other algorithms need one.
    if (stage.budget === null && !definition?.lengthWithoutBudget) {
      problems.push(`stage ${stage.name} has no budget: ${algorithm} needs one (${text ? 'completions' : 'environment steps'}), e.g. \`stage ${stage.name} = ${stage.algorithm.name} { budget: 50k }\``);
    } else if (stage.budget !== null && !(stage.budget >= 1)) problems.push(`stage ${stage.name}: budget must be at least 1, got ${stage.budget}`);
    const relabel = stage.algorithm.params.relabel;
    const envSpec = builtin(plan.env.kind);
    if (relabel !== undefined && relabel !== 'none' && envSpec?.declKind === 'env' && !(envSpec as EnvSpec).goalConditioned) {
      const how = typeof relabel === 'string' ? relabel : String((relabel as { kind?: unknown }).kind);
      problems.push(`${algorithm} relabels goals (relabel: ${how}), but ${envLabel} is not goal-conditioned; use GridWorld or set relabel: none`);
    }
  }
  if (plan.curriculum) problems.push(...curriculumProblems(plan, text));
  if (!Number.isSafeInteger(plan.envs) || plan.envs < 1) problems.push(`envs must be a positive whole number, got ${String(plan.envs)}`);
  if (plan.seeds.length === 0) problems.push('the plan lists no seeds');
  if (problems.length > 0) throw new PlanError(problems);
}
