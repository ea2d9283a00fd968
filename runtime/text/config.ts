// TextTask's configuration from a plan: `task` (which examples) and `max_tokens`. Names,
// defaults, docs and ranges are the language's (dsl/schema/envs.ts), read with envParams();
// a task option's own arguments (`digits`, `len`) are checked against the option's declared
// params the same way. A plan value of `task` is `{ "kind": "addition", "digits": 2 }` (what
// the compiler writes for an option with arguments) or a bare option name.
import * as path from 'node:path';
import { builtin, type ChoiceOption, type PlanValue } from '../../dsl/schema/index.js';
import { EnvParamError, envParams } from '../envs/params.js';
import { PlanParams } from '../plan-params.js';
import { datasetTask, loadDataset } from './dataset.js';
import { addition, reverse, sort } from './generated.js';
import type { TextTask } from './task.js';

export interface TextTaskConfig {
  readonly task: TextTask;
  /** Longest completion, in tokens (characters). */
  readonly max_tokens: number;
  /** The interpreter of the reward's python() functions ('' for RLX_PYTHON, else python3), and the seconds one call may take. */
  readonly python: string;
  readonly reward_timeout: number;
  /** The code verifier's limits for one completion: seconds and MiB (passes()). */
  readonly code_timeout: number;
  readonly code_memory: number;
}

export interface TextTaskOptions {
  /** The folder of the .rlx file: where `dataset("...")` paths start. */
  readonly baseDir?: string;
  /** Read a `dataset(...)` task from this file instead of its path (a resumed run's own copy). */
  readonly datasetFile?: string;
  /** A resumed run's folder: a python_text(...) env's class is loaded from the file the run recorded (source/python-env.json). */
  readonly runDir?: string;
  /**
   * max_tokens counts a pretrained model's tokens: targets are not held to it in characters
   * here; the trainer counts a dataset's target tokens once the model's tokenizer is read
   * (TextEnvironment.checkTargetTokens).
   */
  readonly modelTokens?: boolean;
}

/** Reads TextTask's configuration and builds its task; errors are EnvParamErrors naming the param. */
export function textTaskConfig(given: object, options: TextTaskOptions = {}): TextTaskConfig {
  const p = envParams('TextTask', given);
  const max_tokens = p.count('max_tokens');
  const task = buildTask(p, options);
  if (!(options.modelTokens && task.targets) && task.maxTargetLength > max_tokens) {
    throw new EnvParamError(
      'TextTask',
      'max_tokens',
      `TextTask: max_tokens is ${max_tokens}, but ${task.description} has targets of up to ${task.maxTargetLength} characters, which no completion could reach; raise max_tokens to at least ${task.maxTargetLength}`,
    );
  }
  const python = p.value('python');
  if (typeof python !== 'string') return p.fail('python', 'the command of a Python interpreter, as a string');
  return { task, max_tokens, python, reward_timeout: p.number('reward_timeout'), code_timeout: p.number('code_timeout'), code_memory: p.number('code_memory') };
}

function buildTask(p: PlanParams, options: TextTaskOptions): TextTask {
  const value = p.value('task') as PlanValue;
  const { kind, ...args } = typeof value === 'string' ? { kind: value } : typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { kind: undefined };
  const option = taskOptions().find((o) => o.name === kind);
  if (!option) return p.fail('task', `one of ${taskOptions().map(signature).join(', ')}`);
  if (option.name === 'dataset') return datasetFromPlan(args, options);
  const q = new PlanParams(`TextTask task ${option.name}`, option.params ?? [], args, (_owner, param, message) => new EnvParamError('TextTask', `task.${param}`, message));
  switch (option.name) {
    case 'addition':
      return addition(q.count('digits'), { pad: q.flag('pad') });
    case 'reverse':
      return reverse(q.count('len'));
    case 'sort':
      return sort(q.count('len'));
  }
  throw new Error(`TextTask: the registry declares task "${option.name}", which this runtime does not generate`);
}

function datasetFromPlan(args: Record<string, unknown>, options: TextTaskOptions): TextTask {
  const file = args.path;
  if (typeof file !== 'string' || file === '') {
    throw new EnvParamError('TextTask', 'task.path', `TextTask: dataset(path) needs the path of a .jsonl file as a string, got ${JSON.stringify(file) ?? 'nothing'}`);
  }
  if (options.datasetFile !== undefined) {
    // The run's own copy, wherever the run folder is.
    const copy = loadDataset(options.datasetFile, '.', { inside: false });
    return datasetTask(copy.examples, file, options.datasetFile, copy.warnings);
  }
  if (options.baseDir === undefined) {
    throw new EnvParamError('TextTask', 'task.path', `TextTask: dataset(${JSON.stringify(file)}) needs the folder of the .rlx file to find the file relative to`);
  }
  const { examples, warnings } = loadDataset(file, options.baseDir);
  return datasetTask(examples, file, path.resolve(options.baseDir, file), warnings);
}

function taskOptions(): readonly ChoiceOption[] {
  const type = builtin('TextTask')?.params.find((p) => p.name === 'task')?.type;
  return type?.kind === 'choice' ? type.options : [];
}

const signature = (o: ChoiceOption) => `${o.name}(${(o.params ?? []).map((p) => p.name).join(', ')})`;
