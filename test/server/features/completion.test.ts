import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompletionItemKind, InsertTextFormat, type CompletionItem } from 'vscode-languageserver';
import { completion } from '../../../server/features/completion/index.js';
import { snippetText, withoutSnippets } from '../../../server/features/completion/snippets.js';
import type { Sources } from '../../helpers/source.js';
import { fixture } from './fixture.js';

// ---- helpers

/** The items in the order an editor shows them (by sortText). */
function complete(source: Sources): CompletionItem[] {
  const f = fixture(source);
  return completion(f.doc, f.cursor).sort((a, b) => (a.sortText ?? a.label).localeCompare(b.sortText ?? b.label));
}

/** The labels offered at `$0`, in display order. */
function check(source: Sources, expected: string[]): void {
  assert.deepEqual(complete(source).map((i) => i.label), expected);
}

/** One item, by label; fails when it is not offered. */
function item(source: Sources, label: string): CompletionItem {
  const items = complete(source);
  const found = items.find((i) => i.label === label);
  assert.ok(found, `no item '${label}'; offered: ${items.map((i) => i.label).join(', ')}`);
  return found;
}

/** The main file's text after accepting the item (snippet syntax left as it is). */
function checkAccept(source: string, label: string, expected: string): void {
  const f = fixture(source);
  const chosen = completion(f.doc, f.cursor).find((i) => i.label === label);
  assert.ok(chosen?.textEdit && 'range' in chosen.textEdit, `no item '${label}' with a text edit`);
  const { range, newText } = chosen.textEdit;
  const text = f.doc.unit.text;
  assert.equal(text.slice(0, f.doc.lines.offset(range.start)) + newText + text.slice(f.doc.lines.offset(range.end)), expected);
}

const PPO_PARAMS = ['learning_rate', 'rollout_steps', 'epochs', 'minibatches', 'gamma', 'gae_lambda', 'clip', 'clip_value', 'entropy_coef', 'value_coef', 'max_grad_norm', 'normalize_advantages', 'target_kl', 'action_mask'];
const KINDS = ['env', 'policy', 'algorithm', 'reward', 'experiment', 'sweep'];
const ALGORITHMS = ['PPO', 'DQN', 'SAC', 'REINFORCE', 'GRPO', 'SFT', 'DPO', 'BC', 'TD3BC', 'IQL'];
const ENVS = ['CartPole', 'CartPoleNoVel', 'MountainCar', 'Acrobot', 'Pendulum', 'GridWorld', 'Bandit', 'FreeSlots', 'Catch', 'InvertedPendulum', 'InvertedDoublePendulum', 'HalfCheetah', 'Hopper', 'Walker2d', 'Swimmer', 'Ant', 'Reacher', 'Pusher', 'Humanoid', 'TextTask', 'GuessNumber'];
const SCHEDULES = ['constant', 'linear', 'cosine', 'warmup'];
const REWARD_NAMES = ['obs', 'next_obs', 'action', 'goal', 'achieved', 'terminated', 'truncated', 'success', 't', 'info', 'prompt', 'completion', 'target', 'reply', 'row', 'env_reward', 'self_certainty', 'neg_entropy', 'logprob'];
const FUNCTIONS = ['abs', 'sqrt', 'exp', 'log', 'min', 'max', 'clip', 'norm', 'dist', 'if', 'exact', 'numeric', 'regex', 'contains', 'length', 'last_number', 'boxed', 'tagged', 'completion_code', 'passes', 'python', 'novelty'];
const METRICS = ['eval.mean_return', 'eval.std_return', 'eval.mean_length', 'eval.success', 'eval.accuracy', 'train.mean_return', 'train.mean_length', 'train.success', 'train.accuracy', 'steps'];

const ZOO = `env Pole = CartPole
policy Actor = mlp
algorithm Tuned = PPO { epochs: 8 }
experiment Balance { env: Pole, policy: Actor, algorithm: Tuned, budget: 1k }
`;

