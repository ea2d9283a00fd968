// Every refusal of user input is one type the command line knows (issue 30, "checks clean
// means it trains" item 1): each error class of shared/, hf/, runtime/, dsl/ and cli/ either extends
// InputError, and then a spec, plan or run folder that triggers it makes `rlx` exit 2 with the
// message and no "internal error", or is listed below as not a refusal, with the reason. The
// classes are found in the sources, so a new one cannot be left out by forgetting a list.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import { repoRoot } from '../helpers/repo.js';
import { scratch } from './scratch.js';

/** Error classes that are not refusals of input, and why. */
const NOT_REFUSALS: Record<string, string> = {
  ActionMaskError: 'a bad action mask from an env during training (wrong length, not 0/1, no legal action): the run fails (RunFailedError) naming the env, its copy and the step',
  RunFailedError: 'wraps what ended a run once its folder exists; rlx train says "training failed" and names the folder (exit 2)',
  EnvInterruptedError: 'Ctrl-C during a call into an env module: the run stops, it is not refused',
  NonFiniteError: 'a NaN from an env or a reward during training: the run fails (RunFailedError) naming the step',
  DivergedError: 'a loss, gradient or weight that stops being finite during training: the run fails (RunFailedError) naming the learner, the update and the last good checkpoint',
  TemplateRaised: "a chat template's raise_exception() inside hf/chat-template.ts: caught there and refused as a ChatTemplateError naming the template",
  TemplateTooCostly: "a chat template's render past its limits (steps, text, clock) inside hf/chat-template.ts: caught there and refused as a ChatTemplateError naming the template",
  NotLiteral: "the checker's own signal inside dsl/semantics/env-module.ts; never leaves it",
  TooDeep: "NotLiteral's case of a spec nested past its limit, inside dsl/semantics/env-module.ts: reported there as the module spec's diagnostic",
  NotALiteral: "--chat-var's own signal inside cli/commands/python-literal.ts that a value is no Python or JSON literal: the value is then taken as a string",
  ProfileError: "onnxruntime's own profile (RLX_ORT_PROFILE), read by npm run bench -- gpu and never by an rlx command: one not as expected fails the bench",
  PartLoadError: "a learner state part's load() failing, inside runtime/algorithms/learner-state.ts: caught there and refused as a CheckpointStateError naming the part",
};

/** `class Name extends Parent` in the .ts files under `folders`. */
function errorClasses(folders: readonly string[]): Map<string, string> {
  const parents = new Map<string, string>();
  const root = repoRoot();
  for (const folder of folders) {
    for (const rel of fs.readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' }) as string[]) {
      if (!rel.endsWith('.ts') || rel.includes('node_modules')) continue;
      const text = fs.readFileSync(path.join(root, folder, rel), 'utf8');
      for (const m of text.matchAll(/\bclass (\w+) extends (\w+)\b/g)) parents.set(m[1], m[2]);
    }
  }
  const isError = (name: string): boolean => name === 'Error' || (parents.has(name) && isError(parents.get(name)!));
  return new Map([...parents].filter(([name]) => isError(name)));
}

const classes = errorClasses(['shared', 'hf', 'runtime', 'dsl', 'cli']);
const extendsInputError = (name: string): boolean => name === 'InputError' || (classes.has(name) && extendsInputError(classes.get(name)!));
/** The class and its subclasses: an error of any of them is an error of the class. */
const withSubclasses = (name: string): string[] => [name, ...[...classes].filter(([, parent]) => parent === name).flatMap(([child]) => withSubclasses(child))];

const { work, rlx, write } = scratch('rlx-refusals-');
const run = (...args: string[]) => {
  process.env.RLX_DEBUG = '1'; // the stack shows which error class refused (and what it wraps)
  try {
    return rlx(...args);
  } finally {
    delete process.env.RLX_DEBUG;
  }
};

const POLE = `env Pole = CartPole { max_steps: 500 }
policy Actor = mlp { hidden: [8] }
reward Upright { term tilt = -0.1 * abs(obs.theta) }
experiment Balance { env: Pole, policy: Actor, algorithm: PPO, budget: 1k, reward: Upright, stop: eval.mean_return >= 400 }
`;
const TEXT = `env Arith = TextTask { task: addition(digits: 1) }
policy Tiny = transformer { layers: 1, width: 16, heads: 2 }
reward Correct { term answer = exact(completion, target)
  term format = 0.1 * regex(completion, "^[0-9]+$") }
experiment Sums { env: Arith, policy: Tiny, algorithm: GRPO, budget: 64, reward: Correct }
`;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** `rlx plan` of `spec`, changed by `edit`, written as a plan file; its name. */
function editedPlan(spec: string, name: string, edit: (plan: Json) => void): string {
  const r = rlx('plan', spec);
  assert.equal(r.code, 0, r.stderr);
  const plan = JSON.parse(r.stdout) as Json;
  edit(plan);
  return write(name, JSON.stringify(plan));
}

