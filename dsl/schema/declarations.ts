// The members of user declarations that have no built-in base: experiments, rewards, sweeps,
// and the stages inside an experiment (docs/language.md#rewards-and-conditions, docs/language.md#experiments-and-stages,
// docs/language.md#sweeps).
import { bool, choice, condition, count, int, list, num, option, param, path, ref, required, string } from './build.js';
import type { DeclarationSchema } from './types.js';

export const EXPERIMENT: DeclarationSchema = {
  declKind: 'experiment',
  doc: 'What to train: an environment, a policy and an algorithm with a budget, or a sequence of stages.',
  named: 'stage',
  params: [
    required('env', ref('env'), 'The environment to train in.'),
    required('policy', ref('policy'), 'The network(s) the algorithm trains.'),
    param('algorithm', ref('algorithm'), undefined, 'The learner. Required unless the experiment has stages.'),
    param('reward', ref('reward'), undefined, 'Reward terms added to (or replacing) the env\'s own reward.'),
    param('budget', count({ max: 1e12 }), undefined, 'Environment steps to train for. Required unless the experiment has stages.'),
    param('envs', count({ max: 4096 }), 1, 'Parallel copies of the environment.'),
    param('seed', int({ min: 0 }), undefined, 'Seed of a single run (use `seeds` for several).'),
    param('seeds', list(int({ min: 0 }), 1), [1], 'Seeds to run, one run each.'),
    param('device', choice(
      option('auto', 'A GPU where one works, else the CPU (saying why).'),
      option('cpu', 'The CPU.'),
      option('cuda', 'An NVIDIA GPU through onnxruntime\'s CUDA provider.'),
      option('webgpu', 'A GPU through onnxruntime\'s WebGPU provider.'),
    ), 'auto', 'Where the networks run.'),
    param('precision', choice(
      option('fp32', 'float32 throughout.'),
      option('fp16', 'Mixed precision: the matrix products of the gradient steps (and, on a GPU, of the pi_old and pi_ref log-probability passes) in float16 from float32 master weights, softmax, layer norms, reductions and the loss in float32, with dynamic loss scaling (a step whose gradients overflow float16 is skipped and the scale halved). For transformer and pretrained policies on a GPU (docs/gpu.md#precision).'),
    ), 'fp32', 'The float type of the training step\'s tensor work.'),
    param('stop', condition, undefined, 'Stop early when this condition holds, e.g. `eval.mean_return >= 475` (eval.* metrics have a value only with an `eval { every: N }` block).'),
  ],
  blocks: [
    {
      name: 'eval',
      doc: 'Periodic evaluation of the current policy on fresh episodes.',
      params: [
        required('every', count(), 'Environment steps between evaluations.'),
        { ...param('episodes', count({ max: 1e6 }), 10, 'Episodes per evaluation. A text env ignores it: every held-out prompt or dialogue is answered once, greedily (a repeated one gets the same answer), so each evaluation is the same set.'), unusedOn: ['text'] },
        { ...param('deterministic', bool, true, 'Take the most likely action instead of sampling (text envs: always greedy).'), unusedOn: ['text'] },
      ],
    },
    {
      name: 'curriculum',
      doc: 'Make the task harder as the agent improves: move an env parameter from `from` to `to` one `step` at a time, each time `advance` holds. '
        + '`advance` is tested after each evaluation (after each update when the experiment has no `eval` block); each advance makes new env copies with the new value: '
        + 'each training copy hands over at the end of its episode in flight (no episode is cut), evaluation uses the new value from its next run. '
        + 'The train.* windows and the latest evaluation restart, so that `advance` and `stop:` judge the new value; each advance is a `curriculum` event in events.jsonl. A resumed run continues at the value its checkpoint reached. '
        + 'Observation envs only; the parameter must not change the observation or action size.',
      params: [
        required('param', path, 'The env parameter to change, e.g. `env.size` (whole-number parameters move in whole steps).'),
        required('from', num(), 'Starting value (within the parameter\'s range).'),
        required('to', num(), 'Final value (within the parameter\'s range).'),
        param('step', num({ min: 0, exclusiveMin: true }), 1, 'Change per advance (towards `to`).'),
        required('advance', condition, 'Move one step when this holds, e.g. `eval.success >= 0.8`.'),
      ],
    },
  ],
};

