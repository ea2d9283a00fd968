// The implementations our users would otherwise pick, run by the bench in the same process and
// sitting as ours, interleaved (peer, ours, peer, ours), so that a ratio never compares runs
// from different days or machines: CleanRL's ppo.py and Stable-Baselines3's PPO with
// rl-baselines3-zoo's settings (and its DQN), on Gymnasium 0.29.0 (bench/peers/README.md says where the
// copies come from). They need python3 with Debian's torch; without it the bench prints ours
// alone and says why.
import { spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const PEERS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bench/peers');
/** The python3 that runs the peers: PEER_PY if set, else the first of these that imports torch (pyenv's may shadow Debian's). */
const PYTHON_CANDIDATES = process.env.PEER_PY ? [process.env.PEER_PY] : ['python3', '/usr/bin/python3'];
let PYTHON = PYTHON_CANDIDATES[0]!;

/** A peer run's figures: throughput, and where the mean of the last 20 training returns first reached 475. */
export interface PeerResult {
  readonly sps: number;
  readonly stepTo475: number | null;
  /** Seconds from the start of training (imports excluded) to that step. */
  readonly secondsTo475: number | null;
}

/** Null when the peers can run here, else why not (printed by the bench). */
export function peersMissing(): string | null {
  const problems: string[] = [];
  for (const candidate of PYTHON_CANDIDATES) {
    const probe = spawnSync(candidate, ['-c', 'import torch, numpy, cloudpickle'], { env: peerEnv(), encoding: 'utf8' });
    if (!probe.error && probe.status === 0) {
      PYTHON = candidate;
      return null;
    }
    problems.push(probe.error ? `${candidate} not found` : `${candidate}: ${probe.stderr.trim().split('\n').pop()}`);
  }
  return `no python3 here imports torch, numpy and cloudpickle (${problems.join('; ')}); install Debian's python3-torch python3-numpy python3-cloudpickle python3-pandas python3-matplotlib python3-typing-extensions`;
}

/** Null when a python3 here imports torch (the transformer peers need nothing more), else why not; the peers then run with it. */
export function torchPeerMissing(): string | null {
  const problems: string[] = [];
  for (const candidate of PYTHON_CANDIDATES) {
    const probe = spawnSync(candidate, ['-c', 'import torch'], { env: peerEnv(), encoding: 'utf8' });
    if (!probe.error && probe.status === 0) {
      PYTHON = candidate;
      return null;
    }
    problems.push(probe.error ? `${candidate} not found` : `${candidate}: ${probe.stderr.trim().split('\n').pop()}`);
  }
  return `no python3 here imports torch (${problems.join('; ')})`;
}

/** PYTHONPATH as bench/peers/env.sh sets it; one torch thread unless told (see bench/peers/README.md). */
function peerEnv(torchThreads = 1): NodeJS.ProcessEnv {
  const paths = [path.join(PEERS, 'shims'), PEERS, path.join(PEERS, 'vendor'), path.join(PEERS, 'vendor', 'cleanrl')];
  return { ...process.env, PYTHONPATH: paths.join(path.delimiter), PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1', PEER_TORCH_THREADS: String(torchThreads) };
}

/** Runs a peer script; calls `onLine` with each stdout line and the seconds since spawn when it arrived. */
function runPeer(args: readonly string[], onLine: (line: string, seconds: number) => void, torchThreads = 1): Promise<void> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(PYTHON, args, { cwd: PEERS, env: peerEnv(torchThreads), stdio: ['ignore', 'pipe', 'pipe'] });
    let pending = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop()!;
      for (const line of lines) onLine(line, (performance.now() - start) / 1000);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${PYTHON} ${args.join(' ')} exited with ${code}:\n${stderr}`))));
  });
}

/** The first step at which the mean of the last `window` returns is >= `threshold`. */
class Reach {
  private readonly returns: number[] = [];
  hit: { step: number; seconds: number } | null = null;

  constructor(
    private readonly threshold = 475,
    private readonly window = 20,
  ) {}

  add(step: number, episodeReturn: number, seconds: number): void {
    this.returns.push(episodeReturn);
    if (this.hit || this.returns.length < this.window) return;
    const recent = this.returns.slice(-this.window);
    if (recent.reduce((a, b) => a + b, 0) / this.window >= this.threshold) this.hit = { step, seconds };
  }
}

/** CleanRL's ppo.py on CartPole-v1, its defaults (4 envs x 128 steps, 500k steps). */
export async function cleanrlPpo(seed: number, totalTimesteps = 500_000): Promise<PeerResult> {
  const reach = new Reach();
  let trainStart: number | null = null;
  let sps = NaN;
  await runPeer(['run_cleanrl.py', 'ppo.py', '--env-id', 'CartPole-v1', '--total-timesteps', String(totalTimesteps), '--seed', String(seed)], (line, seconds) => {
    // ppo.py prints `global_step=N, episodic_return=[R]` per finished episode and `SPS: N` per update.
    const episode = /^global_step=(\d+), episodic_return=\[?([-\d.e]+)/.exec(line);
    if (episode) {
      trainStart ??= seconds;
      reach.add(Number(episode[1]), Number(episode[2]), seconds);
    }
    const rate = /^SPS: (\d+)/.exec(line);
    if (rate) sps = Number(rate[1]);
  });
  // Training starts before the first episode ends; the first SPS line's rate dates it better,
  // but an episode or two (tens of steps) is all that separates them at CartPole's start.
  const secondsTo475 = reach.hit && trainStart !== null ? reach.hit.seconds - trainStart : null;
  return { sps, stepTo475: reach.hit?.step ?? null, secondsTo475 };
}

/** SB3 2.3.2's PPO with rl-baselines3-zoo's CartPole-v1 settings, stopping at 475 (bench/peers/run_sb3_zoo.py). */
export async function sb3ZooPpo(seed: number): Promise<PeerResult> {
  let result: { sps_train: number; hit: { step: number } | null; hit_wall_from_train?: number } | null = null;
  await runPeer(['run_sb3_zoo.py', '--seed', String(seed)], (line) => {
    if (line.startsWith('{')) result = JSON.parse(line) as typeof result;
  });
  if (!result) throw new Error('run_sb3_zoo.py printed no result');
  const r = result as { sps_train: number; hit: { step: number } | null; hit_wall_from_train?: number };
  return { sps: r.sps_train, stepTo475: r.hit?.step ?? null, secondsTo475: r.hit_wall_from_train ?? null };
}

/** SB3 DQN's run with rl-zoo's CartPole-v1 settings, trained for the whole 50k and evaluated as rl-zoo does. */
export interface Sb3DqnZooRun {
  readonly seed: number;
  /** Mean return of the final model over the evaluation's greedy episodes. */
  readonly evalMean: number;
  readonly evalReturns: readonly number[];
  /** [env step, mean greedy return] every `evalEvery` steps on the way. */
  readonly evals: readonly (readonly [number, number])[];
  readonly stepsDone: number;
  /** Seconds from the start of training to the end of the final evaluation, evaluations included. */
  readonly wallWithEvals: number;
  /** The training alone: evaluations left out. */
  readonly trainSeconds: number;
  /** The mean of the last 20 training (epsilon-greedy) episodes at the end. */
  readonly mean20: number | null;
}

/** SB3 2.3.2's DQN with rl-zoo's CartPole-v1 settings, the full 50k steps, `episodes` greedy episodes every `evalEvery` steps and after training (bench/peers/run_sb3_dqn.py). */
export async function sb3ZooDqnEvaluated(seed: number, episodes: number, evalEvery: number): Promise<Sb3DqnZooRun> {
  type Printed = { eval_mean: number; eval_returns: number[]; evals: [number, number][]; steps_done: number; wall_with_evals: number; train_seconds: number; final_mean20: number | null };
  let r: Printed | null = null;
  await runPeer(['run_sb3_dqn.py', '--seed', String(seed), '--no-stop', '--eval-episodes', String(episodes), '--eval-every', String(evalEvery)], (line) => {
    if (line.startsWith('{')) r = JSON.parse(line) as Printed;
  });
  if (!r) throw new Error('run_sb3_dqn.py printed no result');
  const p = r as Printed;
  return { seed, evalMean: p.eval_mean, evalReturns: p.eval_returns, evals: p.evals, stepsDone: p.steps_done, wallWithEvals: p.wall_with_evals, trainSeconds: p.train_seconds, mean20: p.final_mean20 };
}

/**
 * Median milliseconds of the PyTorch transformer (bench/peers/text_gpt.py): sampling with a key/value cache, and a training step
 * with Adam. `device` 'auto' runs it on CUDA where torch has it (`device` in the result says which ran); `cases` 'train' times
 * the training step alone (sampleMs is then NaN).
 */
export async function torchTextModel(
  model: { layers: number; width: number; heads: number; context: number; vocab: number },
  rows: number,
  promptWidth: number,
  slots: number,
  runs: number,
  torchThreads = 1,
  options: { device?: 'cpu' | 'auto'; cases?: 'both' | 'train' } = {},
): Promise<{ sampleMs: number; trainMs: number; device: string }> {
  let result: { sample_ms: number | null; train_ms: number; device: string } | null = null;
  const args = [model.layers, model.width, model.heads, model.context, model.vocab, rows, promptWidth, slots, runs, options.device ?? 'cpu', options.cases ?? 'both'].map(String);
  await runPeer(['text_gpt.py', ...args], (line) => {
    if (line.startsWith('{')) result = JSON.parse(line) as typeof result;
  }, torchThreads);
  if (!result) throw new Error('text_gpt.py printed no figures');
  const { sample_ms, train_ms, device } = result;
  return { sampleMs: sample_ms ?? NaN, trainMs: train_ms, device };
}

/** A CleanRL off-policy run: its last printed SPS (steps over the whole run so far, as CleanRL counts) and the episode returns by step. */
export interface CleanrlOffPolicyResult {
  readonly sps: number;
  readonly episodes: readonly { readonly step: number; readonly return: number }[];
}

/** CleanRL's dqn.py or sac_continuous_action.py (or another script printing the same lines), unchanged, with `args` (e.g. --env-id, --total-timesteps). */
export async function cleanrlOffPolicy(script: string, args: readonly string[]): Promise<CleanrlOffPolicyResult> {
  let sps = NaN;
  const episodes: { step: number; return: number }[] = [];
  await runPeer(['run_cleanrl.py', script, ...args], (line) => {
    const episode = /^global_step=(\d+), episodic_return=\[?([-\d.e]+)/.exec(line);
    if (episode) episodes.push({ step: Number(episode[1]), return: Number(episode[2]) });
    const rate = /^SPS: (\d+)/.exec(line);
    if (rate) sps = Number(rate[1]);
  });
  return { sps, episodes };
}

/** Median milliseconds of one DQN or SAC update in PyTorch (bench/peers/offpolicy_torch.py): the same networks and batch as CleanRL's. */
export async function torchOffPolicyUpdate(kind: 'dqn' | 'sac', obsDim: number, actions: number, batch: number, runs: number): Promise<number> {
  let ms = NaN;
  await runPeer(['offpolicy_torch.py', kind, String(obsDim), String(actions), String(batch), String(runs)], (line) => {
    if (line.startsWith('{')) ms = (JSON.parse(line) as { update_ms: number }).update_ms;
  });
  if (!Number.isFinite(ms)) throw new Error('offpolicy_torch.py printed no figure');
  return ms;
}

/** Replays rlx's DQN updates written to `file` in PyTorch (bench/peers/dqn_step_parity.py); the largest differences. */
export async function torchDqnStepParity(file: string): Promise<{ loss: number; grad_norm: number; weights: number }> {
  let worst: { loss: number; grad_norm: number; weights: number } | null = null;
  await runPeer(['dqn_step_parity.py', file], (line) => {
    if (line.startsWith('{')) worst = JSON.parse(line) as typeof worst;
  });
  if (!worst) throw new Error('dqn_step_parity.py printed no result');
  return worst;
}

/** Replays whole rounds of rlx's DQN learner written to `file` in PyTorch, target network included (bench/peers/dqn_loop_parity.py); the largest differences. */
/** [max Q, mean Q] on the probe after each round of a whole rlx DQN run's gradient steps taken again in PyTorch (bench/peers/dqn_replay.py; DIR as bench/dqn-replay.ts writes it). */
export async function torchDqnReplay(dir: string): Promise<[number, number][]> {
  const rounds: [number, number][] = [];
  await runPeer(['dqn_replay.py', dir], (line) => {
    if (line.startsWith('[') && !line.startsWith('[peer_setup]')) rounds.push(JSON.parse(line) as [number, number]);
  });
  if (rounds.length === 0) throw new Error('dqn_replay.py printed no rounds');
  return rounds;
}

export async function torchDqnLoopParity(file: string): Promise<{ loss: number; td_target: number; weights: number; floor_weights: number; steps: number; copies: number }> {
  type Worst = { loss: number; td_target: number; weights: number; floor_weights: number; steps: number; copies: number };
  let worst: Worst | null = null;
  await runPeer(['dqn_loop_parity.py', file], (line) => {
    if (line.startsWith('{')) worst = JSON.parse(line) as Worst;
  });
  if (!worst) throw new Error('dqn_loop_parity.py printed no result');
  return worst;
}
