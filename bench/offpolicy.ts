// Off-policy learners (DQN, SAC) end to end through train(), against issue 16's targets, with the
// peers measured in the same run (peers.ts; when python3 with Debian's torch is here):
//
// Speed (`npm run bench -- offpolicy`, a few minutes):
// - DQN on CartPole and SAC on Pendulum with CleanRL's settings (dqn.py; sac_continuous_action.py
//   on Pendulum-v1) for the same number of steps, CleanRL's script run unchanged beside ours,
//   interleaved: steps per second over the whole run as CleanRL counts them, our time split
//   into acting, sampling and gradient steps (the learners' time/* metrics), and the ratio
//   (DQN's short runs three pairs and the ratio of the medians, SAC one pair);
// - one update alone, ours (time/sampling_s and time/gradient_s over the updates) against the
//   least PyTorch does for it (bench/peers/offpolicy_torch.py: the same networks and batch);
// - the update's floor, its matrix products alone (offpolicy-floor.ts), beside what each update
//   would have to take for 5x CleanRL's rate: whether the target is reachable on this CPU;
// - a full 1M-transition Pendulum replay buffer saved and loaded through the checkpoint files.
//
// Learning (`npm run bench -- offpolicy-learning`, minutes): the issue's targets over seeds 1-3:
// examples/cartpole-dqn.rlx beside SB3 (`npm run bench -- dqn-zoo`), examples/pendulum-sac.rlx
// (rl-zoo 20k: mean of the last 20 returns >= -200), examples/gridworld-her.rlx with and without
// relabeling (eval success), examples/bit-flip.rlx with and without relabeling on each seed (eval
// success: HER's paper demonstration; `npm run bench -- her-bit-flip` runs it alone),
// examples/cartpole-sac.rlx (discrete SAC: the curve's end).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { planFile } from '../cli/commands/plan.js';
import type { Plan } from '../dsl/compile/plan.js';
import { readEvents } from '../runtime/run/events.js';
import { train, type TrainResult } from '../runtime/train.js';
import { benchDqnZoo } from './dqn-zoo.js';
import { cleanrlOffPolicy, peersMissing, torchOffPolicyUpdate } from './peers.js';
import { replayCheckpointFigures } from './replay.js';
import { bestMicros, median, report } from './stats.js';
import { dqnUpdateFloor, sacUpdateFloor } from './offpolicy-floor.js';

const EXAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples');
const SEEDS = [1, 2, 3];

const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
const fixed = (n: number | undefined, digits = 1) => (n === undefined || !Number.isFinite(n) ? 'n/a' : n.toFixed(digits));

/** CleanRL dqn.py's defaults on CartPole-v1, as rlx writes them. */
const CLEANRL_DQN = (budget: number) => `
env Pole = CartPole { max_steps: 500 }
policy QNet = mlp { hidden: [120, 84], activation: relu }
algorithm Dqn = DQN {
  learning_rate: 2.5e-4
  buffer: 10k
  batch_size: 128
  gamma: 0.99
  tau: 1.0
  target_update: 500
  train_every: 10
  learning_starts: 10k
  epsilon: linear(1.0, 0.05, over: 0.5)
}
experiment CleanrlDqn { env: Pole, policy: QNet, algorithm: Dqn, budget: ${budget}, seed: 1, device: cpu }
`;

/** CleanRL sac_continuous_action.py's defaults, on Pendulum-v1. */
const CLEANRL_SAC = (budget: number) => `
env Swing = Pendulum { max_steps: 200 }
policy Actor = mlp { hidden: [256, 256], activation: relu }
algorithm Sac = SAC {
  learning_rate: 3e-4
  critic_learning_rate: 1e-3
  buffer: 1000k
  batch_size: 256
  gamma: 0.99
  tau: 0.005
  learning_starts: 5k
  policy_frequency: 2
  alpha: auto
}
experiment CleanrlSac { env: Swing, policy: Actor, algorithm: Sac, budget: ${budget}, seed: 1, device: cpu }
`;