// ---- the top level

describe('completion at the top level', () => {
  it('offers a template for each declaration kind, import and the keywords', () => {
    check('$0', [...KINDS, 'import', ...KINDS]);
    assert.equal(item('$0', 'import').kind, CompletionItemKind.Keyword);
  });

  it('templates have placeholders; an experiment offers the names in scope first', () => {
    const snippet = complete(`${ZOO}$0`).find((i) => i.label === 'experiment' && i.kind === CompletionItemKind.Snippet)!;
    assert.equal(snippet.insertTextFormat, InsertTextFormat.Snippet);
    assert.equal(snippet.textEdit?.newText,
      'experiment ${1:Name} {\n  env: ${2|Pole,CartPole,CartPoleNoVel,MountainCar,Acrobot,Pendulum,GridWorld,Bandit,FreeSlots,Catch,InvertedPendulum,InvertedDoublePendulum,HalfCheetah,Hopper,Walker2d,Swimmer,Ant,Reacher,Pusher,Humanoid,TextTask,GuessNumber|}\n'
      + '  policy: ${3|Actor,mlp,cnn,transformer|}\n  algorithm: ${4|Tuned,PPO,DQN,SAC,REINFORCE,GRPO,SFT,DPO,BC,TD3BC,IQL|}\n  budget: ${5:100k}\n}');
    const algorithm = complete('$0').find((i) => i.label === 'algorithm' && i.kind === CompletionItemKind.Snippet)!;
    assert.equal(algorithm.textEdit?.newText, 'algorithm ${1:Name} = ${2|PPO,DQN,SAC,REINFORCE,GRPO,SFT,DPO,BC,TD3BC,IQL|} {\n  $0\n}');
  });

  it('filters by the word typed and replaces it', () => {
    check('exp$0', ['experiment', 'experiment']);
    checkAccept('env Swing = Pendulum\nalg$0', 'algorithm', 'env Swing = Pendulum\nalgorithm ${1:Name} = ${2|PPO,DQN,SAC,REINFORCE,GRPO,SFT,DPO,BC,TD3BC,IQL|} {\n  $0\n}');
  });

  it('after a closed body, and on the line after a declaration without a body', () => {
    check('algorithm A = PPO { epochs: 4 }\nsw$0', ['sweep', 'sweep']);
    check('env Swing = Pendulum\nsw$0', ['sweep', 'sweep']);
  });

  it('offers `over` after a sweep name and the experiments after it', () => {
    check(`${ZOO}sweep S $0`, ['over']);
    check(`${ZOO}sweep S over $0`, ['Balance']);
  });
});

describe('completion of bases', () => {
  it('after `algorithm X = `: the built-in algorithms and the user\'s, not itself', () => {
    check(`${ZOO}algorithm X = $0`, ['Tuned', ...ALGORITHMS, 'module']);
    check(`algorithm X = $0 { epochs: 2 }`, [...ALGORITHMS, 'module']);
    assert.equal(item('algorithm X = $0', 'module').textEdit?.newText, 'module("${1:./learner.ts}")');
  });

  it('after `env X = `: envs and module("...")', () => {
    check(`${ZOO}env X = $0`, ['Pole', ...ENVS, 'module']);
    assert.equal(item('env X = $0', 'module').textEdit?.newText, 'module("${1:./env.ts}")');
  });

  it('policies for a policy, and the base being typed is replaced', () => {
    check('policy P = $0', ['mlp', 'cnn', 'transformer', 'pretrained']);
    assert.equal(item('policy P = $0', 'pretrained').textEdit?.newText, 'pretrained("${1:./models/}")');
    checkAccept('algorithm X = PP$0 {}', 'PPO', 'algorithm X = PPO {}');
  });

  it('names declarations from imported files', () => {
    check({ 'main.rlx': 'import "./algos.rlx"\nalgorithm X = $0', 'algos.rlx': 'algorithm Shared = SAC' }, ['Shared', ...ALGORITHMS, 'module']);
  });
});

