// rlx record RUN_DIR --episodes N --to FILE [--epsilon E | --noise S] [--checkpoint FILE]
// [--seed N] [--stochastic]: runs a run's saved policy (as rlx eval picks it) for N whole
// episodes of the run's env and writes them as a dataset of transitions, an .npz with D4RL's
// keys (docs/offline-rl.md), that BC, TD3BC and IQL read as their `data`. --epsilon and --noise
// make the policy worse on purpose, as D4RL's random and medium sets were made. The file is
// written atomically: an interrupted record leaves the old file, or none.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BoxSpace, DiscreteSpace } from '../../runtime/envs/types.js';
import { displayPath, parseCommandArgs, type Command } from '../command.js';
import { UserError } from '../files.js';
import { defaultPolicy, readPolicy } from './eval.js';

const usage =
  'rlx record RUN_DIR --episodes N --to FILE.npz [--epsilon E | --noise S] [--checkpoint FILE] [--seed N] [--stochastic] [--json]\n'
  + '  (--epsilon: probability of a random action at each step, 1 for a random policy; --noise: Gaussian noise on continuous actions, in units of half the action range)';

/** Episodes are recorded on at most this many env copies at once. */
const RECORD_COPIES = 16;

export const recordCommand: Command = {
  name: 'record',
  summary: 'record episodes of a run\'s saved policy as a dataset of transitions (.npz) for offline learners',
  usage,
  run: recordRun,
};

function fraction(name: string, text: string | undefined, max: number): number {
  if (text === undefined) return 0;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || value > max) throw new UserError(`--${name} needs a number in [0, ${max}], got '${text}'`);
  return value;
}

async function recordRun(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'record',
    argv,
    {
      episodes: { type: 'string', short: 'n' }, to: { type: 'string' }, epsilon: { type: 'string' }, noise: { type: 'string' },
      checkpoint: { type: 'string' }, seed: { type: 'string' }, stochastic: { type: 'boolean' }, json: { type: 'boolean' },
    },
    usage,
  );
  if (positionals.length !== 1) throw new UserError(`name one run directory\nusage: ${usage}`);
  const runDir = positionals[0]!;
  if (values.episodes === undefined || values.to === undefined) throw new UserError(`--episodes and --to are needed\nusage: ${usage}`);
  const episodes = Number(values.episodes);
  if (!Number.isSafeInteger(episodes) || episodes < 1) throw new UserError(`--episodes needs a whole number >= 1, got '${values.episodes}'`);
  const seed = Number(values.seed ?? 0);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new UserError(`--seed needs a whole number >= 0, got '${values.seed}'`);
  const to = values.to;
  if (path.extname(to) !== '.npz') throw new UserError(`--to names an .npz file (a zip of NumPy arrays with D4RL's keys), got '${to}'`);
  if (!fs.existsSync(path.dirname(path.resolve(to)))) throw new UserError(`--to ${to}: the folder ${displayPath(path.dirname(path.resolve(to)))} does not exist`);
  const epsilon = fraction('epsilon', values.epsilon, 1);
  const noise = fraction('noise', values.noise, 10);
  if (values.epsilon !== undefined && values.noise !== undefined) throw new UserError('give --epsilon or --noise, not both');
  if (!fs.existsSync(path.join(runDir, 'plan.json'))) throw new UserError(`${runDir} is not a run directory (no plan.json in it)`);

  const [{ loadRunModule, openRunEnvs }, { recordDataset }, { OnnxPolicy }, { Rng }, { RunDirectory }, { checkPlan }, { isTextEnv }, { transitionsNpz }, { writeFileAtomic }, { MAX_DATASET_BYTES }] = await Promise.all([
    import('../../runtime/envs/run-envs.js'),
    import('../../runtime/record-dataset.js'),
    import('../../runtime/policies/onnx-policy.js'),
    import('../../shared/random.js'),
    import('../../runtime/run/run-dir.js'),
    import('../../runtime/support.js'),
    import('../../runtime/text/env.js'),
    import('../../shared/transitions/transitions.js'),
    import('../../runtime/atomic-files.js'),
    import('../../dsl/schema/dataset.js'),
  ]);
  const plan = RunDirectory.readPlan(runDir);
  checkPlan(plan);
  if (plan.policy.kind === 'pretrained' || isTextEnv(plan.env.kind)) throw new UserError(`rlx record keeps transitions of an env of numbers; ${runDir} trained on the text env ${plan.env.name}`);
  const file = values.checkpoint ?? defaultPolicy(runDir);
  if (!fs.existsSync(file)) throw new UserError(`no policy file at ${file}`);
  const policyBytes = await readPolicy(runDir, file);
  const module = plan.env.kind === 'module' ? await loadRunModule(runDir, plan) : undefined;
  if (module?.text) {
    module.close();
    throw new UserError(`rlx record keeps transitions of an env of numbers; ${runDir} trained on a text env`);
  }
  const envs = await openRunEnvs(runDir, plan, Math.min(episodes, RECORD_COPIES), module, file);
  const runSeed = values.seed !== undefined ? seed : (RunDirectory.readStatus(runDir)?.seed ?? plan.seeds[0]!);
  let recorded: Awaited<ReturnType<typeof recordDataset>>;
  try {
    const { vec } = envs;
    const policy = await OnnxPolicy.load(file, { obsDim: vec.obsDim, actionSpace: vec.actionSpace as DiscreteSpace | BoxSpace }, policyBytes);
    try {
      // Streams of their own: neither training's, evaluation's nor rlx eval's episodes.
      recorded = await recordDataset(policy, vec, { episodes, epsilon, noise, deterministic: !values.stochastic, seed: runSeed, firstStream: 1 << 29, rng: new Rng(runSeed).fork('rlx record') });
    } finally {
      await policy.release();
    }
  } finally {
    envs.close();
  }
  const chunks = transitionsNpz(recorded.transitions);
  const bytes = chunks.reduce((s, c) => s + c.length, 0);
  if (bytes > MAX_DATASET_BYTES) throw new UserError(`${episodes} episodes make ${(bytes / 2 ** 20).toFixed(0)} MiB, more than the ${MAX_DATASET_BYTES / 2 ** 20} MiB a learner reads as data; record fewer episodes`);
  writeFileAtomic(path.resolve(to), chunks);
  const { returns } = recorded;
  const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
  const rows = recorded.transitions.rows;
  if (values.json) process.stdout.write(JSON.stringify({ file: to, policy: file, episodes, transitions: rows, mean_return: mean, returns, epsilon, noise }) + '\n');
  else process.stdout.write(`recorded ${episodes} episodes (${rows} transitions, mean return ${mean.toFixed(2)}) of ${displayPath(file)}${epsilon > 0 ? `, epsilon ${epsilon}` : ''}${noise > 0 ? `, noise ${noise}` : ''} into ${displayPath(path.resolve(to))}\n`);
  return 0;
}
