// One or more tests per diagnostic code, each with the exact range (marked ⟦like this⟧ in the
// source), the severity and the message, and the fixes where the checker offers them. The
// table is keyed by code, so a new code in DIAGNOSTIC_CODES does not compile until it has a
// test here (and the last test checks the same at run time). docs/language.md#what-the-checker-reports lists what
// the checker must report; each item of it has a case below.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { analyze, DIAGNOSTIC_CODES, Model, Workspace, type AnalyzeOptions, type DiagnosticCode, type Severity } from '../../dsl/index.js';
import {
  applyEdits, applyFix, check, expectClean, expectDiagnostic, expectDiagnostics, fixOf, MemoryHost, virtualPath, withFile,
  type Expected, type Found, type Sources,
} from '../helpers/source.js';
import { expectPretrained, HF_TINY, tiny, written } from '../helpers/pretrained.js';

/** Declarations most cases lean on; each is clean on its own. */
/** A user text env's module (only its spec is read). */
const TOOL_TS = "export const spec = { actions: 'text', max_turns: 3, max_observation: 10, max_action: 11, info: ['success', 'calls'] };\nexport default class {}\n";
const PRELUDE = `env Pole = CartPole { max_steps: 500 }
env Swing = Pendulum { max_steps: 200 }
env Arith = TextTask { task: addition(digits: 2) }
env Rooms = GridWorld { layout: four_rooms }
policy Actor = mlp { hidden: [64, 64] }
policy Tiny = transformer { layers: 2 }
algorithm Tuned = PPO { learning_rate: 3e-4 }
`;

/** An experiment that needs nothing else, for cases about something around it. */
const BALANCE = `experiment Balance {
  env: Pole
  policy: Actor
  algorithm: Tuned
  budget: 10k
}
`;

/** An experiment on a user env module (walk.ts below declares its names), with reward R. */
const WALK = `env Walk = module("./walk.ts")\n${PRELUDE}experiment Go {\n  env: Walk\n  policy: Actor\n  algorithm: Tuned\n  budget: 10k\n  reward: R\n}\n`;
const WALK_TS = `export default class Walk { /* observationSpace, actionSpace, reset, step */ }
// Read by rlx without running the module.
export const spec = {
  observations: ['position'],
  actions: 'discrete',
  info: ['success', 'distance'],  // trailing commas and comments are fine
};
`;

interface Case {
  name: string;
  /** The source, with one marked range for the diagnostic under test (and one per `also`). */
  source?: Sources;
  message?: RegExp | string;
  /** Default 'error'. */
  severity?: Severity;
  /** Further checks on the diagnostic found (fixes, related information). */
  then?: (found: Found) => void;
  /** Other diagnostics the source must also produce, in marker order after the one under test. */
  also?: Expected[];
  /** All expected diagnostics in marker order, when the one under test is not marked first. */
  expect?: Expected[];
  /** A test that cannot be written as a source with marks. */
  run?: () => void;
  /** The files analysed (all by default); others are only read (an env module's .ts). */
  roots?: string[];
  /** How to analyse, where a case needs a host's part (a Python env probe). */
  analyze?: AnalyzeOptions;
}

/** Re-checks the file after applying a fix: the diagnostic's code must be gone from it. */
function fixRemoves(found: Found, title?: string | RegExp): string {
  const fixed = applyFix(found, title);
  const sources = Object.fromEntries(found.checked.files.map((f) => [f.name, f.text]));
  const after = check(withFile(sources, found.file.name, fixed));
  const still = after.in(found.file.name).filter((d) => d.code === found.diagnostic.code);
  assert.deepEqual(still, [], `after the fix the file still has ${found.diagnostic.code}:\n${fixed}\n${after.render()}`);
  return fixed;
}

function fixIsClean(found: Found, title?: string | RegExp): string {
  const fixed = applyFix(found, title);
  const sources = Object.fromEntries(found.checked.files.map((f) => [f.name, f.text]));
  expectClean(withFile(sources, found.file.name, fixed));
  return fixed;
}