// ---- property names

describe('completion of property names', () => {
  it('completes the word being typed with the property, a colon and its value to type over (the default)', () => {
    check('algorithm X = PPO { lea$0 }', ['learning_rate']);
    checkAccept('algorithm X = PPO { lea$0 }', 'learning_rate', 'algorithm X = PPO { learning_rate: ${1:2.5e-4} }');
    assert.equal(item('algorithm X = PPO { lea$0 }', 'learning_rate').insertTextFormat, InsertTextFormat.Snippet);
    // No default (required): an empty tab stop; an inherited value is the placeholder.
    checkAccept('experiment E { bud$0 }', 'budget', 'experiment E { budget: $1 }');
    checkAccept('algorithm Tuned = PPO { epochs: 8 }\nalgorithm X = Tuned { epo$0 }', 'epochs', 'algorithm Tuned = PPO { epochs: 8 }\nalgorithm X = Tuned { epochs: ${1:8} }');
  });

  it('an algorithm body offers its properties and blocks, never the top level\'s declaration templates', () => {
    const labels = complete('algorithm X = PPO { $0 }').map((i) => i.label);
    for (const kind of [...KINDS, 'import']) assert.ok(!labels.includes(kind), `${kind} offered in a body`);
  });

  it('changing a key that has its colon replaces the whole word and keeps the colon', () => {
    checkAccept('algorithm X = PPO { lea$0rnin_rate: 1e-3 }', 'learning_rate', 'algorithm X = PPO { learning_rate: 1e-3 }');
  });

  it('lists every parameter of the base with its type, default and doc', () => {
    check('algorithm X = PPO { $0 }', PPO_PARAMS);
    const gamma = item('algorithm X = PPO { $0 }', 'gamma');
    assert.equal(gamma.kind, CompletionItemKind.Property);
    assert.equal(gamma.detail, 'number = 0.99');
    assert.deepEqual(gamma.labelDetails, { description: 'default: 0.99' });
    assert.match((gamma.documentation as { value: string }).value, /Discount factor for future rewards[\s\S]*Range: >= 0 and <= 1/);
  });

  it('leaves out properties already set, before and after the cursor', () => {
    check('algorithm X = PPO {\n  epochs: 4\n  $0\n  gamma: 0.9\n}', PPO_PARAMS.filter((p) => p !== 'epochs' && p !== 'gamma'));
  });

  it('still offers inherited properties, last, marked with the inherited value', () => {
    const source = 'algorithm Tuned = PPO { epochs: 8 }\nalgorithm X = Tuned {\n  learning_rate: 1e-3\n  $0\n}';
    const labels = complete(source).map((i) => i.label);
    assert.equal(labels[labels.length - 1], 'epochs');
    assert.ok(!labels.includes('learning_rate'));
    const epochs = item(source, 'epochs');
    assert.deepEqual(epochs.labelDetails, { description: 'inherited: 8' });
    assert.equal(epochs.detail, 'integer (inherited from Tuned: 8)');
  });

  it('works on incomplete text: an unclosed body at the end of the file', () => {
    check('algorithm X = PPO { lea$0', ['learning_rate']);
    check('algorithm X = PPO {\n  epochs: 4\n  gam$0', ['gamma', 'gae_lambda', 'max_grad_norm']);
  });

  it('works on incomplete text: a property without a value before the cursor', () => {
    check('algorithm X = PPO {\n  epochs:\n  gam$0\n  clip: 0.1\n}', ['gamma', 'gae_lambda', 'max_grad_norm']);
  });

  it('required properties come first in an experiment; blocks are offered once', () => {
    check('experiment E { $0 }', ['env', 'policy', 'algorithm', 'reward', 'budget', 'envs', 'seed', 'seeds', 'device', 'precision', 'stop', 'eval', 'curriculum', 'stage']);
    check('experiment E {\n  eval { every: 1k }\n  ev$0\n}', ['env', 'envs']);
    assert.equal(item('experiment E { ev$0 }', 'eval').textEdit?.newText, 'eval {\n  every: $1\n}');
  });

  it('inside a block: the block\'s parameters', () => {
    check('experiment E { eval { every: 10k, $0 } }', ['episodes', 'deterministic']);
  });

  it('term in a reward, stage in an experiment', () => {
    check('reward R { $0 }', ['replace_env_reward', 'term']);
    assert.equal(item('reward R { $0 }', 'term').textEdit?.newText, 'term ${1:name} = $0');
  });

  it('inside a stage: the stage budget and its algorithm\'s parameters', () => {
    check('experiment E {\n  stage warm = SFT { $0 }\n}', ['budget', 'data', 'updates', 'batch_size', 'learning_rate', 'micro_batch', 'gradient_checkpointing']);
  });

  it('nothing for an env written as code (its parameters are unknown)', () => {
    check('env Mine = module("./mine.ts") { $0 }', []);
  });
});