/** A finished run of `spec` (its folder); the runs go into `runs-<spec>`. */
function trainedRun(spec: string): string {
  const out = `runs-${spec}`;
  const r = rlx('train', spec, '--out', out);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim().split('\n').at(-1)!;
}

/** A copy of the hf-tiny Qwen2 model folder in the scratch folder, changed by `edit`; its name. */
function modelFolder(name: string, edit: (dir: string) => void = () => {}): string {
  const from = path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2');
  const dir = path.join(work, 'models', name);
  fs.mkdirSync(dir, { recursive: true });
  for (const file of fs.readdirSync(from)) fs.copyFileSync(path.join(from, file), path.join(dir, file));
  edit(dir);
  return path.join('models', name);
}

/** A spec that SFTs the model folder `model` for two updates; its name. */
function pretrainedSpec(name: string, model: string, policyBody = ''): string {
  return write(name, `env Sums = TextTask { task: addition(digits: 1) }
policy Base = pretrained("./${model}")${policyBody ? ` { ${policyBody} }` : ''}
experiment Warm { env: Sums, policy: Base, stage sft = SFT { updates: 2, batch_size: 4 } }
`);
}

const editJson = (file: string, edit: (json: Json) => void) => {
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as Json;
  edit(json);
  fs.writeFileSync(file, JSON.stringify(json));
};