export const STAGE: DeclarationSchema = {
  declKind: 'stage',
  doc: 'One phase of a staged experiment: an algorithm with its own budget (an SFT warm-up, then GRPO; PPO with one learning rate, then another). Each stage starts from the weights the one before it trained.',
  params: [param('budget', count({ max: 1e12 }), undefined, 'Environment steps for this stage; on a text task, completions sampled (GRPO) or demonstrations trained on (SFT). An SFT stage without one runs its `updates`.')],
  blocks: [],
};

export const REWARD: DeclarationSchema = {
  declKind: 'reward',
  doc: 'Named reward terms, summed each step; each term is logged on its own.',
  named: 'term',
  params: [param('replace_env_reward', bool, false, 'Use only these terms; otherwise they are added to the env\'s own reward.')],
  blocks: [],
};

export const SWEEP: DeclarationSchema = {
  declKind: 'sweep',
  doc: 'A set of experiments varying some properties of one experiment. Other properties are paths into the experiment (`algorithm.learning_rate`) with a list of values.',
  params: [
    param('strategy', choice(
      option('grid', 'Every combination of the listed values.'),
      option('random', 'Random combinations.', [param('samples', count({ max: 1e6 }), 20, 'How many combinations.')]),
    ), 'grid', 'How combinations are chosen.'),
    param('seeds', list(int({ min: 0 }), 1), undefined, 'Seeds for every combination (the experiment\'s own seeds otherwise).'),
    param('parallel', count({ max: 4096 }), 1, 'Runs at the same time. When the sweep does not say, `rlx sweep` runs as many as the machine affords (one per core, fewer when memory is short) and says so; a Slurm array then has no limit of its own.'),
    param('backend', choice(
      option('local', 'Child processes on this machine.'),
      option('slurm', 'One Slurm job array on a cluster.'),
    ), 'local', 'Where the runs go.'),
  ],
  blocks: [
    {
      name: 'slurm',
      doc: 'Settings of the Slurm job array (backend: slurm): `rlx sweep` writes them as `#SBATCH` lines of `<runs>/<sweep>/slurm/array.sbatch`, one array task per member (docs/slurm.md).',
      params: [
        param('partition', string, undefined, 'Partition to submit to (`--partition`); the cluster\'s default partition otherwise.'),
        param('time', string, '01:00:00', 'Time limit of each task (`--time`): `MM`, `HH:MM:SS` or `D-HH:MM:SS`. At the limit Slurm sends SIGTERM and the member ends `stopped`, resumable.'),
        param('cpus', count({ max: 1024 }), 2, 'CPUs per task (`--cpus-per-task`).'),
        param('mem', string, undefined, 'Memory per task (`--mem`): a whole number with a unit, `K`, `M`, `G` or `T` (megabytes without one), e.g. `"4G"`; the cluster\'s default otherwise.'),
        param('gpus', int({ min: 0, max: 64 }), 0, 'GPUs per task (`--gpus`, left out at 0).'),
        param('account', string, undefined, 'Account to charge (`--account`); your default account otherwise.'),
        param('extra', list(string), [], 'More sbatch options, one per string, each written as an `#SBATCH` line after the others, e.g. `["--qos=long", "--constraint=a100"]`.'),
      ],
    },
  ],
};

/** Why `precision: fp16` gains nothing on the CPU: said by the checker (device cpu) and by rlx train wherever the run lands on the CPU. */
export const FP16_ON_CPU = 'onnxruntime\'s CPU provider computes float16 products in float32 with casts around them: slower than fp32, and no less memory';

export const DECLARATION_SCHEMAS = { experiment: EXPERIMENT, reward: REWARD, sweep: SWEEP, stage: STAGE };