// ---- values

describe('completion of values', () => {
  it('options of an enum-like property, the default marked', () => {
    check('policy P = mlp { activation: $0 }', ['tanh', 'relu']);
    assert.equal(item('policy P = mlp { activation: $0 }', 'tanh').detail, 'default');
  });

  it('options with arguments insert them as placeholders', () => {
    check('algorithm X = DQN { relabel: $0 }', ['none', 'future', 'final', 'episode']);
    checkAccept('algorithm X = DQN { relabel: fu$0 }', 'future', 'algorithm X = DQN { relabel: future(k: ${1:4}) }');
  });

  it('GRPO\'s declared variants: their options, the default (GRPO as the paper) marked', () => {
    check('algorithm X = GRPO { baseline: $0 }', ['mean', 'leave_one_out']);
    check('algorithm X = GRPO { normalize: $0 }', ['group_std', 'batch_std', 'none', 'max_abs']);
    check('algorithm X = GRPO { loss: $0 }', ['sequence', 'token', 'constant']);
    check('algorithm X = GRPO { kl_estimator: $0 }', ['k3', 'k2', 'k1']);
    check('algorithm X = GRPO { kl_in_reward: $0 }', ['true', 'false']);
    assert.equal(item('algorithm X = GRPO { kl_estimator: $0 }', 'k3').detail, 'default');
  });

  it('true and false for booleans', () => {
    check('algorithm X = PPO { normalize_advantages: $0 }', ['true', 'false']);
    check('algorithm X = PPO { normalize_advantages: t$0 }', ['true']);
  });

  it('schedules for a schedulable number; nothing for a plain one', () => {
    check('algorithm X = PPO { learning_rate: $0 }', SCHEDULES);
    assert.equal(item('algorithm X = PPO { learning_rate: $0 }', 'linear').textEdit?.newText, 'linear(${1:from}, ${2:to})');
    check('algorithm X = PPO { epochs: $0 }', []);
    check('algorithm X = SAC { alpha: $0 }', ['auto']);
  });

  it('inside a schedule: the optional argument names, then what the argument takes', () => {
    check('algorithm X = DQN { epsilon: linear(1, 0.05, $0) }', ['over:']);
    checkAccept('algorithm X = DQN { epsilon: linear(1, 0.05, ov$0) }', 'over:', 'algorithm X = DQN { epsilon: linear(1, 0.05, over: ) }');
    check('algorithm X = PPO { clip: warmup(100, $0) }', SCHEDULES);
  });

  it('inside an option call: its arguments by name', () => {
    check('env X = GridWorld { goal: fixed($0) }', ['x:', 'y:']);
    check('env X = GridWorld { goal: fixed(x: 1, $0) }', ['y:']);
  });

  it('names of the right kind after env:, policy:, algorithm:, reward:', () => {
    const source = `${ZOO}reward Bonus { term alive = 1 }\nexperiment E {\n  env: $0\n}`;
    check(source, ['Pole', ...ENVS]);
    check(source.replace('env: $0', 'policy: $0'), ['Actor', 'mlp', 'cnn', 'transformer']);
    check(source.replace('env: $0', 'algorithm: $0'), ['Tuned', ...ALGORITHMS]);
    check(source.replace('env: $0', 'reward: $0'), ['Bonus']);
  });

  it('a property with no value yet followed by more members', () => {
    check(`${ZOO}experiment E {\n  policy: $0\n  budget: 1k\n}`, ['Actor', 'mlp', 'cnn', 'transformer']);
  });

  it('a swept value is a list of values of the property\'s type', () => {
    const source = `${ZOO}sweep S over Balance {\n  algorithm: [Tuned, $0]\n}`;
    check(source, ['Tuned', ...ALGORITHMS]);
    check(`${ZOO}sweep S over Balance {\n  strategy: $0\n}`, ['grid', 'random']);
  });

  it('no completion in a comment, a string or a number', () => {
    check('// algorithm $0', []);
    check('env X = module("./$0")', []);
    check('algorithm X = PPO { epochs: 4$0 }', []);
  });
});

