// The workload of runs on observation-vector envs (CartPole, Pendulum, GridWorld, a user's
// module): env copies stepped with the plan's reward terms by a Stepper that the algorithms
// share, sampled rollout episodes of copy 0, and evaluation over whole episodes on copies of
// their own.
import type { Plan, PlanStage } from '../../dsl/compile/plan.js';
import { ALGORITHMS, stageAlgorithm, Stepper, type Algorithm, type EpisodeRecord } from '../algorithms/index.js';
import { makeVecEnv } from '../envs/registry.js';
import { actionKindOf, isGoalConditioned } from '../envs/types.js';
import type { LoadedEnvModule } from '../envs/user-module.js';
import { VecEnv } from '../envs/vector.js';
import { evalMetrics, evaluate, recordEpisode } from '../evaluate.js';
import { NetworkHandover, PolicyFactory, policySpaces, type PolicySpaces } from '../policies/index.js';
import { Rng } from '../../shared/random.js';
import { InputError } from '../../shared/input-error.js';
import { compileReward } from '../rewards/index.js';
import type { RunDataFiles } from '../run/data-files.js';
import { EVAL_EPISODES_KEPT, thinEvalEpisodes } from '../run/rollout-cap.js';
import { frameOfCopy0, RolloutRecorder, type RecordedEpisode } from '../run/rollouts.js';
import type { ConditionMetric } from '../run/stop.js';
import type { Compute } from '../tensor/index.js';
import type { EvalOutcome, RunServices, Workload } from './workload.js';

/** Evaluation env copies draw from streams of the run's seed from here on (training's are 0 .. envs-1). */
const EVAL_STREAMS = 1 << 20;
/** Evaluation runs its episodes on at most this many copies at once. */
const EVAL_COPIES = 32;

/** Makes `n` env copies of the plan's env (a built-in, or the user's module) with `params`. */
type EnvFactory = (params: Record<string, unknown>, n: number) => VecEnv;

export class EnvWorkload implements Workload {
  readonly description: Readonly<Record<string, unknown>>;
  readonly policyFields: Readonly<Record<string, unknown>>;
  private readonly spaces: PolicySpaces;
  private evalEnv: VecEnv | null = null;
  private recorder: RolloutRecorder | null = null;
  /** The one env copy the policy's recorded episodes run on (made when first needed). */
  private showEnv: VecEnv | null = null;
  private run: RunServices | null = null;
  /** The env's params in effect: the plan's, then a curriculum's values. */
  private params: Record<string, unknown>;
  /** The params each training copy was made with (they differ while a curriculum hands copies over). */
  private readonly paramsOf = new WeakMap<object, Record<string, unknown>>();
  /** Each stage's networks start from those the previous stage trained. */
  private readonly handover = new NetworkHandover();
  /** Whether the env copies have been started (begin()); later stages go on with the episodes in flight. */
  private started = false;
  /** Whether this process has said (in a log event) that rollouts/ thins its eval episodes. */
  private toldThinning = false;

  private constructor(
    private readonly plan: Plan,
    private readonly seed: number,
    private readonly makeEnvs: EnvFactory,
    readonly stepper: Stepper,
    private readonly termNames: readonly string[],
    /** Ends the worker of a user module's env copies. */
    private readonly closeEnvs: () => void,
    /** The most eval episodes rollouts/ keeps (rollout-cap.ts). */
    private readonly evalEpisodesKept: number,
    /** The files the stages' `file` settings name, handed to each stage's algorithm. */
    readonly dataFiles: RunDataFiles | undefined,
  ) {
    const vec = stepper.vec;
    this.params = plan.env.params;
    for (const env of vec.envs) this.paramsOf.set(env, this.params);
    this.spaces = policySpaces(vec.observationSpace, vec.actionSpace);
    this.description = { env: plan.env.kind, envs: plan.envs };
    this.policyFields = { obs_fields: vec.obsFields, obs_dim: vec.obsDim, action: vec.actionSpace };
  }

