// npm run bench -- grpo-variants [--variants plain,dr-grpo] [--seeds 1,2,3] [--task addition|addition-self-certainty] [--metric eval/mean_reward]
//
// Each declared GRPO variant against plain GRPO, on the same seeds and budget, interleaved seed
// by seed (every variant of seed 1, then of seed 2, ...) so that machine load falls on all of
// them alike. A variant is a few lines of GRPO settings added to the task's algorithm block; the
// spec is written to a temporary folder and goes through the checker and compiler as a user's
// would, so a variant that the checker refuses fails here too. Prints, per variant, the held-out
// accuracy after the warm-up and at each evaluation of the GRPO stage (the learning curve), per
// seed and their mean. docs/learners.md quotes these tables.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { planFile } from '../cli/commands/plan.js';
import { readEvents } from '../runtime/run/events.js';
import { train } from '../runtime/train.js';

/** A task: the spec, with `@SETTINGS@` where a variant's GRPO settings go. */
interface VariantTask {
  readonly spec: string;
  /** The eval metric compared, as events.jsonl names it. */
  readonly metric: string;
}

/**
 * examples/addition-grpo.rlx, shortened: 500 warm-up updates (so GRPO has room to improve) and
 * 20k completions, evaluated every 4k steps; `reward` is the reward declaration (named `name`).
 */
function additionSpec(name: string, reward: string): string {
  return `
env Arith = TextTask {
  task: addition(digits: 2, pad: true)
  max_tokens: 6
}
policy Tiny = transformer { layers: 2, width: 64, heads: 4, context: 32 }
${reward}algorithm Grpo = GRPO {
  group_size: 8
  kl_coef: 0.04
  learning_rate: linear(2e-4, 0)
@SETTINGS@
}
experiment Sums {
  env: Arith
  policy: Tiny
  reward: ${name}
  eval { every: 4k }
  stage warmup = SFT { updates: 500, data: demos }
  stage main   = Grpo { budget: 20k }
}
`;
}

const TASKS: Record<string, VariantTask> = {
  // Exact match with a format bonus, as the example.
  addition: {
    metric: 'eval/accuracy',
    spec: additionSpec('Correct', `reward Correct {
  term answer = exact(completion, target)
  term format = 0.1 * regex(completion, "^[0-9]+$")
}
`),
  },
  // examples/guess-number-rloo.rlx under GRPO, shortened: 100 warm-up updates (about 30%
  // held-out success, so GRPO has room) and 12k agent turns, evaluated every 3k. GuessNumber pays
  // only for the finding turn, which makes every turn's return-to-go the dialogue's return; a cost
  // per guess gives the turns rewards of their own, so that `credit: turn` has something to credit.
  'guess-number': {
    metric: 'eval/success',
    spec: `
env Guess = GuessNumber { low: 1, high: 100, max_turns: 7 }
policy Tiny = transformer { layers: 2, width: 64, heads: 4, context: 80 }
reward Found {
  term guess = -0.05 * (t >= 0)
}
algorithm Grpo = GRPO {
  group_size: 8
  prompts_per_update: 4
  kl_coef: 0.04
  learning_rate: linear(1e-4, 0)
@SETTINGS@
}
experiment Guessing {
  env: Guess
  policy: Tiny
  reward: Found
  eval { every: 3k }
  stage warmup = SFT { updates: 100, batch_size: 32, learning_rate: 1e-3 }
  stage main   = Grpo { budget: 12k }
}
`,
  },
  // The same, rewarded by the policy's own self-certainty alone (INTUITOR): no verifier. Its
  // accuracy shows what confidence alone does to the answers.
  'addition-self-certainty': {
    metric: 'eval/accuracy',
    spec: additionSpec('Certainty', `reward Certainty {
  term certainty = self_certainty
}
`),
  },
};