describe('completion in reward terms', () => {
  it('reward names and functions (with their signatures)', () => {
    check('reward R { term a = $0 }', [...REWARD_NAMES, ...FUNCTIONS]);
    const clip = item('reward R { term a = $0 }', 'clip');
    assert.equal(clip.detail, 'clip(x: number, lo: number, hi: number) -> number');
    assert.equal(clip.textEdit?.newText, 'clip(${1:x}, ${2:lo}, ${3:hi})');
    assert.equal(item('reward R { term a = $0 }', 'numeric').textEdit?.newText, 'numeric(${1:a}, ${2:b})');
    const tagged = item('reward R { term a = $0 }', 'tagged');
    assert.equal(tagged.detail, 'tagged(s: string, tag: string) -> string', 'an extractor gives text');
    assert.match(JSON.stringify(tagged.documentation), /the last complete `<tag>...<\/tag>`/);
  });

  it('obs. completes the fields of the env of an experiment that uses the reward', () => {
    const source = 'env Pole = CartPole\nreward R {\n  term a = -0.05 * abs(obs.$0)\n}\nexperiment E { env: Pole, reward: R }';
    check(source, ['x', 'x_dot', 'theta', 'theta_dot']);
    assert.deepEqual(item(source, 'theta').labelDetails, { description: 'Pole (CartPole)' });
    check(source.replace('obs.$0', 'next_obs.th$0'), ['theta', 'theta_dot']);
  });

  it('obs. pairs through a derived experiment in another file', () => {
    check({
      'main.rlx': 'reward Upright {\n  term tilt = obs.$0\n}',
      'runs.rlx': 'import "./main.rlx"\nenv Swing = Pendulum\nexperiment Base { env: Swing, policy: mlp, algorithm: SAC, budget: 1k }\nexperiment Shaped = Base { reward: Upright }',
    }, ['cos_theta', 'sin_theta', 'theta_dot']);
  });

  it("obs. and info. with a user module: the names its spec declares, not every built-in's", () => {
    const main = 'env Walk = module("./walk.ts")\nreward R { term a = obs.$0 }\nexperiment E { env: Walk, reward: R }';
    const walk = "export default class Walk {}\nexport const spec = { observations: ['position', 'speed'], actions: 'discrete', info: ['success', 'distance'] };\n";
    check({ 'main.rlx': main, 'walk.ts': walk }, ['position', 'speed']);
    assert.deepEqual(item({ 'main.rlx': main, 'walk.ts': walk }, 'speed').labelDetails, { description: 'Walk (module("./walk.ts"))' });
    check({ 'main.rlx': main.replace('obs.$0', 'info.$0'), 'walk.ts': walk }, ['success', 'distance']);
    // A module that declares nothing offers nothing.
    check({ 'main.rlx': main, 'walk.ts': 'export default class Walk {}\n' }, []);
  });

  it('row. completes the columns of the dataset of a TextTask the reward is paired with, typed from its first rows', () => {
    const main = 'env Sums = TextTask { task: dataset("./rows.jsonl") }\nreward R { term a = exact(completion, row.$0) }\nexperiment E { env: Sums, reward: R }';
    const rows = '{"prompt": "1+1=", "target": "2", "answer": 2, "solution": "two"}\n';
    check({ 'main.rlx': main, 'rows.jsonl': rows }, ['prompt', 'target', 'answer', 'solution']);
    assert.equal(item({ 'main.rlx': main, 'rows.jsonl': rows }, 'answer').detail, 'number (a column of ./rows.jsonl)');
    // A generated task has no rows to offer.
    check({ 'main.rlx': main.replace('dataset("./rows.jsonl")', 'addition(digits: 2)'), 'rows.jsonl': rows }, []);
  });

  it('info. with a user text env: the names its spec declares; obs. offers none (its observations are text)', () => {
    const main = 'env Tool = module("./tool.ts")\nreward R { term a = info.$0 }\nexperiment E { env: Tool, reward: R }';
    const tool = "export const spec = { actions: 'text', max_turns: 3, max_observation: 10, max_action: 11, info: ['success', 'calls'] };\nexport default class Tool {}\n";
    check({ 'main.rlx': main, 'tool.ts': tool }, ['success', 'calls']);
    check({ 'main.rlx': main.replace('info.$0', 'obs.$0'), 'tool.ts': tool }, []);
  });

  it('obs. with no experiment using the reward: the fields of every env, marked with their envs', () => {
    const items = complete('reward R { term a = obs.$0 }');
    assert.deepEqual(items.slice(0, 4).map((i) => [i.label, i.labelDetails?.description]),
      [['x', 'CartPole, CartPoleNoVel, GridWorld'], ['x_dot', 'CartPole'], ['theta', 'CartPole, CartPoleNoVel'], ['theta_dot', 'CartPole, Pendulum']]);
    assert.match(items[0].detail!, /no experiment pairs this reward/);
  });

  it('with a text task: its names, its intrinsic rewards and the verifiers, no observation', () => {
    const source = 'env Arith = TextTask\nreward R { term a = $0 }\nexperiment E { env: Arith, reward: R }';
    check(source, ['terminated', 'truncated', 'success', 't', 'info', 'prompt', 'completion', 'target', 'row', 'self_certainty', 'neg_entropy', 'logprob', ...FUNCTIONS]);
    assert.match(JSON.stringify(item(source, 'self_certainty').documentation), /INTUITOR.*KL\(uniform \|\| p\)/);
  });

  it('with a dialogue env: the text names of a turn (no target), its reply and env_reward, and its info values', () => {
    const source = 'env Guess = GuessNumber\nreward R { term a = $0 }\nexperiment E { env: Guess, reward: R }';
    // python() reward functions and passes() score single-turn completions only.
    check(source, ['terminated', 'truncated', 'success', 't', 'info', 'prompt', 'completion', 'reply', 'env_reward', ...FUNCTIONS.filter((f) => f !== 'python' && f !== 'passes')]);
    check(source.replace('$0', 'info.$0'), ['turns', 'hidden']);
  });

  it('inside a verifier: the named argument with a default, and expressions', () => {
    check('reward R { term a = numeric(completion, target, t$0) }', ['tol:', 'terminated', 'truncated', 't', 'target', 'tagged']);
  });
});