/** The plan of `text`, written to a file in `dir` (plans are compiled from files). */
function planOf(dir: string, name: string, text: string): Plan {
  const file = path.join(dir, `${name}.rlx`);
  fs.writeFileSync(file, text);
  return planFile(file).at(0);
}

interface OurRun {
  readonly result: TrainResult;
  readonly seconds: number;
  readonly sps: number;
}

async function ours(plan: Plan, out: string, seed = plan.seeds[0]!): Promise<OurRun> {
  const start = performance.now();
  // A user env module (examples/bit-flip.ts) is found next to its example, as rlx train finds it.
  const envModule = plan.env.module !== undefined ? path.join(EXAMPLES, plan.env.module) : undefined;
  const result = await train(plan, { out, seed, device: 'cpu', ...(envModule ? { envModule } : {}) });
  const seconds = (performance.now() - start) / 1000;
  // The trainer's own rate (charts/sps: steps over the training loop's time, as CleanRL's SPS
  // counts from its loop's start), not over train() with its set-up.
  return { result, seconds, sps: result.metrics['charts/sps'] ?? result.step / seconds };
}

/** The plan with its (first stage's) algorithm's relabeling turned off. */
function withoutRelabel(plan: Plan): Plan {
  const stage = plan.stages[0]!;
  return { ...plan, stages: [{ ...stage, algorithm: { ...stage.algorithm, params: { ...stage.algorithm.params, relabel: 'none' } } }] };
}

/** The first step at which a run's evaluation reached this success, or null. */
function firstEvalAtLeast(runDir: string, success: number): number | null {
  const evals = readEvents(path.join(runDir, 'events.jsonl')).filter((e) => e.type === 'eval');
  return evals.find((e) => e.values['eval/success'] >= success)?.step ?? null;
}

/** Our time split, from the learner's cumulative time/* metrics. */
function split(run: OurRun): string {
  const m = run.result.metrics;
  const parts = [['acting', m['time/acting_s']], ['sampling', m['time/sampling_s']], ['gradient steps', m['time/gradient_s']]] as const;
  if (parts.some(([, s]) => s === undefined)) return 'split not reported';
  const rest = run.seconds - parts.reduce((a, [, s]) => a + (s ?? 0), 0);
  return [...parts.map(([name, s]) => `${name} ${fixed(s, 2)} s`), `the rest ${fixed(rest, 2)} s`].join(', ');
}

/**
 * Our milliseconds per update: drawing its batch and its targets' inputs (DQN's target network
 * runs there) and its gradient steps, as PyTorch's one-update figure and the floor count it
 * (runtime/algorithms/phase-clock.ts counts the updates).
 */
function msPerUpdate(run: OurRun): number {
  const m = run.result.metrics;
  return (1000 * ((m['time/sampling_s'] ?? NaN) + (m['time/gradient_s'] ?? NaN))) / (m['time/gradient_steps'] ?? NaN);
}

/**
 * What 5x CleanRL's rate asks of each update, with our time outside the updates (acting,
 * sampling, the rest of the loop) as measured, against what the update's products alone take.
 */
function fiveTimesNeeds(run: OurRun, budget: number, peerSps: number, floorMs: number): string {
  const m = run.result.metrics;
  const updates = m['time/gradient_steps'] ?? NaN;
  const outsideUpdates = budget / run.sps - (m['time/sampling_s'] ?? NaN) - (m['time/gradient_s'] ?? NaN);
  const loopSeconds = budget / (5 * peerSps);
  const perUpdateMs = (1000 * (loopSeconds - outsideUpdates)) / updates;
  const verdict = perUpdateMs <= 0 ? 'not reachable even with free updates' : perUpdateMs < floorMs ? 'below the floor: unreachable with these products on one thread' : 'above the floor';
  return `the loop in ${fixed(loopSeconds, 2)} s; with our ${fixed(outsideUpdates, 2)} s outside the updates, ${fixed(perUpdateMs, 2)} ms per update (${verdict})`;
}