/** GRPO settings per variant, one `name: value` per line; `plain` is GRPO's defaults. */
export const VARIANTS: Record<string, string> = {
  plain: '',
  'dr-grpo': 'normalize: none\nloss: constant',
  rloo: 'baseline: leave_one_out',
  'max-abs': 'normalize: max_abs',
  'kl-in-reward': 'kl_in_reward: true',
  'loss-token': 'loss: token',
  'loss-constant': 'loss: constant',
  'batch-std': 'normalize: batch_std',
  'clip-high': 'clip_high: 0.28\niterations: 2',
  'iterations-2': 'iterations: 2',
  'kl-k1': 'kl_estimator: k1',
  'kl-k2': 'kl_estimator: k2',
  'no-reference': 'reference: none',
  'dapo-dynamic': 'dynamic_sampling: true',
  'dapo-overlong': 'overlong: penalize',
  'dapo-overlong-drop': 'overlong: drop',
  'turn-credit': 'credit: turn',
  chord: 'sft_data: demos\nsft_coef: linear(0.5, 0)',
  'entropy-top20': 'entropy_top_fraction: 0.2',
};

function argList(flag: string): string[] | undefined {
  const i = process.argv.indexOf(flag);
  return i < 0 ? undefined : (process.argv[i + 1] ?? '').split(',').filter((x) => x !== '');
}

export async function benchGrpoVariants(): Promise<void> {
  const names = argList('--variants') ?? Object.keys(VARIANTS);
  const seeds = (argList('--seeds') ?? ['1', '2', '3']).map(Number);
  const taskName = argList('--task')?.[0] ?? 'addition';
  const task = TASKS[taskName];
  // Another eval metric to compare (eval/mean_reward: what the reward itself did).
  const metric = argList('--metric')?.[0] ?? task?.metric ?? '';
  const fmt = /accuracy|success/.test(metric) ? pct : (x: number) => x.toFixed(3);
  const unknown = names.filter((n) => !(n in VARIANTS));
  if (task === undefined || unknown.length > 0 || !seeds.every((s) => Number.isSafeInteger(s) && s >= 0)) {
    throw new Error(`grpo-variants: --variants from ${Object.keys(VARIANTS).join(', ')}; --task from ${Object.keys(TASKS).join(', ')}; --seeds whole numbers`);
  }
  // curves[variant][seed] = [[step, value], ...], the first point the warm-up's last evaluation.
  const curves = new Map<string, Map<number, [number, number][]>>(names.map((n) => [n, new Map()]));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-variants-'));
  try {
    for (const seed of seeds) {
      for (const name of names) {
        const settings = VARIANTS[name]!.split('\n').map((line) => `  ${line}`).join('\n');
        const file = path.join(dir, `${name}.rlx`);
        fs.writeFileSync(file, task.spec.replace('@SETTINGS@', settings));
        const [plan] = planFile(file);
        const start = performance.now();
        const result = await train(plan!, { seed, out: path.join(dir, 'runs'), device: 'cpu' });
        const seconds = (performance.now() - start) / 1000;
        const evals = readEvents(path.join(result.runDir, 'events.jsonl')).filter((e) => e.type === 'eval');
        const stages = plan!.stages.map((s) => s.name);
        const warm = evals.filter((e) => e.stage === stages[0]).at(-1);
        const points = [warm, ...evals.filter((e) => e.stage === stages.at(-1))].filter((e) => e !== undefined)
          .map((e) => [e.step, e.values[metric] ?? NaN] as [number, number]);
        curves.get(name)!.set(seed, points);
        console.log(`  ${name} seed ${seed}: ${points.map(([, v]) => fmt(v)).join(' -> ')} (${seconds.toFixed(0)} s)`);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n== GRPO variants on ${taskName}: held-out ${metric} after the warm-up, then at each GRPO evaluation (seeds ${seeds.join(', ')})`);
  for (const name of names) {
    const bySeed = [...curves.get(name)!.entries()];
    const length = Math.min(...bySeed.map(([, p]) => p.length));
    const mean = Array.from({ length }, (_, i) => bySeed.reduce((sum, [, p]) => sum + p[i]![1], 0) / bySeed.length);
    const steps = bySeed[0]![1].slice(0, length).map(([step]) => step);
    console.log(`  ${name.padEnd(14)} mean ${mean.map(fmt).join(' -> ')}   final per seed ${bySeed.map(([s, p]) => `${s}: ${fmt(p.at(-1)![1])}`).join(', ')}   (steps ${steps.join(', ')})`);
  }
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