  /**
   * The plan's env copies and reward terms; `envModule` is the loaded module of a `module(...)`
   * env; `evalEpisodesKept` bounds the recorded eval episodes (EVAL_EPISODES_KEPT by default);
   * `dataFiles`, the files the stages' `file` settings name.
   */
  static create(plan: Plan, seed: number, envModule: LoadedEnvModule | undefined, evalEpisodesKept = EVAL_EPISODES_KEPT, dataFiles?: RunDataFiles): EnvWorkload {
    const makeEnvs: EnvFactory = envModule ? (params, n) => VecEnv.create(() => envModule.create(params), n) : (params, n) => makeVecEnv(plan.env.kind, params, n);
    const vec = makeEnvs(plan.env.params, plan.envs);
    const first = vec.envs[0];
    const goal = isGoalConditioned(first) ? { goalFields: first.goalFields, achievedFields: first.achievedFields } : {};
    const reward = plan.reward ? compileReward(plan.reward, { kind: vec.kind, obsFields: vec.obsFields, actionSpace: vec.actionSpace, ...goal }) : null;
    return new EnvWorkload(plan, seed, makeEnvs, new Stepper(vec, reward), reward?.termNames ?? [], () => envModule?.close(), evalEpisodesKept, dataFiles);
  }

  streamName(index: number, algorithm: string): string {
    return index === 0 ? algorithm : `stage ${index}: ${algorithm}`;
  }

  createAlgorithm(stage: PlanStage, settings: unknown, rng: Rng, compute: Compute): Promise<Algorithm> {
    const definition = stageAlgorithm(stage.algorithm)!; // checkPlan() vouched for it
    // The checker knows a built-in's or a probed env's action kind; a Python env that was not
    // probed, or a module without a spec, shows its action space only now.
    const action = actionKindOf(this.stepper.vec.actionSpace);
    if (!definition.actions.includes(action)) {
      const fits = ALGORITHMS.filter((a) => a.actions.includes(action)).map((a) => a.name);
      throw new InputError(
        `stage ${stage.name}: ${definition.name} cannot train on ${this.plan.env.name}: it needs ${definition.actions.filter((a) => a !== 'text').join(' or ')} actions, and ${this.plan.env.name} has ${action} actions; algorithms that fit: ${fits.join(', ')}`,
      );
    }
    const policy = new PolicyFactory(this.plan.policy, this.spaces, new Rng(this.seed).fork('policy'), this.handover);
    return definition.create({ policy, stepper: this.stepper, budget: stage.budget!, rng, compute, dataFiles: this.dataFiles?.forStage(stage) }, settings);
  }

  handedOver(): string | undefined {
    const passed = this.handover.passed;
    return passed ? `the ${passed.family} networks (${passed.weights} weights)` : undefined;
  }

  begin(_algorithm: Algorithm, run: RunServices, resumedAt: number | null): void {
    // Episodes restart on a resume: each copy draws from a stream of the seed and the resume
    // step. A later stage goes on with the episodes in flight when the previous one ended.
    if (resumedAt !== null) this.stepper.reset(new Rng(this.seed).fork('resume').fork(resumedAt).uint32());
    else if (!this.started) this.stepper.reset(this.seed);
    this.started = true;
    const vec = this.stepper.vec;
    this.run = run;
    this.recorder = new RolloutRecorder(
      run.dir.rolloutsDir,
      // Copy 0's params when its recorded episode starts: a curriculum changes them over the run.
      {
        env: vec.kind, obsFields: vec.obsFields, actionSpace: vec.actionSpace, terms: this.termNames,
        envParams: () => this.paramsOf.get(vec.envs[0]!) ?? this.params,
        ...frameOfCopy0(vec),
      },
      (episode) => this.noteRecorded(episode, run.step()),
    );
    this.stepper.sink = this.recorder;
  }

  private noteRecorded(episode: RecordedEpisode, step: number): void {
    const run = this.run!;
    run.dir.events.add({ type: 'rollout', step, file: run.dir.relative(episode.file), return: episode.return, length: episode.length, recorded: episode.recorded });
  }