const CASES: Record<DiagnosticCode, Case[]> = {
  'syntax-error': [
    {
      name: 'a property without its value',
      source: 'algorithm A = PPO { gamma: ⟦,⟧ clip: 0.2 }',
      message: "expected a value (number, string, name, list or call) but found ','",
    },
    {
      name: "a missing '}' is reported at the next declaration, which still parses",
      source: `${PRELUDE}env A = CartPole {\n  max_steps: 5\n\n⟦policy⟧ B = mlp { hidden: [8] }\n`,
      message: "expected '}' but found 'policy'",
    },
    {
      name: "a missing '}' at the end of the file is reported just after the last token",
      source: 'env A = CartPole {\n  max_steps: 5⟦⟧\n',
      message: "expected '}' but found the end of the file",
    },
    {
      name: 'stray words at the top level, as one run',
      source: `⟦foo bar⟧\nenv A = CartPole {}\n`,
      message: "unexpected 'foo bar': expected a declaration (env, reward, policy, algorithm, experiment, sweep) or an import",
    },
    {
      name: 'a declaration without a name',
      source: 'env ⟦=⟧ CartPole {}',
      message: "expected a name but found '='",
    },
    {
      name: 'a base without a name',
      source: 'env A = ⟦{⟧ }',
      message: "expected a name but found '{'",
    },
    {
      name: 'list items need commas between them',
      source: 'policy P = mlp { hidden: [64 ⟦64⟧] }',
      message: "expected ']' but found '64'",
    },
    {
      name: 'comparisons do not chain',
      source: `${PRELUDE}${BALANCE.replace('budget: 10k', 'budget: 10k\n  stop: train.success > 0.5 ⟦>⟧ 0.2')}`,
      message: "comparisons do not chain: write 'a < b and b < c' instead of 'a < b < c'",
    },
  ],

  'invalid-character': [
    { name: 'a character no token starts with', source: `${PRELUDE}⟦@⟧\n`, message: "unexpected character '@'" },
    {
      name: 'a number running into a name is one bad number, not a number and a name',
      source: `${PRELUDE}${BALANCE.replace('10k', '⟦200kb⟧')}`,
      message: "invalid number '200kb': a number may end in 'k' or 'M' and must not run into a name",
    },
    {
      name: 'a number with two decimal points',
      source: 'algorithm A = PPO { gamma: ⟦0.9.9⟧ }',
      message: "invalid number '0.9.9'",
    },
    {
      name: 'an unterminated string runs to the end of its line',
      source: 'algorithm A = SFT {\n  data: ⟦"demos.jsonl⟧\n}\n',
      message: "unterminated string: add the closing '\"' on the same line",
    },
  ],

  'unknown-name': [
    {
      name: 'an unknown base, with "did you mean" and its fix',
      source: 'algorithm A = ⟦PP⟧ { }',
      message: "unknown algorithm 'PP'; did you mean 'PPO'?",
      then: (found) => {
        assert.deepEqual(fixOf(found, "Change to 'PPO'").edits, [{ range: found.file.marks[0], newText: 'PPO' }]);
        assert.equal(fixIsClean(found), 'algorithm A = PPO { }');
      },
    },
    {
      name: 'an unknown reference in an experiment, with the user declaration suggested',
      source: `${PRELUDE}${BALANCE.replace('env: Pole', 'env: ⟦Pol⟧')}`,
      message: "unknown env 'Pol'; did you mean 'Pole'?",
      then: (found) => assert.ok(fixIsClean(found).includes('env: Pole\n')),
    },
    {
      name: 'no suggestion when nothing is close',
      source: `${PRELUDE}${BALANCE.replace('policy: Actor', 'policy: ⟦Zzzzzz⟧')}`,
      message: /^unknown policy 'Zzzzzz'$/,
      then: (found) => assert.deepEqual(found.diagnostic.fixes ?? [], []),
    },
    {
      name: 'an unknown metric in a stop condition',
      source: `${PRELUDE}${BALANCE.replace('budget: 10k', 'budget: 10k\n  stop: ⟦eval.mean_retrun⟧ >= 475')}`,
      message: "unknown metric 'eval.mean_retrun'; conditions can test eval.mean_return",
      then: (found) => assert.match(found.diagnostic.message, /did you mean 'eval.mean_return'\?$/),
    },
    {
      name: 'an unknown name in a reward term',
      source: 'reward R {\n  term a = -abs(⟦ob⟧.x)\n}\n',
      message: /unknown name 'ob' in a reward term; available: obs, next_obs, .*did you mean 'obs'\?/,
    },
    {
      name: "an unknown stage algorithm",
      source: `${PRELUDE}experiment S {\n  env: Arith\n  policy: Tiny\n  stage main = ⟦GRP⟧ { budget: 1k }\n}\n`,
      message: "unknown algorithm 'GRP'; did you mean 'GRPO'?",
    },
    {
      name: 'a curriculum path must start with a part of the experiment',
      source: `${PRELUDE}experiment C {\n  env: Rooms\n  policy: Actor\n  algorithm: PPO\n  budget: 1k\n  eval { every: 500 }\n  curriculum { param: ⟦world⟧.size, from: 5, to: 9, advance: eval.success > 0.5 }\n}\n`,
      message: "a path starts with env, policy, algorithm; found 'world'",
    },
  ],

  'wrong-kind': [
    {
      name: 'policy: Pole (an env where a policy goes)',
      source: `${PRELUDE}${BALANCE.replace('policy: Actor', 'policy: ⟦Pole⟧')}`,
      message: "'Pole' is an env, but policy needs a policy",
    },
    {
      name: 'a base of another kind',
      source: `${PRELUDE}policy P = ⟦Pole⟧ { }`,
      message: "'Pole' is an env, but a policy's base must be a policy",
    },
    {
      name: 'a built-in of another kind as a reference',
      source: `${PRELUDE}${BALANCE.replace('algorithm: Tuned', 'algorithm: ⟦CartPole⟧')}`,
      message: "'CartPole' is an env, but algorithm needs an algorithm",
    },
    {
      name: 'a sweep over something that is not an experiment',
      source: `${PRELUDE}sweep S over ⟦Pole⟧ { }`,
      message: "'Pole' is an env, but a sweep must be an experiment",
    },
    {
      name: 'a stage whose base is not an algorithm',
      source: `${PRELUDE}experiment S {\n  env: Arith\n  policy: Tiny\n  stage main = ⟦Tiny⟧ { budget: 1k }\n}\n`,
      message: "'Tiny' is a policy, but a stage needs an algorithm",
    },
  ],

  'duplicate-name': [
    {
      name: 'twice in one file, at the second, with the first as related information',
      source: `${PRELUDE}env A = CartPole {}\npolicy ⟦A⟧ = mlp {}\n`,
      message: "'A' is already declared in this file",
      then: (found) => {
        const first = found.file.text.indexOf('env A =') + 4;
        assert.deepEqual(found.diagnostic.related, [{ file: found.file.path, range: { start: first, end: first + 1 }, message: 'first declared here' }]);
      },
    },
    {
      name: 'the name of a built-in',
      source: 'algorithm ⟦PPO⟧ = DQN {}',
      message: "'PPO' is the name of a built-in algorithm; choose another name",
    },
    {
      name: 'the name of a built-in function or schedule, which the docs forbid as well',
      source: 'env ⟦abs⟧ = CartPole {}',
      message: "'abs' is the name of a built-in function; choose another name",
    },
    {
      name: 'the name of a built-in schedule',
      source: 'algorithm ⟦linear⟧ = PPO {}',
      message: "'linear' is the name of a built-in schedule; choose another name",
    },
    {
      name: 'declared here and in an imported file',
      source: {
        'main.rlx': 'import "./envs.rlx"\nenv ⟦Pole⟧ = CartPole {}\n',
        'envs.rlx': 'env Pole = CartPole { max_steps: 100 }\n',
      },
      message: "'Pole' is also declared in envs.rlx, which this file imports",
      then: (found) => assert.equal(found.diagnostic.related?.[0].file, virtualPath('envs.rlx')),
    },
    {
      name: 'two terms of one name in a reward',
      source: 'reward R {\n  term a = 1\n  term ⟦a⟧ = 2\n}\n',
      message: "term 'a' is already declared in this body",
      then: (found) => assert.deepEqual(found.diagnostic.related?.map((r) => found.file.text.slice(r.range.start, r.range.end)), ['a']),
    },
    {
      name: 'two stages of one name in an experiment',
      source: `${PRELUDE}experiment S {\n  env: Arith\n  policy: Tiny\n  stage main = SFT { updates: 10 }\n  stage ⟦main⟧ = GRPO { budget: 1k }\n}\n`,
      message: "stage 'main' is already declared in this body",
    },
    {
      name: 'declared in two imported files',
      source: {
        'main.rlx': 'import "./a.rlx"\nimport ⟦"./b.rlx"⟧\n',
        'a.rlx': 'env Pole = CartPole {}\n',
        'b.rlx': 'env Pole = CartPole {}\n',
      },
      message: "'Pole' is declared both in a.rlx and in b.rlx",
    },
  ],

  'unknown-property': [
    {
      name: 'a property the base does not have: valid ones listed, rename and remove fixes',
      source: 'algorithm A = PPO {\n  ⟦learning_rat⟧: 1e-3\n  clip: 0.1\n}\n',
      message: "PPO has no property 'learning_rat'; did you mean 'learning_rate'? Valid properties: learning_rate, rollout_steps, epochs, minibatches, gamma, gae_lambda, clip, clip_value, entropy_coef, value_coef, max_grad_norm, normalize_advantages, target_kl",
      then: (found) => {
        assert.deepEqual(found.diagnostic.fixes?.map((f) => f.title), ["Change to 'learning_rate'", "Remove 'learning_rat'"]);
        assert.equal(fixIsClean(found, /Change/), 'algorithm A = PPO {\n  learning_rate: 1e-3\n  clip: 0.1\n}\n');
        assert.equal(fixIsClean(found, /Remove/), 'algorithm A = PPO {\n  clip: 0.1\n}\n');
      },
    },
    {
      name: "SB3/CleanRL's name of a property: did you mean rlx's, with the fix",
      source: 'algorithm A = PPO {\n  ⟦ent_coef⟧: 0.02\n}\n',
      message: /^PPO has no property 'ent_coef'; did you mean 'entropy_coef'\? \(SB3\/CleanRL's ent_coef is rlx's entropy_coef\) Valid properties: /,
      then: (found) => {
        assert.deepEqual(found.diagnostic.fixes?.map((f) => f.title), ["Change to 'entropy_coef'", "Remove 'ent_coef'"]);
        assert.equal(fixIsClean(found, /Change/), 'algorithm A = PPO {\n  entropy_coef: 0.02\n}\n');
      },
    },
    {
      name: "SB3's PPO batch_size is a minibatch size: the suggestion says what differs",
      source: 'algorithm A = PPO { ⟦batch_size⟧: 64 }',
      message: /did you mean 'minibatches'\? \(SB3's PPO batch_size is rlx's minibatches: rlx sets the number of minibatches per rollout, not their size\)/,
    },
    {
      name: "a known name goes to the property the body has (DQN's buffer, the experiment's budget)",
      source: 'algorithm A = DQN { ⟦buffer_size⟧: 50k, ⟦target_update_interval⟧: 1k, ⟦train_freq⟧: 4, learning_starts: 1k }',
      message: /^DQN has no property 'buffer_size'; did you mean 'buffer'\?/,
      also: [
        { code: 'unknown-property', message: /did you mean 'target_update'\? \(SB3's target_update_interval is rlx's target_update\)/ },
        { code: 'unknown-property', message: /did you mean 'train_every'\?/ },
      ],
    },
    {
      name: "CleanRL's num_envs in an experiment",
      source: `${PRELUDE}experiment E {\n  env: Pole\n  policy: mlp\n  algorithm: PPO\n  budget: 1k\n  ⟦num_envs⟧: 4\n}\n`,
      message: /^experiment has no property 'num_envs'; did you mean 'envs'\?/,
    },
    {
      name: "an abbreviation far from any name: no suggestion, the valid ones listed",
      source: 'algorithm A = PPO { ⟦lr⟧: 1e-3 }',
      message: /^PPO has no property 'lr'. Valid properties: learning_rate, /,
      then: (found) => assert.deepEqual(found.diagnostic.fixes?.map((f) => f.title), ["Remove 'lr'"]),
    },
    {
      name: 'a sweep property that is neither a setting nor a path (each valid name listed once)',
      source: `${PRELUDE}${BALANCE}sweep S over Balance {\n  ⟦sed⟧: [1, 2]\n}\n`,
      message: "sweep over Balance has no 'sed'; did you mean 'seed'? Valid paths: strategy, seeds, parallel, backend, env, policy, algorithm, reward, budget, envs, seed, device, precision, stop, env.NAME, policy.NAME, algorithm.NAME",
    },
    {
      name: 'removing a property from a one-line body takes its comma',
      source: 'env A = CartPole { ⟦mass⟧: 2, max_steps: 10 }',
      message: /^CartPole has no property 'mass'. Valid properties: max_steps, gravity/,
      then: (found) => assert.equal(fixIsClean(found, /Remove/), 'env A = CartPole { max_steps: 10 }'),
    },
    {
      name: 'a property of another algorithm, through a user base',
      source: `${PRELUDE}algorithm Fast = Tuned { ⟦buffer⟧: 1000 }\n`,
      message: "PPO has no property 'buffer'",
    },
    {
      name: 'an unknown block',
      source: `${PRELUDE}${BALANCE.replace('budget: 10k', 'budget: 10k\n  ⟦evals⟧ { every: 1k }')}`,
      message: "experiment has no block 'evals'; did you mean 'eval'? Valid blocks: eval, curriculum",
    },
    {
      name: 'a term outside a reward',
      source: `${PRELUDE}${BALANCE.replace('budget: 10k', 'budget: 10k\n  ⟦term⟧ bonus = 1')}`,
      message: "'term' members belong in reward declarations, not in an experiment",
    },
    {
      name: 'a dotted path outside a sweep',
      source: `${PRELUDE}${BALANCE.replace('budget: 10k', 'budget: 10k\n  algorithm.⟦gamma⟧: 0.9')}`,
      message: "dotted property paths are only for sweeps; write 'algorithm: ...' or use a block",
    },
    {
      name: 'a sweep path into a part of the experiment',
      source: `${PRELUDE}${BALANCE}sweep S over Balance {\n  algorithm.⟦lr⟧: [1e-4, 3e-4]\n}\n`,
      message: /^algorithm \(PPO\) has no 'lr'. Valid paths: learning_rate, /,
    },
    {
      name: "a sweep path with SB3's name: did you mean rlx's, with the fix",
      source: `${PRELUDE}${BALANCE}sweep S over Balance {\n  algorithm.⟦vf_coef⟧: [0.5, 1]\n}\n`,
      message: /^algorithm \(PPO\) has no 'vf_coef'; did you mean 'value_coef'\? \(SB3\/CleanRL's vf_coef is rlx's value_coef\)/,
      then: (found) => assert.deepEqual(found.diagnostic.fixes?.map((f) => f.title), ["Change to 'value_coef'"]),
    },
    {
      name: 'a curriculum parameter the env does not have',
      source: `${PRELUDE}experiment C {\n  env: Rooms\n  policy: Actor\n  algorithm: PPO\n  budget: 1k\n  eval { every: 500 }\n  curriculum { param: env.⟦sise⟧, from: 5, to: 9, advance: eval.success > 0.5 }\n}\n`,
      message: "GridWorld has no parameter 'sise'; did you mean 'size'?",
    },
  ],

  'duplicate-property': [
    {
      name: 'the same property twice: at the second, related to the first, with a remove fix',
      source: 'algorithm A = PPO {\n  clip: 0.1\n  ⟦clip⟧: 0.2\n}\n',
      message: "'clip' is already set in this body",
      then: (found) => {
        const first = found.file.text.indexOf('clip');
        assert.deepEqual(found.diagnostic.related, [{ file: found.file.path, range: { start: first, end: first + 'clip: 0.1'.length }, message: 'first set here' }]);
        assert.equal(fixIsClean(found), 'algorithm A = PPO {\n  clip: 0.1\n}\n');
      },
    },
    {
      name: 'the same path twice in a sweep',
      source: `${PRELUDE}${BALANCE}sweep S over Balance {\n  algorithm.gamma: [0.9]\n  ⟦algorithm⟧.gamma: [0.99]\n}\n`,
      message: "'algorithm.gamma' is already swept in this sweep",
      then: (found) => assert.ok(fixIsClean(found).endsWith('sweep S over Balance {\n  algorithm.gamma: [0.9]\n}\n')),
    },
  ],

  'missing-property': [
    {
      name: 'an experiment without a budget: the insert fix adds it, indented like the body',
      source: `${PRELUDE}experiment ⟦X⟧ {\n  env: Pole\n  policy: Actor\n  algorithm: Tuned\n}\n`,
      message: "experiment X needs 'budget'",
      then: (found) => assert.ok(fixIsClean(found).endsWith('  algorithm: Tuned\n  budget: 100k\n}\n')),
    },
    {
      name: 'an empty experiment: everything it needs, in one fix that checks clean',
      source: `${PRELUDE}experiment ⟦X⟧ {}\n`,
      message: "experiment X needs 'env' and 'policy' and 'algorithm' and 'budget' (or stages)",
      then: (found) => assert.ok(fixIsClean(found).endsWith('experiment X { env: Pole, policy: Actor, algorithm: Tuned, budget: 100k }\n')),
    },
    {
      name: 'a one-line body keeps its members and gains the missing ones',
      source: `${PRELUDE}experiment ⟦X⟧ { env: Pole, policy: Actor }\n`,
      message: "experiment X needs 'algorithm' and 'budget' (or stages)",
      then: (found) => assert.ok(fixIsClean(found).endsWith('experiment X { env: Pole, policy: Actor, algorithm: Tuned, budget: 100k }\n')),
    },
    {
      name: 'a body ending in a comment',
      source: `${PRELUDE}experiment ⟦X⟧ {\n  env: Pole\n  policy: Actor\n  budget: 1k // short\n}\n`,
      message: "experiment X needs 'algorithm' (or stages)",
      then: (found) => assert.ok(fixIsClean(found).endsWith('  budget: 1k // short\n  algorithm: Tuned\n}\n')),
    },
    {
      name: 'a block without its required member',
      source: `${PRELUDE}${BALANCE.replace('budget: 10k', 'budget: 10k\n  ⟦eval⟧ {\n    episodes: 5\n  }')}`,
      message: "eval { } needs 'every'",
      then: (found) => assert.ok(fixRemoves(found).includes('    episodes: 5\n    every: 1\n  }')),
    },
    {
      name: 'staged experiments need env and policy but not algorithm and budget',
      source: `${PRELUDE}experiment ⟦S⟧ {\n  env: Arith\n  stage main = GRPO { budget: 1k }\n}\n`,
      message: /^experiment S needs 'policy'$/,
      then: (found) => fixRemoves(found),
    },
    {
      name: 'a sweep without over',
      source: `${PRELUDE}${BALANCE}sweep ⟦S⟧ { parallel: 2 }\n`,
      message: 'sweep S needs the experiment it varies: `sweep S over Experiment { ... }`',
    },
    {
      name: 'a stage whose algorithm has no length of its own needs a budget (the trainer refuses it otherwise)',
      source: `${PRELUDE}experiment X {\n  env: Arith\n  policy: Tiny\n  stage warm = SFT { updates: 10 }\n  stage ⟦main⟧ = GRPO { group_size: 4 }\n}\n`,
      message: "stage main needs a 'budget': GRPO has no length of its own (the budget counts environment steps, or on a text task the completions sampled), e.g. `stage main = GRPO { budget: 50k }`",
      then: (found) => assert.match(fixIsClean(found), /stage main = GRPO \{ group_size: 4, budget: 50k \}/),
    },
    {
      name: 'a stage of an inherited algorithm declaration without a length needs a budget too',
      source: `${PRELUDE}algorithm Rl = GRPO { group_size: 4 }\nexperiment X { env: Arith, policy: Tiny, stage ⟦main⟧ = Rl {} }\n`,
      message: /^stage main needs a 'budget': GRPO has no length/,
    },
  ],

  'type-mismatch': [
    {
      name: 'a curriculum moves env parameters only',
      source: `${PRELUDE}experiment C {\n  env: Rooms\n  policy: Actor\n  algorithm: PPO\n  budget: 1k\n  eval { every: 500 }\n  curriculum { param: ⟦algorithm⟧.learning_rate, from: 5, to: 9, advance: eval.success > 0.5 }\n}\n`,
      message: 'a curriculum moves an env parameter (env.NAME), not algorithm.learning_rate',
    },
    {
      name: 'a curriculum cannot move a parameter that sizes the observations or actions',
      source: `env Arms = Bandit {}\n${PRELUDE}experiment C {\n  env: Arms\n  policy: Actor\n  algorithm: PPO\n  budget: 1k\n  curriculum { param: env.⟦arms⟧, from: 2, to: 9, advance: train.mean_return > 0.5 }\n}\n`,
      message: "env.arms changes the size of Bandit's observations or actions, which the policy cannot follow: a curriculum cannot move it",
    },
    {
      name: 'a curriculum of a whole-number parameter moves in whole steps',
      source: `${PRELUDE}experiment C {\n  env: Rooms\n  policy: Actor\n  algorithm: PPO\n  budget: 1k\n  eval { every: 500 }\n  curriculum { param: env.size, from: 5, to: 9, step: ⟦0.5⟧, advance: eval.success > 0.5 }\n}\n`,
      message: 'env.size is a whole number, so its curriculum moves in whole steps; found step 0.5',
    },
    {
      name: 'a number where true or false goes',
      source: 'algorithm A = PPO { clip_value: ⟦1⟧ }',
      message: 'clip_value expects true or false; found the number 1',
    },
    {
      name: 'a number where a list goes',
      source: 'policy P = mlp { hidden: ⟦64⟧ }',
      message: 'hidden expects a list of whole numbers, like [64, 64]; found the number 64',
    },
    {
      name: 'an option that does not exist, with "did you mean"',
      source: 'policy P = mlp { activation: ⟦tanhh⟧ }',
      message: "'tanhh' is not a valid activation; expected one of: tanh, relu; did you mean 'tanh'?",
      then: (found) => assert.equal(fixIsClean(found), 'policy P = mlp { activation: tanh }'),
    },
    {
      name: 'a fraction where a whole number goes, with a rounding fix',
      source: 'algorithm A = PPO { epochs: ⟦2.5⟧ }',
      message: 'epochs expects a whole number; found 2.5',
      then: (found) => assert.equal(applyFix(found, 'Round to 3'), 'algorithm A = PPO { epochs: 3 }'),
    },
    {
      name: 'text in reward arithmetic',
      source: 'reward R { term a = ⟦"x"⟧ + 1 }',
      message: 'text cannot be used in arithmetic; use a verifier such as exact(completion, target)',
    },
    {
      name: "an extractor's answer is text: alone it is no reward, and it takes no arithmetic",
      source: 'reward R {\n  term a = ⟦last_number(completion)⟧\n  term b = ⟦boxed(completion)⟧ * 2\n}\n',
      message: 'a reward term must be a number (or true/false, counted as 1/0); this is a string; check it with a verifier, such as numeric(last_number(completion), target)',
      also: [{ code: 'type-mismatch', message: 'text cannot be used in arithmetic; use a verifier such as exact(completion, target)' }],
    },
    {
      name: 'a number where an extractor takes text, at the argument',
      source: 'reward R { term a = numeric(last_number(⟦length(completion)⟧), target) }',
      message: "argument 's' of last_number must be text; found a number",
    },
    {
      name: 'a tag or a pattern that is not a "string" literal: the trainer reads it once, before training',
      source: 'reward R {\n  term a = exact(tagged(completion, ⟦target⟧), target)\n  term b = regex(completion, ⟦(target)⟧)\n}\n',
      message: 'argument \'tag\' of tagged must be a "string" literal such as "answer": it is read once, before training, not per completion',
      also: [{ code: 'type-mismatch', message: 'argument \'pattern\' of regex must be a "string" literal such as "^[0-9]+$": it is read once, before training, not per completion' }],
    },
    {
      name: 'a tag written with its brackets, or that is no tag name',
      source: 'reward R {\n  term a = exact(tagged(completion, ⟦"<answer>"⟧), target)\n  term b = length(tagged(completion, ⟦"my answer"⟧))\n}\n',
      message: 'argument \'tag\' of tagged: write the tag\'s name alone: "answer" reads <answer>...</answer>',
      also: [{ code: 'type-mismatch', message: /^argument 'tag' of tagged: "my answer" is not a tag name/ }],
    },
    {
      name: 'a stop rule that is not a condition',
      source: `${PRELUDE}${BALANCE.replace('budget: 10k', 'budget: 10k\n  stop: ⟦train.mean_return + 1⟧')}`,
      message: 'expected a condition that is true or false, such as `eval.mean_return >= 475`',
    },
    {
      name: 'a user module that is not code',
      source: 'env Mine = module(⟦"./mine.py"⟧) { }',
      message: 'module("./mine.py") must name a .ts or .js file',
    },
    {
      name: 'a swept property needs a list',
      source: `${PRELUDE}${BALANCE}sweep S over Balance {\n  algorithm.gamma: ⟦0.9⟧\n}\n`,
      message: 'a swept property takes a list of values, like algorithm.gamma: [a, b, c]',
    },
    {
      name: 'a list below its minimum length',
      source: 'policy P = mlp { hidden: ⟦[]⟧ }',
      message: 'hidden needs at least 1 item',
    },
    {
      // Written into an #SBATCH line, which bash reads too: the line after the break would run in every task.
      name: 'a Slurm setting with a line break',
      source: `${PRELUDE}${BALANCE}sweep S over Balance {\n  seeds: [1, 2]\n  backend: slurm\n  slurm { partition: ⟦"gpu\\n$(touch pwned)"⟧ }\n}\n`,
      message: 'slurm.partition is written into one line of the Slurm job script: it cannot hold a line break or a NUL character',
    },
    {
      name: 'a Slurm extra option with a line break',
      source: `${PRELUDE}${BALANCE}sweep S over Balance {\n  seeds: [1, 2]\n  backend: slurm\n  slurm { account: "lab", extra: ["--qos=long", ⟦"--x\\n\`touch pwned\`"⟧] }\n}\n`,
      message: 'slurm.extra is written into one line of the Slurm job script: it cannot hold a line break or a NUL character; write one sbatch option per string',
    },
  ],

  'out-of-range': [
    {
      name: 'a recurrent core under PPO whose minibatches do not divide envs: at minibatches, as train refuses it',
      source: `policy Memory = mlp { core: gru(8) }\nalgorithm P = PPO { minibatches: ⟦4⟧ }\nexperiment X { env: CartPoleNoVel, envs: 6, policy: Memory, algorithm: P, budget: 1k }\n`,
      message: 'PPO with a recurrent core splits each rollout into minibatches of whole env copies, so minibatches (4) must divide envs (6, experiment X); set minibatches to one of 1, 2, 3, 6, or envs to a multiple of 4',
    },
    {
      name: 'a recurrent core under the built-in PPO with the default envs: at the algorithm',
      source: `policy Memory = mlp { core: gru(8) }\nexperiment X { env: CartPoleNoVel, policy: Memory, algorithm: ⟦PPO⟧, budget: 1k }\n`,
      message: /^PPO with a recurrent core splits each rollout into minibatches of whole env copies, so minibatches \(4\) must divide envs \(1, experiment X\)/,
    },
    {
      name: 'a data file setting of the empty string: it names no file',
      source: 'algorithm Warm = SFT { data: ⟦""⟧ }\n',
      message: 'data expects the path of a file of demonstrations, one {"prompt", "target"} object a line, in double quotes; found the empty string',
    },
    {
      name: 'a GridWorld curriculum through sizes that cannot hold its fixed goal',
      source: `env Fixed = GridWorld { goal: fixed(8, 8) }\n${PRELUDE}experiment C {\n  env: Fixed\n  policy: Actor\n  algorithm: PPO\n  budget: 1k\n  eval { every: 500 }\n  curriculum { param: ⟦env.size⟧, from: 5, to: 11, step: 2, advance: eval.success > 0.5 }\n}\n`,
      message: "at env.size 5 the goal fixed(8, 8) is outside the 5x5 grid (coordinates run from 0 to 4): every size the curriculum reaches must hold env Fixed's fixed goal",
    },
    {
      name: 'a curriculum value outside its parameter\'s range',
      source: `${PRELUDE}experiment C {\n  env: Rooms\n  policy: Actor\n  algorithm: PPO\n  budget: 1k\n  eval { every: 500 }\n  curriculum { param: env.size, from: 5, to: ⟦201⟧, advance: eval.success > 0.5 }\n}\n`,
      message: 'to (env.size) must be >= 5 and <= 101; found 201',
    },
    {
      name: 'a sweep of 10^8 members, at its name, with the count (the plans are never made)',
      source: `${PRELUDE}${BALANCE}sweep ⟦Huge⟧ over Balance {\n${['algorithm.epochs', 'algorithm.minibatches', 'algorithm.rollout_steps', 'budget'].map((p) => `  ${p}: [${Array.from({ length: 100 }, (_, k) => k + 1).join(', ')}]\n`).join('')}}\n`,
      message: 'sweep Huge has 100,000,000 members (100 x 100 x 100 x 100 combinations); at most 1,000,000 are allowed: sweep fewer values, or draw some with strategy: random(samples: N)',
    },
    {
      name: 'parts of a reward term that are never finite',
      source: 'reward R {\n  term a = ⟦1 / 0⟧\n  term b = 0.1 * ⟦log(0)⟧ + obs.x\n  term c = ⟦obs.x / (2 - 2)⟧\n  term fine = log(1 + abs(obs.x)) / 2\n}\n',
      expect: [
        { code: 'out-of-range', message: '`1 / 0` is Infinity: a reward term must stay a finite number' },
        { code: 'out-of-range', message: '`log(0)` is -Infinity: a reward term must stay a finite number' },
        { code: 'out-of-range', message: '`obs.x / (2 - 2)` divides by zero: it is infinite or NaN whatever the env does' },
      ],
    },
    {
      name: 'gamma: 1.5 is an error with a clamp fix',
      source: 'algorithm A = PPO { gamma: ⟦1.5⟧ }',
      message: 'gamma must be >= 0 and <= 1; found 1.5',
      then: (found) => {
        assert.deepEqual(fixOf(found, 'Clamp to 1').edits, [{ range: found.file.marks[0], newText: '1' }]);
        assert.equal(fixIsClean(found), 'algorithm A = PPO { gamma: 1 }');
      },
    },
    {
      name: 'a negative value written as an expression',
      source: 'env A = CartPole { gravity: ⟦-9.8⟧ }',
      message: 'gravity must be > 0 and <= 100; found -9.8',
      then: (found) => assert.deepEqual(found.diagnostic.fixes, undefined, 'no clamp to an excluded bound'),
    },
    {
      name: 'a schedule end point out of range',
      source: 'algorithm A = DQN { epsilon: linear(1.0, ⟦-0.1⟧) }',
      message: 'epsilon must be >= 0 and <= 1; found -0.1',
    },
    {
      name: 'a transformer width that its heads do not divide',
      source: 'policy T = transformer { width: ⟦30⟧, heads: 4 }',
      message: 'width (30) must be a multiple of heads (4)',
    },
    {
      name: 'a GridWorld goal off the grid',
      source: 'env G = GridWorld { size: 7, goal: ⟦fixed(7, 1)⟧ }',
      message: 'the goal fixed(7, 1) is outside the 7x7 grid (coordinates run from 0 to 6); pick a free cell or goal: random',
    },
    {
      name: 'a GridWorld goal on a wall of its layout',
      source: 'env G = GridWorld { layout: four_rooms, goal: ⟦fixed(y: 0, x: 5)⟧ }',
      message: 'the goal fixed(5, 0) is a wall in the four_rooms layout of size 11; pick a free cell or goal: random',
    },
    {
      name: 'a GridWorld whose smaller size leaves its inherited goal off the grid, at the size',
      source: 'env G = GridWorld { size: 9, goal: fixed(7, 7) }\nenv Small = G { size: ⟦5⟧ }',
      message: 'the goal fixed(7, 7) is outside the 5x5 grid (coordinates run from 0 to 4); pick a free cell or goal: random',
    },
  ],

  'suspicious-value': [
    {
      name: 'a regex escape written with one backslash, which an rlx string drops: at the pattern',
      source: 'reward R {\n  term a = regex(completion, ⟦"^\\d+\\.$"⟧)\n  term b = regex(completion, "^\\\\d+\\n\\"$")\n}\n',
      severity: 'warning',
      message: "in argument 'pattern' of regex, `\\d` is just 'd' in an rlx string; for the regular expression's `\\d`, write `\\\\d`",
    },
    {
      name: "max_new_tokens above the env's max_tokens, which the trainer clamps: at the value",
      source: `${PRELUDE}algorithm Long = GRPO { max_new_tokens: ⟦32⟧ }\nexperiment E { env: Arith, policy: Tiny, algorithm: Long, budget: 1k }\n`,
      severity: 'warning',
      message: "max_new_tokens is 32, but Arith's max_tokens is 8 (experiment E): completions stop at 8 tokens; raise max_tokens on the env or lower max_new_tokens",
    },
    {
      name: "a stage left at max_new_tokens' default below the env's stated max_tokens, which cuts its completions: at the stage's learner",
      source: `${PRELUDE}env Long = TextTask { task: addition(digits: 1), max_tokens: 16 }\nexperiment E {\n  env: Long\n  policy: Tiny\n  stage main = ⟦GRPO⟧ { budget: 1k }\n}\n`,
      severity: 'warning',
      message: "stage main samples at most 8 tokens (max_new_tokens' default), but Long's max_tokens is 16 (experiment E): its completions are cut at 8 tokens; set max_new_tokens (up to 16) on it",
    },
    {
      name: "an experiment's algorithm left at max_new_tokens' default below the env's stated max_tokens: at the algorithm",
      source: `${PRELUDE}env Long = TextTask { task: addition(digits: 1), max_tokens: 16 }\nalgorithm G = GRPO { group_size: 4 }\nexperiment E { env: Long, policy: Tiny, algorithm: ⟦G⟧, budget: 1k }\n`,
      severity: 'warning',
      message: /^algorithm G samples at most 8 tokens \(max_new_tokens' default\), but Long's max_tokens is 16/,
    },
    {
      name: "a built-in algorithm at max_new_tokens' default below the env's stated max_tokens: says how to declare one",
      source: `${PRELUDE}env Long = TextTask { task: addition(digits: 1), max_tokens: 16 }\nexperiment E { env: Long, policy: Tiny, algorithm: ⟦GRPO⟧, budget: 1k }\n`,
      severity: 'warning',
      message: /its completions are cut at 8 tokens; declare it with one: `algorithm Long = GRPO \{ max_new_tokens: 16 \}`$/,
    },
    {
      name: "max_new_tokens in a stage, against an env's own max_tokens",
      source: `${PRELUDE}env Short = TextTask { task: addition(digits: 1), max_tokens: 4 }\nexperiment E {\n  env: Short\n  policy: Tiny\n  stage main = GRPO { budget: 1k, max_new_tokens: ⟦6⟧ }\n}\n`,
      severity: 'warning',
      message: /^max_new_tokens is 6, but Short's max_tokens is 4 \(experiment E\)/,
    },
    {
      name: "eval.episodes on a text env, which answers each held-out prompt once, greedily: at the value",
      source: `${PRELUDE}experiment E {\n  env: Arith\n  policy: Tiny\n  algorithm: GRPO\n  budget: 1k\n  eval { every: 100, episodes: ⟦40⟧ }\n}\n`,
      severity: 'warning',
      message: 'eval.episodes is not used on TextTask, a text env: each evaluation answers every one of its held-out prompts once, greedily (a repeated one gets the same answer); remove episodes',
    },
    {
      name: 'eval.deterministic: false on a dialogue env, which evaluates greedily',
      source: `${PRELUDE}experiment E {\n  env: GuessNumber\n  policy: Tiny\n  algorithm: GRPO\n  budget: 1k\n  eval { every: 100, deterministic: ⟦false⟧ }\n}\n`,
      severity: 'warning',
      message: 'eval.deterministic is not used on GuessNumber, a text env: its held-out dialogues are always answered greedily; remove deterministic',
    },
    {
      name: 'eval.episodes on an observation env: no warning',
      run: () => {
        const checked = check(`${PRELUDE}experiment E {\n  env: Rooms\n  policy: Actor\n  algorithm: PPO\n  budget: 1k\n  eval { every: 100, episodes: 40, deterministic: false }\n}\n`);
        assert.deepEqual(checked.all.filter((d) => d.code === 'suspicious-value'), []);
      },
    },
    {
      name: 'a GRPO KL setting without a KL penalty (kl_coef 0): at the setting',
      source: 'algorithm G = GRPO { kl_coef: 0, kl_in_reward: ⟦true⟧ }\n',
      severity: 'warning',
      message: 'kl_in_reward has no effect: kl_coef is 0, so there is no KL penalty; set kl_coef above 0 with reference: initial, or remove kl_in_reward',
    },
    {
      name: 'a GRPO KL estimator without a reference, inherited from a base: at the estimator',
      source: 'algorithm Base = GRPO { reference: none }\nalgorithm G = Base { kl_estimator: ⟦k1⟧ }\n',
      severity: 'warning',
      message: 'kl_estimator has no effect: reference is none, so there is no KL penalty; set kl_coef above 0 with reference: initial, or remove kl_estimator',
    },
    {
      name: 'GRPO clip_high with one gradient step per batch (iterations 1): at the setting',
      source: 'algorithm G = GRPO { clip_high: ⟦0.28⟧ }\n',
      severity: 'warning',
      message: 'clip_high has no effect: with iterations 1 each batch takes one gradient step, where the ratio pi/pi_old is 1 and the clip never acts; set iterations above 1 (GRPO\'s mu), or remove clip_high',
    },
    {
      name: 'GRPO clip with iterations 1 from a base: at the clip',
      source: 'algorithm Base = GRPO { iterations: 1 }\nalgorithm G = Base { clip: ⟦0.1⟧ }\n',
      severity: 'warning',
      message: /^clip has no effect: with iterations 1/,
    },
    {
      name: 'GRPO clip and clip_high with iterations 2: no warning',
      run: () => {
        const checked = check('algorithm G = GRPO { iterations: 2, clip: 0.1, clip_high: 0.28 }\n');
        assert.deepEqual(checked.all.filter((d) => d.code === 'suspicious-value'), []);
      },
    },
    {
      name: 'GRPO KL settings with a KL penalty: no warning',
      run: () => {
        const checked = check('algorithm G = GRPO { kl_coef: 0.1, kl_estimator: k2, kl_in_reward: true }\nalgorithm H = GRPO { kl_coef: 0, kl_in_reward: false }\n');
        assert.deepEqual(checked.all.filter((d) => d.code === 'suspicious-value'), []);
      },
    },
    {
      name: 'credit: turn on a single-turn TextTask, which has one turn per sample: at the value',
      source: `${PRELUDE}algorithm G = GRPO { credit: ⟦turn⟧ }\nexperiment E { env: Arith, policy: Tiny, algorithm: G, budget: 1k }\n`,
      severity: 'warning',
      message: 'credit: turn has no effect: Arith (TextTask) is single-turn: each sample is one turn, whose return-to-go is its reward (experiment E); it applies to dialogues (GuessNumber, a text module): remove it or use credit: episode',
    },
    {
      name: 'credit: turn in a REINFORCE stage on a numeric env: at the value',
      source: `${PRELUDE}experiment E {\n  env: Pole\n  policy: Actor\n  stage main = REINFORCE { budget: 1k, credit: ⟦turn⟧ }\n}\n`,
      severity: 'warning',
      message: /^credit: turn has no effect: Pole \(CartPole\) is not a text dialogue/,
    },
    {
      name: 'credit: turn on a dialogue (GuessNumber), or credit: episode on a TextTask: no warning',
      run: () => {
        const checked = check(`${PRELUDE}env Guess = GuessNumber { max_turns: 7 }\nalgorithm G = GRPO { credit: turn }\nalgorithm H = GRPO { credit: episode }\nexperiment E { env: Guess, policy: Tiny, algorithm: G, budget: 1k }\nexperiment F { env: Arith, policy: Tiny, algorithm: H, budget: 1k }\n`);
        assert.deepEqual(checked.all.filter((d) => d.code === 'suspicious-value'), []);
      },
    },
    {
      name: 'GRPO sft_coef without sft_data: at the setting',
      source: 'algorithm G = GRPO { sft_coef: ⟦linear(0.5, 0)⟧ }\n',
      severity: 'warning',
      message: 'sft_coef has no effect: there is no sft_data, so no demonstrations to learn from; set sft_data to demos or a JSONL file\'s path, or remove sft_coef',
    },
    {
      name: 'GRPO sft_batch_size with sft_data none: at the setting',
      source: 'algorithm G = GRPO { sft_data: none, sft_batch_size: ⟦8⟧ }\n',
      severity: 'warning',
      message: 'sft_batch_size has no effect: there is no sft_data, so no demonstrations to learn from; set sft_data to demos or a JSONL file\'s path, or remove sft_batch_size',
    },
    {
      name: 'GRPO sft_coef with sft_data (here or in a base): no warning',
      run: () => {
        const checked = check('algorithm G = GRPO { sft_data: demos, sft_coef: 0.5, sft_batch_size: 8 }\nalgorithm H = G { sft_coef: 0.2 }\n');
        assert.deepEqual(checked.all.filter((d) => d.code === 'suspicious-value'), []);
      },
    },
    {
      name: 'max_new_tokens within max_tokens: no warning',
      run: () => {
        const checked = check(`${PRELUDE}env Long = TextTask { task: addition(digits: 2), max_tokens: 32 }\nalgorithm G = GRPO { max_new_tokens: 32 }\nexperiment E { env: Long, policy: Tiny, algorithm: G, budget: 1k }\n`);
        assert.deepEqual(checked.all.filter((d) => d.code === 'suspicious-value'), []);
      },
    },
    {
      name: 'a curriculum advance over eval metrics in an experiment without evaluations',
      source: `${PRELUDE}experiment C {\n  env: Rooms\n  policy: Actor\n  algorithm: PPO\n  budget: 1k\n  curriculum { param: env.size, from: 5, to: 9, advance: ⟦eval.success > 0.5 or steps > 1k⟧ }\n}\n`,
      severity: 'warning',
      message: 'advance reads eval.success, which has no value without an `eval { every: N }` block: the curriculum would never advance; add one, or test train.* metrics',
    },
    {
      name: 'a stop condition over eval metrics in an experiment without evaluations (issue 43 item 18)',
      source: `${PRELUDE}experiment S {\n  env: Pole\n  policy: Actor\n  algorithm: PPO\n  budget: 1k\n  stop: ⟦eval.mean_return >= 475 or eval.mean_return < -1⟧\n}\n`,
      severity: 'warning',
      message: 'stop reads eval.mean_return, which has no value without an `eval { every: N }` block: the run would never stop early and train its whole budget; add one, or test train.* metrics',
    },
    {
      name: 'a stop condition over eval metrics with an eval block, or over train metrics: no warning',
      run: () => {
        for (const body of ['eval { every: 500 }, stop: eval.mean_return >= 475', 'stop: train.mean_return >= 475 or steps > 500']) {
          const checked = check(`${PRELUDE}experiment S { env: Pole, policy: Actor, algorithm: PPO, budget: 1k, ${body} }\n`);
          assert.deepEqual(checked.all.filter((d) => d.code === 'suspicious-value'), [], body);
        }
      },
    },
    {
      name: 'a sweep of more than 10k members, at its name',
      source: `${PRELUDE}${BALANCE}sweep ⟦Wide⟧ over Balance {\n  algorithm.epochs: [${Array.from({ length: 200 }, (_, k) => k + 1).join(', ')}]\n  budget: [${Array.from({ length: 100 }, (_, k) => k + 1).join(', ')}]\n}\n`,
      severity: 'warning',
      message: 'sweep Wide has 20,000 members (200 x 100 combinations): each is a training run; is that meant? strategy: random(samples: N) draws fewer',
    },
    {
      name: 'a random sweep counts its samples, not the grid it draws from',
      source: `${PRELUDE}${BALANCE}sweep ⟦Drawn⟧ over Balance {\n  strategy: random(samples: 20000)\n  algorithm.epochs: [${Array.from({ length: 200 }, (_, k) => k + 1).join(', ')}]\n  budget: [${Array.from({ length: 1000 }, (_, k) => k + 1).join(', ')}]\n}\n`,
      severity: 'warning',
      message: /^sweep Drawn has 20,000 members/,
    },
    {
      name: 'learning_rate: 0.5 is a warning',
      source: 'algorithm A = PPO { learning_rate: ⟦0.5⟧ }',
      severity: 'warning',
      message: 'learning_rate = 0.5 is unusual: learning rates above 0.1 usually make training diverge',
    },
    {
      name: 'a short-sighted discount',
      source: 'algorithm A = DQN { gamma: ⟦0.5⟧ }',
      severity: 'warning',
      message: 'gamma = 0.5 is unusual: a discount below 0.8 makes the agent very short-sighted',
    },
    {
      name: 'a learning rate that is 0 throughout its schedule',
      source: 'algorithm A = PPO { learning_rate: ⟦constant(0)⟧, clip: ⟦linear(0, 0)⟧ }',
      severity: 'warning',
      expect: [
        { code: 'suspicious-value', severity: 'warning', message: 'learning_rate is 0 for the whole run with this schedule, so it has no effect; it must be above 0 at some point' },
        { code: 'suspicious-value', severity: 'warning', message: 'clip is 0 for the whole run with this schedule, so it has no effect; it must be above 0 at some point' },
      ],
    },
  ],

  'invalid-base': [
    {
      name: 'an env without a base',
      source: 'env ⟦E⟧ { max_steps: 5 }',
      message: 'an env needs a base: CartPole, CartPoleNoVel, MountainCar, Acrobot, Pendulum, GridWorld, Bandit, FreeSlots, Catch, InvertedPendulum, InvertedDoublePendulum, HalfCheetah, Hopper, Walker2d, Swimmer, Ant, Reacher, Pusher, Humanoid, TextTask, GuessNumber, module("./file.ts"), gymnasium("CartPole-v1"), python("./env.py:MyEnv"), python_text("./env.py:MyTextEnv") or another env, as in `env E = CartPole { }`',
    },
    {
      name: 'user code for something other than an env',
      source: 'policy P = ⟦module("./p.ts")⟧ { }',
      message: 'only environments and algorithms can come from user code with module(...); a policy cannot',
    },
    {
      name: 'a qualified base',
      source: 'env E = ⟦gym.CartPole⟧ { }',
      message: 'a base is a single name',
    },
    {
      name: "'over' outside a sweep",
      source: `${PRELUDE}${BALANCE}experiment ⟦E⟧ over ⟦Balance⟧ { }`,
      expect: [
        { code: 'missing-property', message: "experiment E needs 'env' and 'policy'" },
        { code: 'invalid-base', message: "'over' is for sweeps; an experiment inherits with '= Base'" },
      ],
    },
    {
      name: "a sweep written with '='",
      source: `${PRELUDE}${BALANCE}sweep ⟦S⟧ = ⟦Balance⟧ { }`,
      expect: [
        { code: 'missing-property', message: 'sweep S needs the experiment it varies' },
        { code: 'invalid-base', message: 'a sweep is written `sweep Name over Experiment { ... }`' },
      ],
    },
  ],

  'inheritance-cycle': [
    {
      name: 'two declarations inheriting from each other: both are reported',
      source: 'algorithm A = ⟦B⟧ { }\nalgorithm B = ⟦A⟧ { }\n',
      message: 'inheritance cycle: A -> B -> A',
      also: [{ code: 'inheritance-cycle', message: 'inheritance cycle: B -> A -> B' }],
    },
    {
      name: 'a declaration inheriting from itself',
      source: 'experiment E = ⟦E⟧ { }',
      message: 'inheritance cycle: E -> E',
    },
    {
      name: 'a cycle across files (which import each other, a cycle too)',
      source: {
        'main.rlx': 'import ⟦"./base.rlx"⟧\nalgorithm A = ⟦B⟧ { }\n',
        'base.rlx': 'import ⟦"./main.rlx"⟧\nalgorithm B = ⟦A⟧ { }\n',
      },
      expect: [
        { code: 'import-cycle', message: 'import cycle: main.rlx -> base.rlx -> main.rlx' },
        { code: 'inheritance-cycle', message: 'inheritance cycle: A -> B -> A' },
        { code: 'import-cycle', message: 'import cycle: base.rlx -> main.rlx -> base.rlx' },
        { code: 'inheritance-cycle', message: 'inheritance cycle: B -> A -> B' },
      ],
    },
    {
      name: 'only the members of a loop are reported, not what inherits from it',
      source: 'algorithm A = ⟦B⟧ { }\nalgorithm B = ⟦A⟧ { }\nalgorithm C = A { }\n',
      message: 'inheritance cycle: A -> B -> A',
      also: [{ code: 'inheritance-cycle', message: 'inheritance cycle: B -> A -> B' }],
    },
  ],

  'import-cycle': [
    {
      name: 'two files importing each other',
      source: {
        'main.rlx': 'import ⟦"./other.rlx"⟧\n',
        'other.rlx': 'import ⟦"./main.rlx"⟧\n',
      },
      message: 'import cycle: main.rlx -> other.rlx -> main.rlx',
      also: [{ code: 'import-cycle', message: 'import cycle: other.rlx -> main.rlx -> other.rlx' }],
    },
    {
      name: 'a file importing itself',
      source: 'import ⟦"./main.rlx"⟧\n',
      message: 'a file cannot import itself',
    },
    {
      name: 'a longer loop, reported in every file of it',
      source: {
        'main.rlx': 'import ⟦"./a.rlx"⟧\n',
        'a.rlx': 'import ⟦"./b.rlx"⟧\n',
        'b.rlx': 'import ⟦"./main.rlx"⟧\n',
      },
      message: 'import cycle: main.rlx -> a.rlx -> b.rlx -> main.rlx',
      also: [
        { code: 'import-cycle', message: 'import cycle: a.rlx -> b.rlx -> main.rlx -> a.rlx' },
        { code: 'import-cycle', message: 'import cycle: b.rlx -> main.rlx -> a.rlx -> b.rlx' },
      ],
    },
  ],

  'import-not-found': [
    {
      name: 'a file that does not exist',
      source: `import ⟦"./nope.rlx"⟧\n${PRELUDE}`,
      message: "cannot read './nope.rlx' (looked for nope.rlx next to this file)",
    },
    {
      name: 'an empty path',
      source: 'import ⟦""⟧\n',
      message: 'an import needs a file path, such as import "./envs.rlx"',
    },
  ],

  'module-not-found': [
    {
      name: 'a module file that does not exist, at its path',
      source: 'env Mine = module(⟦"./nowhere.ts"⟧)\n',
      message: /^cannot read '\.\/nowhere\.ts' \(looked for \/.*nowhere\.ts\); module\("\.\.\."\) paths are relative to this file$/,
    },
  ],

  'python-env-probe-failed': [
    {
      name: 'a probe of a gymnasium(...) env that failed: a warning at the base, with Python\'s last line (more in check/python-env-facts.test.ts)',
      source: 'env Cart = ⟦gymnasium("CartPole-v9")⟧\n',
      severity: 'warning',
      message: /^probing gymnasium\("CartPole-v9"\) failed, so its observation names and action kind are not checked; training would fail the same way: gymnasium\.error\.VersionNotFound/,
      analyze: { pythonEnvs: { lookup: () => ({ kind: 'failed', message: 'gymnasium.error.VersionNotFound: Environment version `v9` for environment `CartPole` doesn\'t exist.' }) } },
    },
  ],

  'image-observations': [
    {
      name: 'a probed env that observes uint8 pixels: a warning at the base that points to the cnn policy (issue 43 item 21, issue 44)',
      source: 'env Car = ⟦gymnasium("CarRacing-v2")⟧\n',
      severity: 'warning',
      message: "gymnasium(\"CarRacing-v2\") observes an image: uint8 pixels of shape 96x96x3, which an mlp policy takes flattened and unscaled (0-255); use a cnn policy (`policy Eyes = cnn { encoder: impala }`), which reads it as an image scaled to [0, 1]",
      analyze: { pythonEnvs: { lookup: () => ({ kind: 'facts', observationNames: [], observationShape: [96, 96, 3], action: { kind: 'continuous', dims: 3 }, maxSteps: 1000, goalConditioned: false, image: { key: '', shape: [96, 96, 3] } }) } },
    },
  ],

  'model-not-found': [
    {
      name: 'a pretrained model folder that does not exist, at its path (more in pretrained.test.ts)',
      run: () => void expectPretrained('policy Base = pretrained(⟦"./models/Qwen3-0.6B"⟧)\n', [{ code: 'model-not-found', message: /^cannot find the model folder '\.\/models\/Qwen3-0\.6B'/ }]),
    },
  ],

  'invalid-model': [
    {
      name: 'a folder that is not a model folder: no config.json (more in pretrained.test.ts)',
      run: () => void expectPretrained(`policy Base = pretrained(⟦"${written(HF_TINY)}"⟧)\n`, [{ code: 'invalid-model', message: /^cannot read the model config .*config\.json/ }]),
    },
  ],

  'exceeds-memory': [
    {
      name: 'a run whose estimate passes the free memory, at the experiment\'s policy (more in pretrained.test.ts)',
      run: () => void expectPretrained(`policy Base = ${tiny('qwen2')}\nenv Arith = TextTask\nexperiment E { env: Arith, policy: ⟦Base⟧, algorithm: GRPO, budget: 1k }\n`,
        [{ code: 'exceeds-memory', severity: 'warning', message: /^this run needs about / }], 1024),
    },
  ],

  'dataset-not-found': [
    {
      name: 'a dataset file that does not exist, at its path',
      source: 'env Sums = TextTask { task: dataset(⟦"./nope.jsonl"⟧) }\n',
      message: `cannot read './nope.jsonl': no such file (looked for nope.jsonl); dataset("...") paths are relative to this file`,
    },
    {
      name: 'a path out of the folder of the spec: refused without reading it',
      source: 'env Sums = TextTask { task: dataset(⟦"../../../etc/passwd"⟧) }\n',
      message: "'../../../etc/passwd' is outside the folder of this file; dataset paths stay inside it: copy the file there (or link to it from there)",
    },
    {
      name: 'a GRPO sft_data file that does not exist, at its path',
      source: 'algorithm G = GRPO { sft_data: ⟦"./demos.jsonl"⟧ }\n',
      message: `cannot read './demos.jsonl': no such file (looked for demos.jsonl); sft_data paths are relative to this file`,
    },
    {
      name: 'an SFT data file that does not exist, in an experiment\'s stage: at its path',
      source: `${PRELUDE}experiment S {\n  env: Arith\n  policy: Tiny\n  stage warm = SFT { updates: 10, data: ⟦"pairs.jsonl"⟧ }\n}\n`,
      message: `cannot read 'pairs.jsonl': no such file (looked for pairs.jsonl); data paths are relative to this file`,
    },
  ],

  'invalid-dataset': [
    {
      name: 'a line without the field the task needs: the line, what is missing, the shape of a line',
      source: { 'main.rlx': 'env Sums = TextTask { task: dataset(⟦"./sums.jsonl"⟧) }\n', 'sums.jsonl': '{"prompt": "1+1=", "target": "2"}\n{"prompt": "1+2="}\n' },
      roots: ['main.rlx'],
      message: './sums.jsonl line 2: no "target" field; each line must be one JSON object like {"prompt": "12+34=", "target": "46"}',
    },
    {
      name: 'a line that is not JSON: its number, never its text',
      source: { 'main.rlx': 'env Sums = TextTask { task: dataset(⟦"./sums.jsonl"⟧) }\n', 'sums.jsonl': 'root:x:0:0:root:/root:/bin/bash\n' },
      roots: ['main.rlx'],
      message: './sums.jsonl line 1: not valid JSON; each line must be one JSON object like {"prompt": "12+34=", "target": "46"}',
    },
    {
      name: 'a GRPO sft_data file with a line that is not a demonstration: the line, as dataset("...") files',
      source: { 'main.rlx': 'algorithm G = GRPO { sft_data: ⟦"./demos.jsonl"⟧, sft_coef: 0.1 }\n', 'demos.jsonl': '{"prompt": "1+1=", "target": "2"}\n{"prompt": 3, "target": "2"}\n' },
      roots: ['main.rlx'],
      message: './demos.jsonl line 2: "prompt" must be a string, got a number; each line must be one JSON object like {"prompt": "12+34=", "target": "46"}',
    },
    {
      name: 'an SFT data file with a line that is not a demonstration: the file and the line',
      source: { 'main.rlx': 'algorithm Warm = SFT { data: ⟦"pairs.jsonl"⟧ }\n', 'pairs.jsonl': '{"prompt": "1+1=", "target": "2"}\n\n{"prompt": "1+2=", "answer": "3"}\n' },
      roots: ['main.rlx'],
      message: 'pairs.jsonl line 3: no "target" field; each line must be one JSON object like {"prompt": "12+34=", "target": "46"}',
    },
  ],

  'invalid-module-spec': [
    {
      name: 'a goal-conditioned spec whose goal is not among its observations',
      source: { 'main.rlx': 'env Mine = module(⟦"./mine.ts"⟧)\n', 'mine.ts': "export default class {}\nexport const spec = { observations: ['x', 'gx'], actions: 'discrete', goal: ['g'], achieved: ['x'] };\n" },
      roots: ['main.rlx'],
      message: "./mine.ts:2: spec.goal names 'g', which is not among spec.observations (x, gx) (docs/language.md#user-environments)",
    },
    {
      name: 'a spec that is not valid: at the module path, with the line in the module',
      source: { 'main.rlx': 'env Mine = module(⟦"./mine.ts"⟧)\n', 'mine.ts': "export default class {}\nexport const spec = { observations: ['x'], actions: 'discrte' };\n" },
      roots: ['main.rlx'],
      message: `./mine.ts:2: spec.actions must be 'discrete', 'continuous', 'multibinary' or 'text', not "discrte" (docs/language.md#user-environments)`,
    },
    {
      name: 'a spec that is not a literal (rlx does not run user code to check it)',
      source: { 'main.rlx': 'env Mine = module(⟦"./mine.ts"⟧)\n', 'mine.ts': "const FIELDS = ['x'];\nexport const spec = {\n  observations: FIELDS,\n  actions: 'discrete',\n};\n" },
      roots: ['main.rlx'],
      message: './mine.ts:3: rlx reads spec without running the module, so it must be written out as a literal: found FIELDS (docs/language.md#user-environments)',
    },
    {
      name: 'a misspelt key of the spec',
      source: { 'main.rlx': 'env Mine = module(⟦"./mine.ts"⟧)\n', 'mine.ts': "export const spec = { observation: ['x'], actions: 'discrete' };\n" },
      roots: ['main.rlx'],
      message: "./mine.ts:1: spec has no key 'observation'; its keys are observations, actions, info, goal, achieved (docs/language.md#user-environments)",
    },
  ],

  'undeclared-module-spec': [
    {
      name: 'a module without a spec: a hint, not a problem',
      source: { 'main.rlx': 'env Mine = module(⟦"./mine.js"⟧)\n', 'mine.js': 'export default class {}\n' },
      roots: ['main.rlx'],
      severity: 'info',
      message: /^\.\/mine\.js does not declare its names, so reward terms are checked against them only when training starts; add `export const spec = /,
    },
  ],

  'incompatible-env': [
    {
      name: 'a file of demonstrations on a dialogue env: at the file, with the trainer\'s reason',
      source: { 'main.rlx': `${PRELUDE}algorithm Mixed = GRPO { sft_data: ⟦"pairs.jsonl"⟧ }\nexperiment E {\n  env: GuessNumber\n  policy: Tiny\n  stage warm = SFT { updates: 10, data: ⟦"pairs.jsonl"⟧ }\n  stage rl = Mixed { budget: 1k }\n}\n`, 'pairs.jsonl': '{"prompt": "1+1=", "target": "2"}\n' },
      roots: ['main.rlx'],
      message: 'GRPO sft_data "pairs.jsonl": a file of {"prompt", "target"} demonstrations needs a TextTask env (its tokens and layout); for this env use sft_data: demos (experiment E, env GuessNumber)',
      also: [{ code: 'incompatible-env', message: 'SFT data "pairs.jsonl": a file of {"prompt", "target"} demonstrations needs a TextTask env (its tokens and layout); for this env use data: demos (experiment E, env GuessNumber)' }],
    },
    {
      name: 'a curriculum on a text task',
      source: `${PRELUDE}experiment C {\n  env: Arith\n  policy: Tiny\n  algorithm: GRPO\n  budget: 1k\n  eval { every: 500 }\n  curriculum { param: ⟦env.max_tokens⟧, from: 2, to: 4, advance: eval.accuracy > 0.5 }\n}\n`,
      message: 'a curriculum moves a parameter of an observation env; TextTask is a text task, whose parameters fix its token model: remove the curriculum',
    },
    {
      name: 'an mlp policy on a module that declares itself a text env',
      source: {
        'main.rlx': 'env Tool = module("./tool.ts")\npolicy Actor = mlp { hidden: [64] }\nexperiment X { env: Tool, policy: ⟦Actor⟧, algorithm: REINFORCE, budget: 1k }\n',
        'tool.ts': TOOL_TS,
      },
      roots: ['main.rlx'],
      message: /an mlp cannot read or write text; use transformer/,
    },
    {
      name: 'an algorithm for discrete actions on a module that declares continuous ones',
      source: {
        'main.rlx': WALK.replace('algorithm: Tuned', 'algorithm: ⟦DQN⟧').replace('  reward: R\n', ''),
        'walk.ts': WALK_TS.replace("actions: 'discrete'", "actions: 'continuous'"),
      },
      roots: ['main.rlx'],
      message: /^DQN cannot train on Walk \(module\("\.\/walk\.ts"\)\): it needs discrete actions, and module\("\.\/walk\.ts"\) has continuous actions/,
    },
    {
      name: 'an algorithm without a policy over bits on a module that declares MultiBinary actions',
      source: {
        'main.rlx': WALK.replace('algorithm: Tuned', 'algorithm: ⟦SAC⟧').replace('  reward: R\n', ''),
        'walk.ts': WALK_TS.replace("actions: 'discrete'", "actions: 'multibinary'"),
      },
      roots: ['main.rlx'],
      message: /^SAC cannot train on Walk \(module\("\.\/walk\.ts"\)\): it needs discrete or continuous actions, and module\("\.\/walk\.ts"\) has multibinary actions; algorithms that fit: PPO, REINFORCE$/,
    },
    {
      name: 'DQN on continuous Pendulum, at the algorithm',
      source: `${PRELUDE}experiment X {\n  env: Swing\n  policy: Actor\n  algorithm: ⟦DQN⟧\n  budget: 10k\n}\n`,
      message: 'DQN cannot train on Swing (Pendulum): it needs discrete actions, and Pendulum has continuous actions; algorithms that fit: PPO, SAC, REINFORCE',
    },
    {
      name: 'a cnn policy on an env of vectors, at the policy',
      source: `${PRELUDE}policy Eyes = cnn { encoder: impala }\n${BALANCE.replace('policy: Actor', 'policy: ⟦Eyes⟧')}`,
      message: 'a cnn policy reads images [C, H, W], but Pole (CartPole) observes vectors of 4 numbers (x, x_dot, theta, theta_dot); use mlp, or an env with image observations (Catch, or a Python env whose observation is a Box of uint8 pixels)',
    },
    {
      name: 'the nature encoder on images smaller than 36x36 (Catch\'s default 16)',
      source: 'env Board = Catch {}\npolicy Eyes = cnn { hidden: [64] }\nexperiment X { env: Board, policy: ⟦Eyes⟧, algorithm: PPO, budget: 1k }\n',
      message: 'the cnn policy\'s nature encoder needs images of at least 36x36 (its strides 4 and 2), but Board (Catch) observes 16x16: use encoder: impala, or size: 36 or more',
    },
    {
      name: 'a transformer on a non-text env',
      source: `${PRELUDE}${BALANCE.replace('policy: Actor', 'policy: ⟦Tiny⟧')}`,
      message: 'a transformer policy reads text, but Pole (CartPole) has discrete actions; use mlp',
    },
    {
      name: 'an mlp on a text task',
      source: `${PRELUDE}experiment X { env: Arith, policy: ⟦Actor⟧, algorithm: GRPO, budget: 1k }\n`,
      message: 'Arith (TextTask) is a text task; an mlp cannot read or write text; use transformer',
    },
    {
      name: 'relabeling on an env without goals',
      source: `${PRELUDE}algorithm Her = DQN { relabel: future(k: 4) }\nexperiment X { env: Pole, policy: Actor, algorithm: ⟦Her⟧, budget: 1k }\n`,
      message: 'Her relabels goals (relabel: future), but Pole (CartPole) is not goal-conditioned; use GridWorld or set relabel: none',
    },
    {
      name: 'action masks on an env of continuous actions, at the value',
      source: `${PRELUDE}algorithm Masked = SAC { action_mask: ⟦on⟧ }\nexperiment X { env: Swing, policy: Actor, algorithm: Masked, budget: 1k }\n`,
      message: 'action_mask is on, but Swing (Pendulum) has continuous actions, and action masks are for discrete actions; set action_mask: auto or off',
    },
    {
      name: 'action masks on a built-in env that gives none, at the value',
      source: `${PRELUDE}algorithm Masked = PPO { action_mask: ⟦on⟧ }\nexperiment X { env: Pole, policy: Actor, algorithm: Masked, budget: 1k }\n`,
      message: 'action_mask is on, but Pole (CartPole) gives no action masks (info["action_mask"] at reset and step); set action_mask: auto or off',
    },
    {
      name: "an inherited algorithm that does not fit the child's env: at the child's env, in the child's file",
      source: {
        'main.rlx': 'import "./base.rlx"\nenv Swing = Pendulum {}\nexperiment Swung = Balance { env: ⟦Swing⟧ }\n',
        'base.rlx': `${PRELUDE.replace('env Swing = Pendulum { max_steps: 200 }\n', '')}${BALANCE.replace('algorithm: Tuned', 'algorithm: DQN')}`,
      },
      message: /^DQN cannot train on Swing \(Pendulum\)/,
    },
    {
      name: "an inherited stage that does not fit the child's env",
      source: {
        'main.rlx': 'import "./base.rlx"\nexperiment Other = Sums { env: ⟦Pole⟧, policy: Actor }\n',
        'base.rlx': `${PRELUDE}experiment Sums { env: Arith, policy: Tiny, stage main = GRPO { budget: 1k } }\n`,
      },
      message: /^GRPO cannot train on Pole \(CartPole\)/,
    },
    {
      name: 'a stage whose algorithm does not fit the env',
      source: `${PRELUDE}experiment X {\n  env: Pole\n  policy: Actor\n  stage main = ⟦GRPO⟧ { budget: 1k }\n}\n`,
      message: /^GRPO cannot train on Pole \(CartPole\): it needs text actions/,
    },
  ],

  'unknown-field': [
    {
      name: "an observation field the paired env lacks: in the reward's file, at the field",
      source: {
        'main.rlx': `import "./rewards.rlx"\n${PRELUDE}${BALANCE.replace('budget: 10k', 'budget: 10k\n  reward: Upright')}`,
        'rewards.rlx': 'reward Upright {\n  term tilt = -abs(obs.⟦thet⟧)\n}\n',
      },
      message: 'Pole (CartPole) has no observation field \'thet\'; its fields are: x, x_dot, theta, theta_dot; did you mean \'theta\'?',
      then: (found) => {
        assert.equal(found.diagnostic.file, virtualPath('rewards.rlx'));
        const main = found.checked.file('main.rlx');
        const at = main.text.indexOf('env: Pole') + 'env: '.length;
        assert.deepEqual(found.diagnostic.related, [{ file: main.path, range: { start: at, end: at + 4 }, message: 'paired with env Pole in experiment Balance' }]);
        assert.equal(fixIsClean(found), 'reward Upright {\n  term tilt = -abs(obs.theta)\n}\n');
      },
    },
    {
      name: 'text names with a non-text env',
      source: `${PRELUDE}reward R { term a = ⟦exact⟧(⟦completion⟧, "4") }\n${BALANCE.replace('budget: 10k', 'budget: 10k, reward: R')}`,
      message: "'exact' checks text, but Pole (CartPole) is not a text task",
      also: [{ code: 'unknown-field', message: "'completion' is not available with Pole (CartPole): only text envs have it" }],
    },
    {
      name: 'a dialogue has no target; a single-turn task has no reply or env_reward',
      source: `${PRELUDE}env Guess = GuessNumber {}\nreward R { term a = exact(completion, ⟦target⟧) }\nreward S { term b = contains(⟦reply⟧, "x") + ⟦env_reward⟧ }\n`
        + 'experiment X { env: Guess, policy: Tiny, algorithm: REINFORCE, budget: 1k, reward: R }\nexperiment Y { env: Arith, policy: Tiny, algorithm: GRPO, budget: 1k, reward: S }\n',
      message: "'target' is not available with Guess (GuessNumber): only single-turn text tasks (TextTask) have it",
      also: [
        { code: 'unknown-field', message: "'reply' is not available with Arith (TextTask): only dialogue envs (GuessNumber, user text modules) have it" },
        { code: 'unknown-field', message: "'env_reward' is not available with Arith (TextTask): only dialogue envs (GuessNumber, user text modules) have it" },
      ],
    },
    {
      name: "an info value a dialogue env does not report: GuessNumber's from the registry, a text module's from its spec",
      source: {
        'main.rlx': `${PRELUDE}env Guess = GuessNumber {}\nenv Tool = module("./tool.ts")\nreward R { term a = info.⟦turn⟧ + info.hidden }\nreward S { term b = info.⟦call⟧ + info.calls }\n`
          + 'experiment X { env: Guess, policy: Tiny, algorithm: REINFORCE, budget: 1k, reward: R }\nexperiment Y { env: Tool, policy: Tiny, algorithm: REINFORCE, budget: 1k, reward: S }\n',
        'tool.ts': TOOL_TS,
      },
      roots: ['main.rlx'],
      message: "Guess (GuessNumber) reports no info value 'turn'; it reports: turns, hidden; did you mean 'turns'?",
      also: [{ code: 'unknown-field', message: /^Tool \(module\("\.\/tool\.ts"\)\) reports no info value 'call'; it reports: success, calls/ }],
    },
    {
      name: 'intrinsic rewards (self_certainty, neg_entropy, logprob) need a single-turn text task\'s sampled tokens',
      source: `${PRELUDE}env Guess = GuessNumber {}\nreward R { term a = ⟦self_certainty⟧ }\nreward S { term b = ⟦neg_entropy⟧ + 0.1 * ⟦logprob⟧ }\nreward Fine { term c = self_certainty - 0.01 * length(completion) }\n`
        + `${BALANCE.replace('budget: 10k', 'budget: 10k, reward: R')}experiment Y { env: Guess, policy: Tiny, algorithm: REINFORCE, budget: 1k, reward: S }\n`
        + 'experiment Z { env: Arith, policy: Tiny, algorithm: GRPO, budget: 1k, reward: Fine }\n',
      message: "'self_certainty' is not available with Pole (CartPole): only single-turn text tasks (TextTask) have it",
      also: [
        { code: 'unknown-field', message: "'neg_entropy' is not available with Guess (GuessNumber): only single-turn text tasks (TextTask) have it" },
        { code: 'unknown-field', message: "'logprob' is not available with Guess (GuessNumber): only single-turn text tasks (TextTask) have it" },
      ],
    },
    {
      name: 'goal names with an env without goals',
      source: `${PRELUDE}reward R { term a = -dist(⟦achieved⟧, ⟦goal⟧) }\n${BALANCE.replace('budget: 10k', 'budget: 10k, reward: R')}`,
      message: "'achieved' is not available with Pole (CartPole): only goal-conditioned envs have it",
      also: [{ code: 'unknown-field', message: "'goal' is not available with Pole (CartPole): only goal-conditioned envs have it" }],
    },
    {
      name: "a misspelt observation field of a user module, from the module's spec",
      source: { 'main.rlx': `${WALK}reward R { term a = -obs.⟦positon⟧ }\n`, 'walk.ts': WALK_TS },
      roots: ['main.rlx'],
      message: `Walk (module("./walk.ts")) has no observation field 'positon'; its fields are: position; did you mean 'position'?`,
    },
    {
      name: "an info value a user module does not report, from the module's spec",
      source: { 'main.rlx': `${WALK}reward R { term a = -info.⟦distnce⟧ + info.distance + if(info.success, 1, 0) }\n`, 'walk.ts': WALK_TS },
      roots: ['main.rlx'],
      message: `Walk (module("./walk.ts")) reports no info value 'distnce'; it reports: success, distance; did you mean 'distance'?`,
      then: (found) => assert.match(fixRemoves(found), /-info\.distance \+/),
    },
    {
      name: 'info values of a built-in that reports none (they passed the checker, then failed in training)',
      source: `${PRELUDE}reward R { term a = info.⟦speed⟧ }\n${BALANCE.replace('budget: 10k', 'budget: 10k, reward: R')}`,
      message: 'Pole (CartPole) reports no info values to reward terms',
    },
    {
      name: 'fields of a name that has none',
      source: 'reward R { term a = t.⟦x⟧ }',
      message: "'t' has no fields",
    },
  ],

  'unknown-function': [
    {
      name: 'a function that does not exist',
      source: 'reward R { term a = ⟦foo⟧(1) }',
      message: "unknown function 'foo'",
    },
    {
      name: 'a misspelt function, with "did you mean" and its fix',
      source: 'reward R { term a = ⟦ab⟧(-1) }',
      message: "unknown function 'ab'; did you mean 'abs'?",
      then: (found) => assert.equal(fixIsClean(found), 'reward R { term a = abs(-1) }'),
    },
    {
      name: 'a schedule that does not exist',
      source: 'algorithm A = PPO { learning_rate: ⟦cosin⟧(1e-3, 0) }',
      message: "'cosin' is not a schedule; schedules are constant, linear, cosine, warmup; did you mean 'cosine'?",
      then: (found) => assert.equal(fixIsClean(found), 'algorithm A = PPO { learning_rate: cosine(1e-3, 0) }'),
    },
    {
      name: 'reward-only functions are not available in conditions',
      source: `${PRELUDE}${BALANCE.replace('budget: 10k', 'budget: 10k\n  stop: ⟦novelty⟧(steps) > 1')}`,
      message: "unknown function 'novelty'",
    },
  ],

  'wrong-arguments': [
    {
      name: 'a function call without its required arguments',
      source: 'reward R { term a = ⟦clip(1)⟧ }',
      message: "clip needs 'lo' and 'hi': clip(x, lo, hi)",
    },
    {
      name: 'too many arguments',
      source: 'reward R { term a = abs(1, ⟦2⟧) }',
      message: 'abs takes at most 1 argument',
    },
    {
      name: 'an argument name the option does not have',
      source: 'algorithm A = DQN { relabel: future(k: 4, ⟦j⟧: 3) }',
      message: "future has no argument 'j'; its arguments are: k",
    },
    {
      name: 'arguments to an option that takes none, with a fix',
      source: 'algorithm A = DQN { relabel: ⟦final(3)⟧ }',
      message: "final takes no arguments; write it as 'final'",
      then: (found) => assert.equal(fixRemoves(found), 'algorithm A = DQN { relabel: final }'),
    },
    {
      name: 'an option that needs arguments, written bare',
      source: 'env G = GridWorld { goal: ⟦fixed⟧ }',
      message: 'fixed needs arguments: fixed(x, y)',
    },
    {
      name: 'a schedule missing its end value',
      source: 'algorithm A = PPO { learning_rate: ⟦linear(1e-3)⟧ }',
      message: "linear needs 'to': linear(from, to, over)",
    },
    {
      name: 'a positional argument after a named one',
      source: 'algorithm A = DQN { relabel: future(k: 4, ⟦5⟧) }',
      message: 'a positional argument cannot follow named ones in future',
    },
    {
      name: 'a base with arguments',
      source: `${PRELUDE}env E = ⟦Pole(3)⟧ { }`,
      message: 'a base takes no arguments; set parameters in the body: env E = Pole { ... }',
    },
    {
      name: 'module() with anything but one path',
      source: 'env E = ⟦module(1, 2)⟧ { }',
      message: 'module takes one file path in quotes: module("./my_env.ts")',
    },
  ],

  'invalid-regex': [
    {
      name: 'a pattern JavaScript cannot compile, reported at the string with its message',
      source: 'reward R { term a = regex(completion, ⟦"(["⟧) }',
      message: 'argument \'pattern\' of regex: invalid regular expression "([": Unterminated character class',
    },
    {
      name: 'the pattern is the string as written after escapes: `\\d` is a digit class, a lone `\\` is an error',
      source: 'reward R {\n  term a = regex(completion, "^\\\\d+$")\n  term b = regex(completion, ⟦"x\\\\"⟧)\n}\n',
      message: 'argument \'pattern\' of regex: invalid regular expression "x\\\\": \\ at end of pattern',
    },
    {
      name: 'a pattern the trainer\'s linear-time matcher refuses (lookaround, backreferences) is refused as the user types, not at train',
      source: 'reward R { term a = regex(completion, ⟦"(?=a)b"⟧) }',
      message: 'argument \'pattern\' of regex: regular expression "(?=a)b": lookahead (at character 1) cannot be matched in linear time, so verifiers do not allow it; rewrite the pattern without it',
    },
  ],

  'conflicting-properties': [
    {
      name: 'stages and an algorithm in one experiment',
      source: `${PRELUDE}experiment X {\n  env: Arith\n  policy: Tiny\n  ⟦algorithm⟧: GRPO\n  budget: 1k\n  stage main = GRPO { budget: 1k }\n}\n`,
      message: "an experiment has either 'algorithm' and 'budget' or stages, not both",
    },
    {
      name: 'stages added to an experiment that inherits an algorithm',
      source: `${PRELUDE}${BALANCE}experiment Staged = Balance {\n  ⟦stage⟧ main = PPO { budget: 1k }\n}\n`,
      message: "an experiment has either 'algorithm' and 'budget' or stages, not both (the algorithm is inherited from Balance)",
    },
    {
      name: 'seed and seeds together is a warning',
      source: `${PRELUDE}${BALANCE.replace('budget: 10k', 'budget: 10k\n  ⟦seed⟧: 1\n  seeds: [1, 2]')}`,
      severity: 'warning',
      message: "both 'seed' and 'seeds' are set; 'seed' wins. Keep one of them",
    },
  ],

  // Every check runs guarded: a check that throws becomes this diagnostic on the declaration
  // instead of a crash. parse() never builds a tree that makes a check throw (the fuzz test
  // looks for one), so this case breaks a parsed tree by hand, the way a bug would.
  'not-implemented': [
    {
      name: 'a stop condition on a metric only text tasks report, with a numeric env: at the metric',
      source: `${PRELUDE}experiment X { env: Pole, policy: Actor, algorithm: PPO, budget: 1k, stop: ⟦eval.accuracy⟧ >= 0.95 }\n`,
      severity: 'warning',
      message: /^eval.accuracy is reported by text tasks only; with CartPole this condition never holds/,
    },
  ],
  'incompatible-policy': [
    {
      name: 'a recurrent core under DQN: at the experiment\'s algorithm',
      source: `policy Memory = mlp { core: gru(32) }\nexperiment X {\n  env: CartPole\n  policy: Memory\n  algorithm: ⟦DQN⟧\n  budget: 1k\n}\n`,
      message: 'policy Memory has a recurrent core (core: gru), which DQN cannot carry yet; use PPO, or set core: none in the policy',
    },
    {
      name: 'a recurrent core in a SAC stage: at the stage',
      source: `policy Memory = mlp { core: lstm(8) }\nexperiment X {\n  env: CartPole\n  policy: Memory\n  stage main = ⟦SAC⟧ { budget: 1k }\n}\n`,
      message: /^policy Memory has a recurrent core \(core: lstm\), which SAC cannot carry yet/,
    },
  ],
  'incompatible-stages': [
    {
      name: 'PPO then DQN on an env of numbers: at the later stage',
      source: `${PRELUDE}experiment X {\n  env: Pole\n  policy: Actor\n  stage warm = Tuned { budget: 1k }\n  stage main = ⟦DQN⟧ { budget: 10k }\n}\n`,
      message: 'stage main (DQN) cannot start from the weights of stage warm (PPO): PPO trains an actor-critic, DQN a Q-network. Each stage starts from the networks the one before it trained, so consecutive stages on an env of numbers train the same ones (PPO an actor-critic, DQN a Q-network, SAC an actor and twin Q-networks, REINFORCE an actor-critic, BC a deterministic actor over normalised observations, TD3BC a deterministic actor and twin Q-networks over normalised observations, IQL a deterministic actor, twin Q-networks and a value network over normalised observations, a learner module a deterministic actor and twin Q-networks of its own)',
    },
    {
      name: 'a stage added to inherited ones: at its own stage',
      source: `${PRELUDE}experiment X {\n  env: Swing\n  policy: Actor\n  stage warm = SAC { budget: 1k }\n}\nexperiment Y = X {\n  stage main = ⟦PPO⟧ { budget: 10k }\n}\n`,
      message: /^stage main \(PPO\) cannot start from the weights of stage warm \(SAC\): SAC trains an actor and twin Q-networks, PPO an actor-critic\./,
    },
  ],
  'internal-error': [{ name: 'a check that throws is reported at the declaration, and the other checks go on', run: internalErrorTest }],
};

function internalErrorTest(): void {
  const text = `${PRELUDE}algorithm Broken = PPO { gamma: 2 }\nalgorithm Fine = PPO { gamma: 3 }\n`;
  const host = new MemoryHost({ 'main.rlx': text });
  const workspace = new Workspace(host);
  const unit = workspace.unit(virtualPath('main.rlx'))!;
  const broken = unit.parse.file.declarations.find((d) => d.name?.text === 'Broken')!;
  (broken.body as unknown as { members: unknown }).members = null;
  const diagnostics = analyze(workspace, [virtualPath('main.rlx')]).diagnostics.get(virtualPath('main.rlx'))!;
  const internal = diagnostics.filter((d) => d.code === 'internal-error');
  assert.ok(internal.length >= 1, 'a throwing check is reported');
  const at = text.indexOf('Broken');
  for (const d of internal) {
    assert.equal(d.severity, 'error');
    assert.deepEqual(d.range, { start: at, end: at + 'Broken'.length }, 'reported at the name of the declaration being checked');
    assert.match(d.message, /^internal error in a check \(please report it\): /);
  }
  // The other declarations are still checked.
  const fine = text.indexOf('gamma: 3') + 'gamma: '.length;
  assert.ok(diagnostics.some((d) => d.code === 'out-of-range' && d.range.start === fine), 'checks go on after a check throws');
}

function runCase(code: DiagnosticCode, c: Case): void {
  if (c.run) return c.run();
  const expected: Expected[] = c.expect ?? [{ code, message: c.message, severity: c.severity }, ...(c.also ?? [])];
  assert.ok(expected.some((e) => e.code === code), `a case of ${code} must expect it`);
  const found = expectDiagnostics(c.source!, expected, { roots: c.roots, ...(c.analyze ? { analyze: c.analyze } : {}) });
  c.then?.(found.find((f) => f.diagnostic.code === code)!);
}

describe('diagnostics, one code at a time', () => {
  for (const [code, cases] of Object.entries(CASES) as [DiagnosticCode, Case[]][]) {
    describe(code, () => {
      for (const c of cases) test(c.name, () => runCase(code, c));
    });
  }

  test('every code in DIAGNOSTIC_CODES has a test here', () => {
    const untested = (Object.keys(DIAGNOSTIC_CODES) as DiagnosticCode[]).filter((code) => !(CASES[code]?.length > 0));
    assert.deepEqual(untested, [], 'codes without a test case');
    assert.deepEqual(Object.keys(CASES).sort(), Object.keys(DIAGNOSTIC_CODES).sort(), 'the table lists exactly the codes of DIAGNOSTIC_CODES');
  });
});

describe('inheritance', () => {
  test('algorithm Fast = Tuned { learning_rate: 1e-3 } overrides one property and keeps the rest', () => {
    const checked = expectClean(`algorithm Tuned = PPO {\n  learning_rate: linear(2.5e-4, 0)\n  clip: 0.2\n}\nalgorithm Fast = Tuned { learning_rate: 1e-3 }\n`);
    const { model } = checked.analysis;
    const fast = [...model.allSymbols()].find((s) => s.name === 'Fast')!;
    const effective = model.effective(fast);
    assert.deepEqual(effective.chain.map((s) => s.name), ['Fast', 'Tuned']);
    assert.equal(effective.root.kind === 'builtin' && effective.root.spec.name, 'PPO');
    const lr = effective.properties.get('learning_rate')!;
    assert.equal(lr.owner.name, 'Fast');
    assert.equal(lr.node.value?.kind === 'Number' && lr.node.value.value, 1e-3);
    assert.equal(effective.properties.get('clip')!.owner.name, 'Tuned');
  });

  test('inherited required properties satisfy the child', () => {
    expectClean(`${PRELUDE}${BALANCE.replace('budget: 10k', 'budget: 10k\n  eval { every: 1k }')}experiment Steady = Balance { seeds: [1] }\nexperiment Longer = Steady { budget: 1M }\n`);
  });

  test('a block in the child merges with the inherited block, member by member', () => {
    expectClean(`${PRELUDE}${BALANCE.replace('budget: 10k', 'budget: 10k\n  eval { every: 1k }')}experiment More = Balance {\n  eval { episodes: 50 }\n}\n`);
  });

  test('an overriding value is checked where it is written', () => {
    expectDiagnostic(`${PRELUDE}algorithm Fast = Tuned { gamma: ⟦2⟧ }\n`, 'out-of-range', 'gamma must be >= 0 and <= 1; found 2');
  });

  test('a child of an env keeps checking against the built-in at the root', () => {
    expectDiagnostic(`${PRELUDE}env Short = Pole { max_steps: 50 }\nenv Shorter = Short { ⟦maxsteps⟧: 10 }\n`, 'unknown-property', "CartPole has no property 'maxsteps'; did you mean 'max_steps'?");
  });

  test('an inherited incompatible pair is reported once, at the experiment that chose it', () => {
    const source = `${PRELUDE}experiment X {\n  env: Swing\n  policy: Actor\n  algorithm: ⟦DQN⟧\n  budget: 10k\n}\nexperiment Y = X { seeds: [2] }\n`;
    expectDiagnostic(source, 'incompatible-env', /^DQN cannot train on Swing/);
  });

  test('a reward paired through inheritance is checked with the child\'s env', () => {
    const source = `${PRELUDE}reward R { term a = obs.⟦x⟧ }\n${BALANCE.replace('budget: 10k', 'budget: 10k, reward: R')}experiment Swung = Balance { env: Swing, algorithm: SAC }\n`;
    expectDiagnostic(source, 'unknown-field', "Swing (Pendulum) has no observation field 'x'; its fields are: cos_theta, sin_theta, theta_dot");
  });

  test('a chain of 2,000 declarations is resolved link by link once, not once per declaration (issue 14 item 11)', () => {
    const lines = ['algorithm A0 = PPO { learning_rate: 1e-3 }'];
    for (let i = 1; i < 2000; i++) lines.push(`algorithm A${i} = A${i - 1} { epochs: ${1 + (i % 9)} }`);
    lines.push(`experiment E { env: Pole, policy: Actor, algorithm: A1999, budget: 1k }`);
    const original = Model.prototype.base;
    let steps = 0;
    Model.prototype.base = function (this: Model, symbol) {
      steps++;
      return original.call(this, symbol);
    };
    try {
      const checked = expectClean(`${PRELUDE}${lines.join('\n')}\n`);
      const last = [...checked.analysis.model.allSymbols()].find((s) => s.name === 'A1999')!;
      const effective = checked.analysis.model.effective(last);
      assert.equal(effective.chain.length, 2000);
      assert.equal(effective.properties.get('learning_rate')!.owner.name, 'A0');
      assert.equal(effective.properties.get('epochs')!.owner.name, 'A1999');
    } finally {
      Model.prototype.base = original;
    }
    // Before: every declaration walked its whole chain (2,000 x 1,000 steps on average).
    assert.ok(steps < 20 * 2000, `${steps} base look-ups for a chain of 2,000`);
  });

  test('declarations from imported files are in scope and can be inherited', () => {
    expectClean({
      'main.rlx': `import "./base.rlx"\nalgorithm Fast = Tuned { learning_rate: 1e-3 }\nexperiment B = Balance { algorithm: Fast }\n`,
      'base.rlx': `${PRELUDE}${BALANCE}`,
    });
  });
});

describe('valid sources check clean (no false positives)', () => {
  test('every built-in, option, function and reward name in use: no errors, and warnings only where the trainer cannot run it yet', () => {
    const checked = check({ 'main.rlx': `env Pole = CartPole { max_steps: 500, gravity: 9.8, force: 10 }
env Car = MountainCar { goal_velocity: 0 }
env Bot = Acrobot {}
env Rooms = GridWorld { layout: maze, size: 11, goal: fixed(2, 4) }
env Arith = TextTask { task: reverse(len: 5), max_tokens: 6 }
env Guess = GuessNumber { low: 1, high: 100 }
env Arms = Bandit { arms: 5 }
env Mine = module("./mine.ts") { anything: [1, 2], nested: "x" }
env Walk = module("./walk.ts") { max_steps: 50 }
reward Walking { term w = -obs.position + info.distance + if(info.success, 1, 0) }
policy Actor = mlp { hidden: [64], activation: relu, shared_trunk: true }
policy Tiny = transformer { width: 64, heads: 8 }
reward Phys {
  term a = if(success, 1, 0) + novelty(obs) + norm(obs) + abs(action) + t / 100
  term b = terminated and not truncated
  term c = min(obs.x, 1, 2) * max(1) + sqrt(2) ^ 2 + exp(1) - log(2) + clip(obs.x, -1, 1)
}
reward Goal { term d = -dist(achieved, goal) + obs.goal_x }
reward Text {
  term e = numeric(completion, target, tol: 1e-3) + length(completion) + contains(prompt, "x") + regex(completion, "a")
  term f = length(completion) > 3
  term h = numeric(last_number(completion), target) + exact(boxed(tagged(completion, "answer")), target) + length(tagged((completion), ("think")))
}
reward Turns {
  term g = 0.1 * env_reward + contains(reply, "higher") + regex(completion, "^[0-9]+$") - 0.01 * length(prompt) - info.turns / 10 + if(success, 1, 0) * t
  replace_env_reward: true
}
algorithm P = PPO { learning_rate: warmup(1k, cosine(3e-4, 0, over: 0.5)), target_kl: 0.01, clip: constant(0.2) }
algorithm Q = PPO { target_kl: none }
algorithm S = SAC { alpha: 0.2, target_entropy: -1 }
algorithm D = DQN { double: true, relabel: episode(k: 2), epsilon: 0.1 }
algorithm Plain = DQN { relabel: none }
algorithm G = GRPO { reference: none, normalize: none }
algorithm F = SFT { data: demos }
algorithm R = REINFORCE { baseline: none }
experiment E1 { env: Pole, policy: Actor, algorithm: P, budget: 1k, reward: Phys, eval { every: 500 }, stop: eval.mean_return >= 475 and steps > 1k or false }
experiment E2 { env: Rooms, policy: Actor, algorithm: D, budget: 1k, reward: Goal, device: cuda }
experiment E3 { env: Arith, policy: Tiny, reward: Text, stage w = F { updates: 10 }, stage m = G { budget: 1k } }
experiment E4 { env: Guess, policy: Tiny, algorithm: R, budget: 1k, reward: Turns }
experiment E5 { env: Mine, policy: Actor, algorithm: S, budget: 1k, reward: Phys }
experiment E10 { env: Walk, policy: Actor, algorithm: P, budget: 1k, reward: Walking }
experiment E6 { env: Arms, policy: Actor, algorithm: Q, budget: 1k }
experiment E7 { env: Rooms, policy: Actor, algorithm: Plain, budget: 1k, eval { every: 500 }, curriculum { param: env.size, from: 5, to: 11, step: 2, advance: eval.success >= 0.8 } }
experiment E8 { env: Car, policy: Actor, algorithm: PPO, budget: 1.5M, seeds: [1, 2, 3], envs: 8 }
experiment E9 { env: Bot, policy: Actor, algorithm: SAC, budget: 500k, seed: 7, eval { every: 10k, episodes: 5, deterministic: false } }
sweep S1 over E1 { strategy: random(samples: 5), backend: slurm, slurm { partition: "gpu", time: "02:00:00" }, env.max_steps: [100, 200], policy.hidden: [[32], [64, 64]], seeds: [1, 2], budget: [1k, 2k], eval.every: [1k] }
`, 'mine.ts': 'export default class Mine {}\n', 'walk.ts': WALK_TS }, ['main.rlx']);
    const text = checked.files[0].text;
    const problems = checked.problems().map((d) => `${d.severity} ${d.code} ${text.slice(d.range.start, d.range.end)}`);
    assert.deepEqual(problems, [], checked.render());
  });
});

describe('fixes and files', () => {
  test('a reward alone is not checked against any env: unknown-field needs a pairing', () => {
    expectClean({ 'rewards.rlx': 'reward Upright { term tilt = -abs(obs.thet) }\n' });
  });

  test('a fix never reaches outside its own file', () => {
    const checked = check({
      'main.rlx': `import "./rewards.rlx"\n${PRELUDE}${BALANCE.replace('budget: 10k', 'budget: 10k\n  reward: Upright')}`,
      'rewards.rlx': 'reward Upright {\n  term tilt = -abs(obs.thet) + next_obs.thet\n}\n',
    });
    for (const d of checked.all) {
      const file = checked.files.find((f) => f.path === d.file)!;
      for (const fix of d.fixes ?? []) applyEdits(file.text, fix.edits);
    }
    assert.equal(checked.in('rewards.rlx').filter((d) => d.code === 'unknown-field').length, 2);
  });
});
