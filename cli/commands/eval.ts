// rlx eval RUN_DIR [--episodes N] [--checkpoint FILE] [--seed N] [--stochastic] [--record]: runs
// a saved policy (policy-final.onnx by default, else the latest checkpoint) on fresh episodes of
// the run's env and prints the mean and standard deviation of the return; --record also keeps
// one episode of it in the run's rollouts/ for the inspector (frames too, for an env that
// renders). For a text task: the
// greedy completions of its held-out prompts (the first N with --episodes), and their
// exact-match accuracy and mean reward. For a run of a pretrained model: its base folder with the
// weights of its newest checkpoint (every weight, or LoRA adapters), on the same held-out prompts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Plan } from '../../dsl/compile/plan.js';
import type { BoxSpace, DiscreteSpace } from '../../runtime/envs/types.js';
import { isTextEnv } from '../../runtime/text/env.js';
import type { TextEvalOutcome } from '../../runtime/text/text-env.js';
import type { ChatSettings } from '../../runtime/policies/pretrained.js';
import type { LoadedEnvModule } from '../../runtime/envs/user-module.js';
import type { VecEnv } from '../../runtime/envs/vector.js';
import type { Actor } from '../../runtime/policies/index.js';
import type { RecordedEpisode } from '../../runtime/run/rollouts.js';
import { displayPath, parseCommandArgs, type Command } from '../command.js';
import { UserError } from '../files.js';

const usage =
  'rlx eval RUN_DIR [--episodes N] [--checkpoint FILE] [--seed N] [--stochastic] [--record] [--json]\n' +
  "  (--seed: the run's seed by default; --record: one episode into RUN_DIR/rollouts/episode-<step>-rlx-eval.jsonl)";

/** policy-final.onnx, else the policy of the highest step. */
export function defaultPolicy(runDir: string): string {
  const dir = path.join(runDir, 'checkpoints');
  const names = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  if (names.includes('policy-final.onnx')) return path.join(dir, 'policy-final.onnx');
  const steps = names.map((n) => /^policy-(\d+)\.onnx$/.exec(n)).filter((m) => m !== null).map((m) => Number(m![1]));
  if (steps.length === 0) throw new UserError(`${runDir} has no saved policy (checkpoints/policy-*.onnx)`);
  return path.join(dir, `policy-${Math.max(...steps)}.onnx`);
}

/**
 * The policy's bytes, read once and checked where the run recorded them: a policy in the run's
 * checkpoints/ is a regular file inside it whose size and sha256 match its state file
 * (verifiedPolicy); a file elsewhere, named with --checkpoint, a regular file of bounded size.
 * What is checked is what is run: the bytes go to onnxruntime as they are.
 */
export async function readPolicy(runDir: string, file: string): Promise<Uint8Array> {
  const [{ verifiedPolicy }, { readInputFile }, { RUN_FILE_LIMITS }] = await Promise.all([
    import('../../runtime/run/checkpoint.js'),
    import('../../shared/input-files.js'),
    import('../../runtime/run/run-files.js'),
  ]);
  const checkpoints = path.join(runDir, 'checkpoints');
  const sameFolder = (a: string, b: string) => {
    try {
      return fs.realpathSync(a) === fs.realpathSync(b);
    } catch {
      return false;
    }
  };
  if (sameFolder(path.dirname(file), checkpoints)) return verifiedPolicy(checkpoints, file).bytes;
  return readInputFile(file, RUN_FILE_LIMITS.policy);
}

export const evalCommand: Command = {
  name: 'eval',
  summary: 'run the saved policy of a run directory and print its mean return',
  usage,
  // A file of the run refused (not a regular file, too large, a link out of the run, a policy
  // that is not the one saved) is an InputError: the command line says so and exits 2.
  run: evalRun,
};