export async function benchOffPolicy(): Promise<void> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-bench-'));
  const missing = peersMissing();
  try {
    console.log(`\nOff-policy speed on ${os.cpus().length} CPU(s) (${os.cpus()[0]?.model ?? 'unknown'}); figures vary with other load on the machine`);
    if (missing) console.log(`  peers not run: ${missing}`);
    const cases = [
      {
        name: 'DQN CartPole (CleanRL dqn.py settings)', budget: 30_000, plan: planOf(out, 'dqn', CLEANRL_DQN(30_000)), script: 'dqn.py', env: 'CartPole-v1', torch: ['dqn', 4, 2, 128] as const,
        // Short runs whose rate swings from one run to the next (CleanRL's by a third): three pairs.
        pairs: 3, floor: () => dqnUpdateFloor(4, [120, 84], 2), rows: 128,
      },
      {
        name: 'SAC Pendulum (CleanRL sac_continuous_action.py settings)', budget: 8_000, plan: planOf(out, 'sac', CLEANRL_SAC(8_000)), script: 'sac_continuous_action.py', env: 'Pendulum-v1', torch: ['sac', 3, 1, 256] as const,
        pairs: 1, floor: () => sacUpdateFloor(3, [256, 256], 1), rows: 256,
      },
    ];
    for (const c of cases) {
      const rows: [string, string][] = [];
      const learningSteps = c.budget - (c.plan.stages[0]!.algorithm.params.learning_starts as number);
      rows.push(['steps', `${k(c.budget)} (${k(learningSteps)} of them learning)`]);
      const runs: OurRun[] = [];
      const peerRates: number[] = [];
      for (let pair = 1; pair <= c.pairs; pair++) {
        // Interleaved: the peer, then ours.
        const peer = missing ? null : await cleanrlOffPolicy(c.script, ['--env-id', c.env, '--total-timesteps', String(c.budget), '--seed', '1']);
        const run = await ours(c.plan, out);
        runs.push(run);
        const label = c.pairs > 1 ? ` (pair ${pair})` : '';
        rows.push([`rlx${label}`, `${Math.round(run.sps)} steps/s in the training loop (${run.seconds.toFixed(1)} s with set-up; ${split(run)})`]);
        if (peer) {
          peerRates.push(peer.sps);
          rows.push([`CleanRL${label}`, `${peer.sps} steps/s (its last SPS line); rlx / CleanRL = ${(run.sps / peer.sps).toFixed(2)}x`]);
        }
      }
      const typical = median(runs.map((r) => r.sps));
      const run = runs.find((r) => r.sps === typical)!;
      const peerTypical = median(peerRates);
      if (peerRates.length > 0) {
        const what = c.pairs > 1 ? `medians of ${c.pairs} pairs: ` : '';
        rows.push(['rlx / CleanRL', `${what}${Math.round(typical)} / ${Math.round(peerTypical)} = ${(typical / peerTypical).toFixed(2)}x (target >= 5x)`]);
      }
      const ourUpdate = msPerUpdate(run);
      if (!missing) {
        const [kind, a, b, batch] = c.torch;
        const torchMs = await torchOffPolicyUpdate(kind, a, b, batch, kind === 'dqn' ? 300 : 100);
        rows.push(['one update', `rlx ${fixed(ourUpdate, 2)} ms, PyTorch ${fixed(torchMs, 2)} ms (PyTorch / rlx = ${(torchMs / ourUpdate).toFixed(2)}x)`]);
      } else {
        rows.push(['one update', `rlx ${fixed(ourUpdate, 2)} ms`]);
      }
      const floor = await c.floor();
      const floorMs = (await bestMicros(() => floor.run(c.rows), c.rows > 128 ? 5 : 50, 10)) / 1000;
      await floor.release();
      rows.push(['floor', `${fixed(floorMs, 2)} ms per update: its matrix products alone, ${c.rows} rows, onnxruntime on one thread`]);
      if (peerRates.length > 0) rows.push(['5x CleanRL needs', fiveTimesNeeds(run, c.budget, peerTypical, floorMs)]);
      report(c.name, rows);
    }
    const replay = replayCheckpointFigures();
    report('replay buffer in checkpoints (1M Pendulum transitions)', [
      ['side file', `${(replay.sideFileBytes / 2 ** 20).toFixed(1)} MiB`],
      ['save / load', `${replay.saveSeconds.toFixed(2)} s / ${replay.loadSeconds.toFixed(2)} s`],
    ]);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/** The issue's learning targets, seeds 1-3 (minutes). */
export async function benchOffPolicyLearning(): Promise<void> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-bench-'));
  try {
    console.log(`\nOff-policy learning on ${os.cpus().length} CPU(s); seeds ${SEEDS.join(', ')}`);
    const example = (name: string) => planFile(path.join(EXAMPLES, name)).at(0);

    // examples/cartpole-dqn.rlx beside SB3, scored by rl-zoo's final evaluation: bench/dqn-zoo.ts.
    await benchDqnZoo();

    const sac = example('pendulum-sac.rlx');
    const sacRows: [string, string][] = [];
    for (const seed of SEEDS) {
      const run = await ours(sac, out, seed);
      const last20 = run.result.metrics['train/mean_return'];
      sacRows.push([`seed ${seed}`, `mean of the last 20 returns ${fixed(last20)} at ${k(run.result.step)} (${run.seconds.toFixed(1)} s; ${last20 >= -200 ? 'meets' : 'MISSES'} -200)`]);
    }
    report('SAC Pendulum, examples/pendulum-sac.rlx (rl-zoo); target: >= -200 on 3 seeds', sacRows);

    const her = example('gridworld-her.rlx');
    const herRows: [string, string][] = [];
    for (const [label, plan] of [['future(k: 4)', her], ['no relabeling', withoutRelabel(her)]] as const) {
      const run = await ours(plan, out);
      herRows.push([label, `eval success ${fixed(run.result.metrics['eval/success'], 2)} at ${k(run.result.step)} (${run.result.reason}; ${run.seconds.toFixed(1)} s)`]);
    }
    report(`DQN + HER, examples/gridworld-her.rlx, seed ${her.seeds[0]}; target: eval success >= 0.9 within the budget`, herRows);

    await bitFlipComparison(out);

    const discrete = example('cartpole-sac.rlx');
    const run = await ours(discrete, out);
    report('discrete SAC CartPole, examples/cartpole-sac.rlx', [[`seed ${discrete.seeds[0]}`, `mean-20 ${fixed(run.result.metrics['train/mean_return'])} at ${k(run.result.step)} (${run.seconds.toFixed(1)} s)`]]);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/** examples/bit-flip.rlx (the HER paper's demonstration), seeds 1-3, with and without relabeling at the same budget. */
async function bitFlipComparison(out: string): Promise<void> {
  const flip = planFile(path.join(EXAMPLES, 'bit-flip.rlx')).at(0);
  const rows: [string, string][] = [];
  for (const [label, plan] of [['future(k: 4)', flip], ['no relabeling', withoutRelabel(flip)]] as const) {
    for (const seed of SEEDS) {
      const run = await ours(plan, out, seed);
      const first = firstEvalAtLeast(run.result.runDir, 0.9);
      rows.push([`${label}, seed ${seed}`, `eval success ${fixed(run.result.metrics['eval/success'], 2)} at ${k(run.result.step)}, >= 0.9 ${first === null ? 'never' : `first at ${k(first)}`} (${run.result.reason}; ${run.seconds.toFixed(1)} s)`]);
    }
  }
  report(`DQN + HER on bit flipping, examples/bit-flip.rlx (20 bits), budget ${k(flip.stages[0]!.budget ?? NaN)} each; target: >= 0.9 with relabeling, near 0 without`, rows);
}

/** Only the bit-flipping comparison of the learning bench (`npm run bench -- her-bit-flip`, a few minutes). */
export async function benchBitFlip(): Promise<void> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-bench-'));
  try {
    await bitFlipComparison(out);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

// `node out/bench/offpolicy.js` runs the speed part alone.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await benchOffPolicy();