/** How to make each refusal happen: the arguments of one rlx command, prepared in the scratch folder. */
const TRIGGERS: Record<string, () => string[]> = {
  // Pretrained models (runtime/lm/): a model folder's files, a run of one, and what the trainer refuses of it.
  ModelFolderError: () => ['tokenize', write('not-a-folder.txt', 'x'), '--text', 'x'],
  LmConfigError: () => ['tokenize', modelFolder('mistral', (dir) => editJson(path.join(dir, 'config.json'), (c) => (c.model_type = 'mistral'))), '--text', 'x'],
  TokenizerFileError: () => ['tokenize', modelFolder('no-tokenizer', (dir) => fs.rmSync(path.join(dir, 'tokenizer.json'))), '--text', 'x'],
  ChatTemplateError: () => ['tokenize', modelFolder('raises', (dir) => fs.writeFileSync(path.join(dir, 'chat_template.jinja'), "{{ raise_exception('no chat here') }}")), '--text', 'x', '--chat'],
  SafetensorsError: () => ['generate', modelFolder('truncated', (dir) => fs.truncateSync(path.join(dir, 'model.safetensors'), 100_000)), '--prompt', 'x'],
  LmWeightsError: () => ['generate', modelFolder('wider', (dir) => editJson(path.join(dir, 'config.json'), (c) => (c.intermediate_size = 128))), '--prompt', 'x'],
  LoraError: () => ['train', '--plan', editedPlan(pretrainedSpec('lora.rlx', modelFolder('lora'), 'lora { rank: 4 }'), 'lora.json', (p) => (p.policy.params.lora.targets = ['qkv']))],
  MemoryEstimateError: () => {
    // The tiny model with an update of 10^5 prompts x 1024 completions: their key/value cache alone
    // needs terabytes, refused before the weights are read or a run folder is made.
    const small = modelFolder('small');
    return ['train', write('big.rlx', `env Sums = TextTask { task: addition(digits: 1) }
policy Base = pretrained("./${small}")
algorithm Huge = GRPO { prompts_per_update: 100000, group_size: 1024 }
experiment Warm { env: Sums, policy: Base, algorithm: Huge, budget: 1000000000 }
`)];
  },
  NonFiniteWeightsError: () => ['generate', modelFolder('nan', (dir) => {
    // A NaN as the first value of the first tensor's data.
    const file = path.join(dir, 'model.safetensors');
    const bytes = fs.readFileSync(file);
    const start = 8 + Number(bytes.readBigUInt64LE(0));
    bytes.writeFloatLE(Number.NaN, start);
    fs.writeFileSync(file, bytes);
  }), '--prompt', 'x'],
  RunPolicyError: () => ['export', trainedRun('pole.rlx'), '--to', 'exported-pole'],
  ExportError: () => {
    const model = modelFolder('gone');
    const runDir = trainedRun(pretrainedSpec('gone.rlx', model));
    fs.rmSync(path.join(work, model, 'config.json'));
    return ['export', runDir, '--to', 'exported-gone'];
  },
  BaseModelChangedError: () => {
    // A LoRA run's adapters belong to the base weights it trained over: another model in that folder is refused.
    const model = modelFolder('replaced');
    const runDir = trainedRun(pretrainedSpec('replaced.rlx', model, 'lora { rank: 2 }'));
    fs.copyFileSync(path.join(repoRoot(), 'examples/models/addition-sft/model.safetensors'), path.join(work, model, 'model.safetensors'));
    return ['eval', runDir];
  },
  UserError: () => ['train', 'pole.rlx', '--seed', 'seven'],
  PlanError: () => ['train', '--plan', editedPlan('pole.rlx', 'kind.json', (p) => (p.env.kind = 'Nope'))],
  // Offline RL's transitions file (shared/transitions/): planned over a good one, then replaced by one that is not a zip.
  NpzError: () => {
    fs.mkdirSync(path.join(work, 'data'), { recursive: true });
    fs.copyFileSync(path.join(repoRoot(), 'examples/data/pendulum-medium.npz'), path.join(work, 'data/medium.npz'));
    const spec = write('offline.rlx', 'env Swing = Pendulum { max_steps: 200 }\npolicy Actor = mlp { hidden: [16] }\nalgorithm Cloned = BC { data: "./data/medium.npz" }\nexperiment E { env: Swing, policy: Actor, algorithm: Cloned, budget: 100 }\n');
    const plan = editedPlan(spec, 'offline.json', () => {});
    write('data/medium.npz', 'not a zip of arrays');
    return ['train', '--plan', plan];
  },
  // A dataset column a reward reads (runtime/rewards/row-fields.ts): planned while every row had it, then a row without.
  RowFieldError: () => {
    const rows = (extra: boolean) => Array.from({ length: 40 }, (_, i) => JSON.stringify({ prompt: `${i}+1=`, target: `${i + 1}`, ...(extra || i % 2 === 0 ? { extra: 'x' } : {}) })).join('\n') + '\n';
    write('rows.jsonl', rows(true));
    const spec = write('rows.rlx', 'env Sums = TextTask { task: dataset("./rows.jsonl") }\npolicy Tiny = transformer { layers: 1, width: 16, heads: 2, context: 16 }\nreward R { term x = exact(completion, row.extra) }\nexperiment E { env: Sums, policy: Tiny, algorithm: GRPO, reward: R, budget: 64 }\n');
    const plan = editedPlan(spec, 'rows.json', () => {});
    write('rows.jsonl', rows(false));
    return ['train', '--plan', plan];
  },
  // A Python reward function that raises (runtime/rewards/python-rewards.ts).
  PythonRewardError: () => {
    write('raising.py', 'def score(prompts, completions, **kwargs):\n    raise ValueError("no scores today")\n');
    write('sums.jsonl', Array.from({ length: 40 }, (_, i) => JSON.stringify({ prompt: `${i}+1=`, target: `${i + 1}` })).join('\n') + '\n');
    return ['train', write('raising.rlx', 'env Sums = TextTask { task: dataset("./sums.jsonl") }\npolicy Tiny = transformer { layers: 1, width: 16, heads: 2, context: 16 }\nreward R { term s = python("./raising.py:score") }\nexperiment E { env: Sums, policy: Tiny, algorithm: GRPO, reward: R, budget: 64 }\n')];
  },
  CodeVerifierError: () => {
    write('code.jsonl', Array.from({ length: 40 }, (_, i) => JSON.stringify({ prompt: `add ${i}`, target: `f=lambda x:x+${i}`, tests: [`assert f(0) == ${i}`] })).join('\n') + '\n');
    return ['train', write('code.rlx', 'env Code = TextTask { task: dataset("./code.jsonl"), max_tokens: 16, python: "rlx-no-such-python" }\npolicy Tiny = transformer { layers: 1, width: 16, heads: 2, context: 32 }\nreward R { term p = passes(completion_code(completion), row.tests) }\nalgorithm G = GRPO { max_new_tokens: 16 }\nexperiment E { env: Code, policy: Tiny, algorithm: G, reward: R, budget: 64 }\n')];
  },
  EnvParamError: () => ['train', '--plan', editedPlan('pole.rlx', 'param.json', (p) => (p.env.params.max_steps = 'long'))],
  DeviceError: () => ['train', '--plan', editedPlan('pole.rlx', 'device.json', (p) => (p.device = 'tpu'))],
  RewardError: () => ['train', '--plan', editedPlan('pole.rlx', 'reward.json', (p) => (p.reward.terms[0].expr.args[1].args[0].ref = 'obs.nope'))],
  ExprError: () => ['train', '--plan', editedPlan('pole.rlx', 'stop.json', (p) => (p.stop.args[0].ref = 'eval.nope'))],
  PatternError: () => ['train', '--plan', editedPlan('text.rlx', 'pattern.json', (p) => (p.reward.terms[1].expr.args[1].args[1].const = '(a)\\1'))],
  // rlx check reports a bad dataset first (dsl/check/datasets.ts); a plan file skips the checker.
  DatasetError: () => {
    write('data/sums.jsonl', '{"prompt": "1+1=", "target": "2"}\n{"prompt": "1+2=", "target": "3"}\n');
    const plan = editedPlan(write('data.rlx', TEXT.replace('addition(digits: 1)', 'dataset("./data/sums.jsonl")')), 'dataset.json', () => {});
    write('data/sums.jsonl', '{"prompt": "1+1=", "target": "2"}\n{"prompt": "1+2="}\n');
    return ['train', '--plan', plan];
  },
  // rlx check says so first (dsl/check/sft-data.ts); a plan file skips the checker.
  DemonstrationError: () => ['train', '--plan', editedPlan('text.rlx', 'demos.json', (p) => Object.assign(p.stages[0].algorithm.params, { sft_data: 'demos', max_new_tokens: 1 }))],
  // DPO's pairs (runtime/algorithms/dpo/pairs.ts): the checker reads only that the file is there; a line without "rejected".
  PreferencePairsError: () => {
    write('pairs.jsonl', '{"prompt": "1+2=", "chosen": "3", "rejected": "4"}\n{"prompt": "1+3=", "chosen": "4"}\n');
    return ['train', write('pairs.rlx', 'env Arith = TextTask { task: addition(digits: 1) }\npolicy Tiny = transformer { layers: 1, width: 16, heads: 2 }\nexperiment E { env: Arith, policy: Tiny, stage pref = DPO { data: "./pairs.jsonl", updates: 2 } }\n')];
  },
  InputFileError: () => {
    fs.mkdirSync(path.join(work, 'folder.json'), { recursive: true });
    return ['train', '--plan', 'folder.json'];
  },
  EnvModuleError: () => {
    write('throws.mjs', 'throw new Error("no env here");\n');
    return ['train', write('module.rlx', POLE.replace('CartPole { max_steps: 500 }', 'module("./throws.mjs")').replace(/reward: Upright, stop: [^}]*/, ''))];
  },
  // A Python text env whose reset() raises (runtime/text/python-dialogue.ts): the class, the method and the episode.
  PythonTextEnvError: () => {
    write('closed.py', 'class Closed:\n    def reset(self, seed=None, options=None):\n        raise ValueError("closed today")\n    def step(self, action):\n        return "", 0.0, True, False, {}\n    def expert(self, observation):\n        return "hi"\n');
    return ['train', write('closed.rlx', 'env Shop = python_text("./closed.py:Closed") { max_turns: 2, max_observation: 8, max_action: 4 }\npolicy Tiny = transformer { layers: 1, width: 16, heads: 2, context: 32 }\nexperiment E { env: Shop, policy: Tiny, stage s = SFT { updates: 2 } }\n')];
  },
  PythonEnvError: () => ['train', write('gym.rlx', POLE.replace('CartPole { max_steps: 500 }', 'gymnasium("CartPole-v1") { python: "./no-such-python" }').replace(/reward: Upright, stop: [^}]*/, ''))],
  LearnerModuleError: () => {
    write('throws-learner.ts', "export const spec = { kind: 'text', settings: {} };\nexport function buildLoss() { throw new Error('no loss here'); }\n");
    return ['train', write('learner.rlx', `algorithm Mine = module("./throws-learner.ts") { }\n${TEXT.replace('algorithm: GRPO', 'algorithm: Mine')}`)];
  },
  ResumeError: () => {
    fs.mkdirSync(path.join(work, 'not-a-run'), { recursive: true });
    return ['train', '--resume', 'not-a-run'];
  },
  RunLockedError: () => {
    const runDir = trainedRun('pole.rlx');
    const status = path.join(work, runDir, 'status.json');
    fs.writeFileSync(status, JSON.stringify({ ...JSON.parse(fs.readFileSync(status, 'utf8')), status: 'stopped', pid: 1 << 30 }));
    // Held by this test's own process: alive, on this host.
    fs.writeFileSync(path.join(work, runDir, 'run.lock'), JSON.stringify({ pid: process.pid, host: os.hostname(), since: new Date().toISOString() }));
    return ['train', '--resume', runDir];
  },
  CheckpointStateError: () => {
    // A damaged checkpoint: its learner state lacks a part (the checksum removed, as in states of earlier versions).
    const runDir = trainedRun('pole.rlx');
    const status = path.join(work, runDir, 'status.json');
    fs.writeFileSync(status, JSON.stringify({ ...JSON.parse(fs.readFileSync(status, 'utf8')), status: 'stopped' }));
    const checkpoints = path.join(work, runDir, 'checkpoints');
    const newest = fs.readdirSync(checkpoints).filter((n) => /^state-\d+\.json$/.test(n)).sort((x, y) => parseInt(y.slice(6)) - parseInt(x.slice(6)))[0]!;
    editJson(path.join(checkpoints, newest), (state) => {
      delete state.algorithmSha256;
      delete state.algorithmState.optimizer;
    });
    return ['train', '--resume', runDir];
  },
  PolicyMismatchError: () => {
    const runDir = trainedRun('pole.rlx');
    fs.writeFileSync(path.join(work, runDir, 'checkpoints', 'policy-final.onnx'), 'not a model');
    return ['eval', runDir];
  },
  // A policy outside the run has no recorded sha256: its loading is what refuses it.
  PolicyFileError: () => ['eval', trainedRun('pole.rlx'), '--checkpoint', write('not-a-model.onnx', 'not a model')],
  TokenizerError: () => {
    const runDir = trainedRun('text.rlx');
    const policy = path.join(work, runDir, 'checkpoints', 'policy-final.onnx');
    const bytes = fs.readFileSync(policy);
    const at = bytes.indexOf('"kind":"char"');
    assert.ok(at > 0, 'the token model records its tokenizer');
    bytes.write('"kind":"CHAR"', at); // same length: the file still decodes, its tokenizer does not
    // Outside the run, so that no recorded sha256 refuses it before its tokenizer is read.
    return ['eval', runDir, '--checkpoint', write('char-tokenizer.onnx', bytes)];
  },
};