describe('completion of conditions and paths', () => {
  it('metrics in stop:, by full name or after the qualifier', () => {
    check('experiment E { stop: $0 }', [...METRICS, 'abs', 'sqrt', 'exp', 'log', 'min', 'max', 'clip', 'if']);
    check('experiment E { stop: eval.$0 }', ['mean_return', 'std_return', 'mean_length', 'success', 'accuracy']);
    check('experiment E { stop: eval.mean_return >= 400 and train.$0 }', ['mean_return', 'mean_length', 'success', 'accuracy']);
  });

  it('metrics in a curriculum\'s advance:, numeric env parameters in its param:', () => {
    const source = 'env Rooms = GridWorld\nexperiment E {\n  env: Rooms\n  curriculum { param: $0 }\n}';
    check(source, ['env.size', 'env.max_steps']);
    check(source.replace('param: $0', 'param: env.$0'), ['size', 'max_steps']);
    check(source.replace('param: $0', 'advance: eval.suc$0'), ['success']);
  });

  it('sweep paths: the experiment\'s properties, then the parameters of its parts', () => {
    const labels = complete(`${ZOO}sweep S over Balance {\n  $0\n}`).map((i) => i.label);
    assert.deepEqual(labels.slice(-5), ['env.', 'policy.', 'algorithm.', 'eval.', 'curriculum.']);
    check(`${ZOO}sweep S over Balance {\n  algorithm.gam$0\n}`, ['gamma', 'gae_lambda', 'max_grad_norm']);
    check(`${ZOO}sweep S over Balance {\n  policy.$0\n}`, ['hidden', 'activation', 'shared_trunk', 'core']);
    const epochs = item(`${ZOO}sweep S over Balance {\n  algorithm.$0\n}`, 'epochs');
    assert.deepEqual(epochs.labelDetails, { description: 'inherited: 8' });
    assert.equal(epochs.textEdit?.newText, 'epochs: [$1]');
  });

  it('the algorithm of a stage', () => {
    check('algorithm G = GRPO\nexperiment E {\n  stage warm = $0\n}', ['G', ...ALGORITHMS]);
  });
});