async function evalRun(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'eval',
    argv,
    { episodes: { type: 'string', short: 'n' }, checkpoint: { type: 'string' }, seed: { type: 'string' }, stochastic: { type: 'boolean' }, record: { type: 'boolean' }, json: { type: 'boolean' } },
    usage,
  );
  if (positionals.length !== 1) throw new UserError(`name one run directory\nusage: ${usage}`);
  const runDir = positionals[0];
  const episodes = Number(values.episodes ?? 10);
  const seed = Number(values.seed ?? 0);
  const seedGiven = values.seed !== undefined;
  if (!Number.isSafeInteger(episodes) || episodes < 1) throw new UserError(`--episodes needs a whole number >= 1, got '${values.episodes}'`);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new UserError(`--seed needs a whole number >= 0, got '${values.seed}'`);
  if (!fs.existsSync(path.join(runDir, 'plan.json'))) throw new UserError(`${runDir} is not a run directory (no plan.json in it)`);
  // Loaded here: they bring onnxruntime, which the other commands do not need.
  const [{ loadRunModule, openRunEnvs, runEnvParams }, { evalMetrics, evaluate }, { OnnxPolicy }, { Rng }, { RunDirectory }, { checkPlan }] = await Promise.all([
    import('../../runtime/envs/run-envs.js'),
    import('../../runtime/evaluate.js'),
    import('../../runtime/policies/onnx-policy.js'),
    import('../../shared/random.js'),
    import('../../runtime/run/run-dir.js'),
    import('../../runtime/support.js'),
  ]);
  const plan = RunDirectory.readPlan(runDir);
  checkPlan(plan);
  // Text runs evaluate on their env's fixed held-out prompts or dialogues; --episodes takes the first N.
  const limit = values.episodes !== undefined ? episodes : undefined;
  const refuseRecord = () => {
    if (values.record) throw new UserError('--record keeps an episode of a numeric env; a text run\'s evaluation records no episodes (its final policy\'s answers are in rollouts/ already)');
  };
  if (plan.policy.kind === 'pretrained') refuseRecord();
  if (plan.policy.kind === 'pretrained') return evalPretrained(runDir, plan, values.checkpoint, limit, Boolean(values.json));
  const file = values.checkpoint ?? defaultPolicy(runDir);
  if (!fs.existsSync(file)) throw new UserError(`no policy file at ${file}`);
  const policyBytes = await readPolicy(runDir, file);
  if (isTextEnv(plan.env.kind)) refuseRecord();
  if (isTextEnv(plan.env.kind)) return evalText(runDir, plan, file, policyBytes, limit, Boolean(values.json));
  // A user module is loaded once: it may be a text env (spec.actions: 'text'), whose run evaluates as one.
  const module = plan.env.kind === 'module' ? await loadRunModule(runDir, plan) : undefined;
  if (module?.text) {
    try {
      refuseRecord();
      return await evalText(runDir, plan, file, policyBytes, limit, Boolean(values.json), module);
    } finally {
      module.close();
    }
  }
  const envs = await openRunEnvs(runDir, plan, Math.min(episodes, 32), module, file);
  const deterministic = !values.stochastic;
  // The run's own seed by default: envs that draw their problem from the seed (Bandit) stay the
  // same problem; episodes come from streams no training or in-run evaluation used.
  const runSeed = seedGiven ? seed : (RunDirectory.readStatus(runDir)?.seed ?? plan.seeds[0]);
  let result: Awaited<ReturnType<typeof evaluate>>;
  let recorded: RecordedEpisode | undefined;
  try {
    const { vec } = envs;
    const policy = await OnnxPolicy.load(file, { obsDim: vec.obsDim, actionSpace: vec.actionSpace as DiscreteSpace | BoxSpace }, policyBytes);
    try {
      // As the learner acted: under the env's action masks unless a stage turned them off (action_mask: off).
      const masked = vec.actionMasks !== null && !plan.stages.some((stage) => stage.algorithm.params.action_mask === 'off');
      result = await evaluate(policy, vec, episodes, deterministic, new Rng(runSeed).fork('rlx eval'), runSeed, 1 << 30, masked);
      if (values.record) recorded = await recordForInspector(runDir, plan, file, policy, vec, deterministic, runSeed, masked);
    } finally {
      await policy.release();
    }
  } finally {
    envs.close();
  }
  const metrics = evalMetrics(result);
  if (values.json) {
    const record = recorded ? { recorded: { file: recorded.file, return: recorded.return, length: recorded.length } } : {};
    process.stdout.write(JSON.stringify({ policy: file, episodes, deterministic, ...metrics, returns: result.returns, lengths: result.lengths, ...record }) + '\n');
  } else {
    const success = metrics['eval/success'] !== undefined ? `, success ${(100 * metrics['eval/success']).toFixed(0)}%` : '';
    // With a curriculum, say which task the policy was judged on: the value it had reached when saved.
    const param = plan.curriculum?.param;
    const task = param !== undefined ? `, ${param} ${String(runEnvParams(runDir, plan, file)[param.slice('env.'.length)])}` : '';
    process.stdout.write(
      `mean return ${metrics['eval/mean_return'].toFixed(2)} +- ${metrics['eval/std_return'].toFixed(2)} over ${episodes} episodes ` +
        `(mean length ${metrics['eval/mean_length'].toFixed(1)}${success}${task}; ${displayPath(file)}, ${deterministic ? 'deterministic' : 'sampled actions'})\n`,
    );
    if (recorded) process.stdout.write(`recorded an episode (return ${Number(recorded.return.toFixed(2))}, ${recorded.length} steps) in ${displayPath(recorded.file)}\n`);
  }
  return 0;
}