describe('every refusal of user input is an InputError, and rlx exits 2 with its message', () => {
  before(() => {
    write('pole.rlx', POLE);
    write('text.rlx', TEXT);
  });

  test('each error class is a refusal (InputError) or listed as not one, with the reason', () => {
    assert.ok(classes.has('PlanError') && classes.has('InputError'), 'the sources were read');
    const unclassified = [...classes.keys()].filter((name) => !extendsInputError(name) && !Object.hasOwn(NOT_REFUSALS, name));
    assert.deepEqual(unclassified, [], 'extend InputError (a refusal of input) or list the class in NOT_REFUSALS with why');
    const stale = Object.keys(NOT_REFUSALS).filter((name) => !classes.has(name) || extendsInputError(name));
    assert.deepEqual(stale, [], 'NOT_REFUSALS names classes that are gone or are refusals now');
  });

  test('each refusal has a trigger here', () => {
    const refusals = [...classes.keys()].filter((name) => extendsInputError(name) && name !== 'InputError');
    // A class is covered by its own trigger or one of its subclasses' (a ParamError by an EnvParamError).
    const untriggered = refusals.filter((name) => !withSubclasses(name).some((c) => Object.hasOwn(TRIGGERS, c)));
    assert.deepEqual(untriggered, [], 'add a TRIGGERS entry: a spec, plan or run folder that makes rlx refuse with it');
  });

  for (const [name, prepare] of Object.entries(TRIGGERS)) {
    test(`${name}: exit 2, the message, no "internal error"`, () => {
      const args = prepare();
      const r = run(...args);
      assert.equal(r.code, 2, `${args.join(' ')}\n${r.stderr}`);
      assert.doesNotMatch(r.stderr, /internal error|This is a bug/);
      const first = r.stderr.split('\n').find((line) => line.startsWith(`rlx ${args[0]}: `) && !/^rlx \w+: (resuming|\w+, seed)/.test(line));
      assert.ok(first !== undefined && first.length > `rlx ${args[0]}: `.length + 10, `a message: ${r.stderr}`);
      // RLX_DEBUG=1 prints the stack: the class that refused heads it or what it wraps.
      const shown = [...r.stderr.matchAll(/^(?:caused by: )?(\w+): /gm)].map((m) => m[1]);
      assert.ok(shown.includes(name), `${name} in ${shown.join(', ')}:\n${r.stderr}`);
    });
  }
});