describe('a space as the trigger', () => {
  const afterSpace = (source: string) => {
    const f = fixture(source);
    return completion(f.doc, f.cursor, { triggerCharacter: ' ' }).map((i) => i.label);
  };

  it('answers where a value or a base comes next: after `:` and `=`', () => {
    assert.deepEqual(afterSpace('policy P = mlp {\n  activation: $0\n}\n'), ['tanh', 'relu']);
    assert.deepEqual(afterSpace('algorithm X = $0'), [...ALGORITHMS, 'module']);
  });

  it('answers nothing elsewhere, where a space is just typing', () => {
    assert.deepEqual(afterSpace('env Pole = CartPole {\n  max_steps: 500 $0\n}\n'), []);
    assert.deepEqual(afterSpace('algorithm $0'), []);
  });
});

describe('snippets as plain text (for clients without snippet support)', () => {
  const cases: [string, string][] = [
    ['linear(${1:from}, ${2:to})', 'linear(from, to)'],
    ['env ${1:Name} = ${2|Pole,CartPole|} {\n  $0\n}', 'env Name = Pole {\n  \n}'],
    ['future(k: ${1})', 'future(k: )'],
    ['${1:outer(${2:inner})}', 'outer(inner)'],
    ['cost: \\$${1:5} \\} \\\\', 'cost: $5 } \\'],
  ];
  for (const [snippet, plain] of cases) {
    it(`'${snippet}' inserts '${plain}'`, () => assert.equal(snippetText(snippet), plain));
  }

  it('items keep their text edits, with the plain text and no snippet format', () => {
    const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 2 } };
    const [plain] = withoutSnippets([{ label: 'linear', insertTextFormat: InsertTextFormat.Snippet, textEdit: { range, newText: 'linear(${1:from}, ${2:to})' } }]);
    assert.deepEqual(plain, { label: 'linear', textEdit: { range, newText: 'linear(from, to)' } });
  });
});