/**
 * --record: one episode of the policy, on copy 0 of the evaluation's copies (reset afresh), in the
 * run's rollouts/ as `episode-<step>-rlx-eval.jsonl` (`<step>` the policy's: its checkpoint's, else
 * the run's last), with the run's reward terms and frames where the env draws them. The run's
 * events.jsonl is the trainer's and is left alone. A later --record of the same policy replaces it.
 */
async function recordForInspector(runDir: string, plan: Plan, file: string, policy: Actor, vec: VecEnv, deterministic: boolean, seed: number, masked: boolean): Promise<RecordedEpisode> {
  const [{ recordEpisode }, { compileReward }, { isGoalConditioned }, { Rng }, { RunDirectory }, { runEnvParams }] = await Promise.all([
    import('../../runtime/evaluate.js'),
    import('../../runtime/rewards/index.js'),
    import('../../runtime/envs/types.js'),
    import('../../shared/random.js'),
    import('../../runtime/run/run-dir.js'),
    import('../../runtime/envs/run-envs.js'),
  ]);
  const first = vec.envs[0]!;
  const goal = isGoalConditioned(first) ? { goalFields: first.goalFields, achievedFields: first.achievedFields } : {};
  const reward = plan.reward ? compileReward(plan.reward, { kind: vec.kind, obsFields: vec.obsFields, actionSpace: vec.actionSpace, ...goal }) : null;
  const checkpointStep = /^policy-(\d+)\.onnx$/.exec(path.basename(file))?.[1];
  const step = checkpointStep !== undefined ? Number(checkpointStep) : (RunDirectory.readStatus(runDir)?.step ?? 0);
  const dir = path.join(runDir, 'rollouts');
  // A run folder from elsewhere may link rollouts/ (or a file in it) out of the run: refused, named.
  (await import('../../runtime/run/run-folder-guard.js')).checkRunFolderForWriting(runDir, 'record an episode into');
  let recorded: RecordedEpisode | undefined;
  try {
    fs.mkdirSync(dir, { recursive: true });
    await recordEpisode(policy, vec, {
      dir, step, recorded: 'rlx-eval', deterministic, reward, termNames: reward?.termNames ?? [],
      envParams: runEnvParams(runDir, plan, file),
      seed: new Rng(seed).fork('rlx eval --record').uint32(),
      rng: new Rng(seed).fork('rlx eval --record actions'),
      onRecorded: (episode) => (recorded = episode),
      masked,
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EROFS' || code === 'ENOSPC' || code === 'EPERM') {
      throw new UserError(`cannot write the recorded episode into ${displayPath(dir)}: ${(err as Error).message}; evaluate without --record, or copy the run somewhere writable`);
    }
    throw err;
  }
  if (!recorded) throw new UserError(`--record: the policy's episode did not end within 100,000 steps; nothing was recorded`);
  return recorded;
}

/** rlx eval on a text run: the exported token model, stepped by onnxruntime, on the held-out prompts or dialogues. */
async function evalText(runDir: string, plan: Plan, file: string, policyBytes: Uint8Array, limit: number | undefined, json: boolean, envModule?: LoadedEnvModule): Promise<number> {
  const [{ textEnvOf }, { bundledDataset }, { OnnxTokenModel }] = await Promise.all([
    import('../../runtime/trainer/text-workload.js'),
    import('../../runtime/run/run-dir.js'),
    import('../../runtime/policies/transformer/onnx-token-model.js'),
  ]);
  // A dataset task reads the run's own copy of its file.
  const env = textEnvOf(plan, { baseDir: runDir, datasetFile: bundledDataset(runDir) }, envModule);
  // What the env runs (a Python text env's worker processes) ends with the evaluation, or the command would not exit.
  try {
    const model = await OnnxTokenModel.load(file, policyBytes);
    if (model.tokenizer.vocabulary.join('\u0000') !== env.tokenizer.vocabulary.join('\u0000')) {
      throw new UserError(`${displayPath(file)} was trained on another vocabulary than the run's env (${env.description.task}) has`);
    }
    const result = await env.evaluate(model, limit);
    await model.release();
    printTextEval(result, env.description.task, file, displayPath(file), json, limit);
    return 0;
  } finally {
    env.close?.();
  }
}

/**
 * rlx eval on a run of a pretrained model: the base folder (checked to be the one the run
 * trained on) with the weights of the run's newest intact checkpoint (or --checkpoint), on the
 * held-out prompts, greedy, as the run's own evaluations were (with the sampling controls of the
 * checkpoint's stage: a stop string, a repetition penalty): the figures equal the run's
 * evaluation at that step.
 */
async function evalPretrained(runDir: string, plan: Plan, checkpoint: string | undefined, limit: number | undefined, json: boolean): Promise<number> {
  const [{ textEnvOf }, { bundledDataset }, { readRunPolicy, openRunBase, loadRunModel }, { PretrainedPolicy }, { stageSamplingControls }] = await Promise.all([
    import('../../runtime/trainer/text-workload.js'),
    import('../../runtime/run/run-dir.js'),
    import('../../runtime/run-policy.js'),
    import('../../runtime/policies/pretrained.js'),
    import('../../runtime/algorithms/sampling-settings.js'),
  ]);
  const run = readRunPolicy(runDir, checkpoint);
  const env = textEnvOf(plan, { baseDir: runDir, datasetFile: bundledDataset(runDir) });
  const folder = openRunBase(run);
  const { lora, chat } = run.manifest;
  const policy = new PretrainedPolicy(loadRunModel(run, folder), { folder: folder.dir, lora: lora ?? undefined, chat: (chat ?? undefined) as ChatSettings | undefined });
  let result: Awaited<ReturnType<typeof env.evaluate>>;
  try {
    result = await env.evaluate(policy, limit, stageSamplingControls(plan.stages[run.stage]));
  } finally {
    await policy.release();
    env.close?.();
  }
  printTextEval(result, env.description.task, run.stateFile, `${displayPath(run.stateFile)}, step ${run.step}${lora ? ', LoRA over its base' : ''}`, json, limit, run.step);
  return 0;
}

/** A text evaluation's figures: exact-match accuracy and mean reward of single-turn tasks, the env's message for dialogues. */
function printTextEval(result: TextEvalOutcome, task: string, file: string, label: string, json: boolean, limit: number | undefined, step?: number): void {
  const values = result.values;
  const count = result.returns.length;
  const held = values['eval/accuracy'] !== undefined ? 'prompts' : 'dialogues';
  // Asked for more than the held-out set: repeating a prompt would give the same greedy answer, and training prompts are not held out.
  if (limit !== undefined && limit > count) {
    process.stderr.write(`rlx eval: --episodes ${limit}, but ${task} has ${count} held-out ${held}; a text policy is evaluated greedily, once on each (a repeated one gets the same answer)\n`);
  }
  if (json) {
    const at = step !== undefined ? { step } : {};
    process.stdout.write(JSON.stringify({ policy: file, ...at, [held]: count, deterministic: true, ...values }) + '\n');
  } else if (values['eval/accuracy'] !== undefined) {
    process.stdout.write(
      `accuracy ${(100 * values['eval/accuracy']).toFixed(1)}% (exact match) on ${count} held-out prompts of ${task}, ` +
        `mean reward ${values['eval/mean_reward']!.toFixed(3)} (${label}, greedy)\n`,
    );
  } else {
    process.stdout.write(`${result.message} of ${task} (${label}, greedy)\n`);
  }
}