  async recordPolicy(algorithm: Algorithm, recorded: 'eval' | 'final', step: number): Promise<void> {
    const run = this.run!;
    this.showEnv ??= this.makeEnvs(this.params, 1);
    // The training stepper's reward terms, on a copy of its own: the episode shows the training
    // reward and each term as the learner saw them.
    await recordEpisode(algorithm.policy, this.showEnv, {
      dir: run.dir.rolloutsDir, step, recorded, deterministic: this.plan.eval?.deterministic ?? true,
      reward: this.stepper.reward, termNames: this.termNames, envParams: this.params,
      seed: new Rng(this.seed).fork('recorded').fork(step).uint32(),
      rng: new Rng(this.seed).fork('recorded-actions').fork(step),
      onRecorded: (episode) => this.noteRecorded(episode, step),
      masked: algorithm.masksActions === true,
    });
    if (recorded === 'eval') this.thinEvalEpisodes(step);
  }

  /** Keeps rollouts/ to `evalEpisodesKept` eval episodes, saying so in the log the first time one goes. */
  private thinEvalEpisodes(step: number): void {
    const run = this.run!;
    if (thinEvalEpisodes(run.dir.dir, this.evalEpisodesKept).length === 0 || this.toldThinning) return;
    this.toldThinning = true;
    run.dir.events.add({
      type: 'log', step, level: 'info', stage: run.stage(),
      message: `rollouts/ keeps ${Math.max(this.evalEpisodesKept, 2)} episodes of the evaluated policy: the first, the latest and a sample spread over the run; the others are removed as new ones are recorded`,
    });
  }

  recordNext(step: number, atStart: boolean): void {
    this.recorder!.arm(step, atStart);
  }

  takeEpisodes(): readonly EpisodeRecord[] {
    return this.stepper.takeEpisodes();
  }

  evaluates(plan: Plan): boolean {
    return plan.eval !== null && plan.eval !== undefined;
  }

  async evaluate(algorithm: Algorithm, index: number): Promise<EvalOutcome> {
    const spec = this.plan.eval!;
    this.evalEnv ??= this.makeEnvs(this.params, Math.min(spec.episodes, EVAL_COPIES));
    const rng = new Rng(this.seed).fork('eval').fork(index);
    const result = await evaluate(algorithm.policy, this.evalEnv, spec.episodes, spec.deterministic, rng, this.seed, EVAL_STREAMS + index * this.evalEnv.numEnvs, algorithm.masksActions === true);
    return { values: evalMetrics(result), returns: result.returns, lengths: result.lengths, deterministic: spec.deterministic };
  }

  conditionValues(windows: Readonly<Record<string, number>>, _latest: Readonly<Record<string, number>>, lastEval: Readonly<Record<string, number>>): Partial<Record<ConditionMetric, number>> {
    return {
      'eval.mean_return': lastEval['eval/mean_return'],
      'eval.std_return': lastEval['eval/std_return'],
      'eval.mean_length': lastEval['eval/mean_length'],
      'eval.success': lastEval['eval/success'],
      'train.mean_return': windows['train/mean_return'],
      'train.mean_length': windows['train/mean_length'],
      'train.success': windows['train/success'],
    };
  }

  setEnvParam(name: string, value: number, step: number): void {
    if (this.params[name] === value) return;
    this.params = { ...this.params, [name]: value };
    const vec = this.stepper.vec;
    const next = this.makeEnvs(this.params, vec.numEnvs);
    for (const env of next.envs) this.paramsOf.set(env, this.params);
    vec.replaceCopies(next, new Rng(this.seed).fork('curriculum').fork(step).uint32());
    // Evaluation copies are made afresh for the next evaluation (a module's old ones idle in its worker).
    this.evalEnv = null;
    this.showEnv = null;
  }

  async release(): Promise<void> {
    this.closeEnvs();
  }
}
