// `rlx check` and `rlx train` agree (issue 15 item 10): a spec that checks without errors and
// without a `not-implemented` warning passes the trainer's own check (runtime/support.ts
// checkPlan), and one the trainer refuses has a `not-implemented` warning saying the same
// reason, or an error. Each source is one experiment; the plan is what `rlx train FILE` runs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { analyze, compile, parse, Workspace, type NamedMember } from '../../dsl/index.js';
import { toPlanExpr } from '../../dsl/compile/values.js';
import { checkPlan, PlanError } from '../../runtime/support.js';
import { TextEnvironment } from '../../runtime/text/env.js';
import { EnvWorkload } from '../../runtime/trainer/env-workload.js';
import { MemoryHost, virtualPath } from '../helpers/source.js';
import { tiny } from '../helpers/pretrained.js';
import { codeBlocks, readLanguageDoc } from '../helpers/repo.js';

const PRELUDE = `env Pole = CartPole {}
env Arith = TextTask { task: addition(digits: 2) }
env Rooms = GridWorld {}
env Swing = Pendulum {}
policy Actor = mlp { hidden: [16] }
policy Tiny = transformer { layers: 1, width: 16, heads: 2 }
`;

function checkAndTrain(experiment: string): { errors: string[]; warnings: string[]; refusals: string[] } {
  const text = PRELUDE + experiment;
  const workspace = new Workspace(new MemoryHost({ 'main.rlx': text }));
  const analysis = analyze(workspace, [virtualPath('main.rlx')]);
  const diagnostics = analysis.diagnostics.get(virtualPath('main.rlx')) ?? [];
  const errors = diagnostics.filter((d) => d.severity === 'error').map((d) => d.message);
  const warnings = diagnostics.filter((d) => d.code === 'not-implemented').map((d) => d.message);
  if (errors.length > 0) return { errors, warnings, refusals: [] };
  const result = compile(analysis, virtualPath('main.rlx'));
  assert.ok(result.ok, `a spec without errors compiles: ${!result.ok && result.error}`);
  const refusals: string[] = [];
  for (const plan of result.plans) {
    try {
      checkPlan(plan);
    } catch (err) {
      assert.ok(err instanceof PlanError, String(err));
      refusals.push(...err.problems);
    }
  }
  return { errors, warnings, refusals };
}

/** The plan of a spec, errors or not (the trainer's own check, without the checker's). */
function compiledPlan(experiment: string): Parameters<typeof checkPlan>[0] {
  const workspace = new Workspace(new MemoryHost({ 'main.rlx': PRELUDE + experiment }));
  const result = compile(analyze(workspace, [virtualPath('main.rlx')]), virtualPath('main.rlx'));
  assert.ok(result.ok, `compiles: ${!result.ok && result.error}`);
  return [...result.plans][0];
}

/** The trainer refuses, and the checker warned with the same reason beforehand. */
function refusedWithWarning(experiment: string, reason: RegExp): void {
  const { errors, warnings, refusals } = checkAndTrain(experiment);
  assert.deepEqual(errors, []);
  assert.ok(refusals.some((r) => reason.test(r)), `the trainer refuses for ${reason}: ${refusals.join(' | ')}`);
  assert.ok(warnings.some((w) => reason.test(w)), `rlx check warned for ${reason}: ${warnings.join(' | ') || 'no warning'}`);
}

describe('rlx check warns about what rlx train refuses, and passes what it runs', () => {
  test('what the trainer runs checks clean and passes the trainer', () => {
    for (const source of [
      'experiment X { env: Pole, policy: Actor, algorithm: PPO, budget: 1k }',
      'experiment X { env: Pole, policy: Actor, algorithm: REINFORCE, budget: 1k, stop: eval.mean_return >= 475 }',
      'experiment X { env: Arith, policy: Tiny, stage warm = SFT { updates: 10 }, stage main = GRPO { budget: 1k } }',
      'experiment X { env: Arith, policy: Tiny, stage warm = SFT { budget: 640 } }',
      'experiment X { env: Pole, policy: Actor, algorithm: DQN, budget: 1k }',
      'experiment X { env: Rooms, policy: Actor, stage a = DQN { budget: 1k, relabel: final } }',
      'experiment X { env: Rooms, policy: Actor, algorithm: PPO, budget: 1k, eval { every: 500 }, curriculum { param: env.size, from: 5, to: 9, advance: eval.success > 0.5 } }',
      'experiment X { env: Pole, policy: Actor, algorithm: REINFORCE, budget: 1k, curriculum { param: env.max_steps, from: 100, to: 500, step: 100, advance: train.mean_return > 90 } }',
      'experiment X { env: Pole, policy: Actor, algorithm: SAC, budget: 1k }',
      'experiment X { env: Rooms, policy: Actor, stage a = SAC { budget: 1k, relabel: future(k: 4) } }',
    ]) {
      assert.deepEqual(checkAndTrain(source), { errors: [], warnings: [], refusals: [] }, source);
    }
  });

  test('REINFORCE on a text task, GuessNumber, stops on accuracy: checked clean and run', () => {
    for (const source of [
      'experiment X { env: Arith, policy: Tiny, algorithm: REINFORCE, budget: 1k }',
      'env Guess = GuessNumber {}\nexperiment X { env: Guess, policy: Tiny, algorithm: REINFORCE, budget: 1k }',
      'env Guess = GuessNumber {}\nreward Short { term a = -0.01 * length(completion) + contains(reply, "higher") + env_reward + info.turns }\nexperiment X { env: Guess, policy: Tiny, algorithm: GRPO, budget: 1k, reward: Short }',
      'experiment X { env: Arith, policy: Tiny, algorithm: GRPO, budget: 1k, stop: eval.accuracy >= 0.95 or train.accuracy > 0.99 }',
    ]) {
      assert.deepEqual(checkAndTrain(source), { errors: [], warnings: [], refusals: [] }, source);
    }
  });

  test('hindsight relabeling on an env without goals: an error of the checker, refused by the trainer', () => {
    const { errors } = checkAndTrain('algorithm H = DQN { relabel: final }\nexperiment X { env: Pole, policy: Actor, algorithm: H, budget: 1k }');
    assert.match(errors.join(' | '), /relabels goals \(relabel: final\), but .*CartPole.* is not goal-conditioned/);
    const plan = compiledPlan('experiment X { env: Pole, policy: Actor, stage a = DQN { budget: 1k, relabel: final } }');
    assert.throws(() => checkPlan(plan), (err: unknown) => err instanceof PlanError && err.problems.some((p) => /DQN relabels goals \(relabel: final\), but CartPole is not goal-conditioned/.test(p)));
  });

  test('a curriculum the trainer cannot run is an error of the checker', () => {
    assert.deepEqual(checkAndTrain('experiment X { env: Pole, policy: Actor, algorithm: PPO, budget: 1k, curriculum { param: env.max_steps, from: 100, to: 2M, advance: train.mean_return > 90 } }').errors,
      ['to (env.max_steps) must be >= 1 and <= 1000000; found 2000000']);
    assert.deepEqual(checkAndTrain('experiment X { env: Arith, policy: Tiny, algorithm: GRPO, budget: 1k, curriculum { param: env.max_tokens, from: 2, to: 4, advance: eval.accuracy > 0.5 } }').errors,
      ['a curriculum moves a parameter of an observation env; TextTask is a text task, whose parameters fix its token model: remove the curriculum']);
  });

  test('several stages on a numeric env: checked clean and run where the networks pass; an error of the checker, refused by the trainer, where they cannot', () => {
    for (const source of [
      'experiment X { env: Pole, policy: Actor, stage a = PPO { budget: 1k }, stage b = PPO { budget: 1k, learning_rate: 1e-4 } }',
      'experiment X { env: Pole, policy: Actor, stage a = REINFORCE { budget: 1k }, stage b = PPO { budget: 1k }, stage c = REINFORCE { budget: 1k } }',
      'experiment X { env: Pole, policy: Actor, stage a = DQN { budget: 1k }, stage b = DQN { budget: 1k, epsilon: 0.01 } }',
    ]) {
      assert.deepEqual(checkAndTrain(source), { errors: [], warnings: [], refusals: [] }, source);
    }
    const source = 'experiment X { env: Pole, policy: Actor, stage a = PPO { budget: 1k }, stage b = DQN { budget: 1k } }';
    const reason = /stage b \(DQN\) cannot start from the weights of stage a \(PPO\): PPO trains an actor-critic, DQN a Q-network/;
    assert.match(checkAndTrain(source).errors.join(' | '), reason);
    // The plan the checker would not let through, put together from two that it does.
    const ppo = compiledPlan('experiment X { env: Pole, policy: Actor, stage a = PPO { budget: 1k }, stage b = PPO { budget: 1k } }');
    const dqn = compiledPlan('experiment X { env: Pole, policy: Actor, algorithm: DQN, budget: 1k }').stages[0]!;
    const plan = { ...ppo, stages: [ppo.stages[0]!, { ...dqn, name: 'b' }] };
    assert.throws(() => checkPlan(plan), (err: unknown) => err instanceof PlanError && err.problems.some((p) => reason.test(p)));
  });

  test('a stage without a budget is an error of the checker where the trainer would refuse it', () => {
    const { errors } = checkAndTrain('experiment X { env: Arith, policy: Tiny, stage warm = SFT { updates: 10 }, stage main = GRPO { group_size: 4 } }');
    assert.deepEqual(errors, ["stage main needs a 'budget': GRPO has no length of its own (the budget counts environment steps, or on a text task the completions sampled), e.g. `stage main = GRPO { budget: 50k }`"]);
  });

  test('every reward on a text task that docs/language.md shows, and each verifier form: checked clean, compiled and scored by the trainer', () => {
    // The docs' rewards over a TextTask's texts (not a dialogue's reply or env_reward, nor obs).
    const documented = codeBlocks(readLanguageDoc(), 'rlx').flatMap((b) => b.text.match(/^reward \w+ \{[\s\S]*?^\}/gm) ?? [])
      .filter((r) => /\bcompletion\b/.test(r) && !/\b(reply|env_reward)\b/.test(r));
    assert.ok(documented.some((r) => r.includes('last_number(')) && documented.some((r) => r.includes('boxed(tagged(')), 'the docs show the extractors');
    const forms = [
      'exact(completion, target)', 'numeric(completion, target, tol: 0.5)', 'regex(completion, "^[0-9]+$")', 'contains(prompt, "+")', '-0.01 * length(completion)',
      'numeric(last_number(completion), target)', 'numeric(last_number(completion), last_number(target))', 'exact(boxed(completion), target)', 'exact(tagged(completion, "answer"), target)',
      'length(tagged(completion, "think")) <= 100', 'numeric(last_number(boxed(tagged((completion), "answer"))), target, tol: 0)', 'contains(tagged(prompt, "q"), "x")',
      'regex(completion, "^<think>[\\s\\S]*</think>\\s*<answer>[\\s\\S]*</answer>$")',
    ];
    const rewards = [...documented, ...forms.map((f) => `reward R { term t = ${f} }`)];
    for (const reward of rewards) {
      const name = /^reward (\w+)/.exec(reward)![1];
      const source = `${reward}\nexperiment X { env: Arith, policy: Tiny, algorithm: GRPO, budget: 1k, reward: ${name} }`;
      assert.deepEqual(checkAndTrain(source), { errors: [], warnings: [], refusals: [] }, source);
      const env = TextEnvironment.fromPlan(compiledPlan(source));
      const { total } = env.score({ prompt: '12+34=', target: '46' }, '<think>12 + 34</think> <answer>\\boxed{46}</answer>');
      assert.ok(Number.isFinite(total), `${source}: ${total}`);
    }
  });

  test('a verifier form the trainer refuses is an error of the checker', () => {
    for (const [term, checker, trainer] of [
      ['regex(completion, target)', /argument 'pattern' of regex must be a "string" literal/, /regex\(\): the pattern must be a "string" literal/],
      ['exact(tagged(completion, target), target)', /argument 'tag' of tagged must be a "string" literal/, /tagged\(\): the tag must be a "string" literal/],
      ['exact(tagged(completion, "<answer>"), target)', /write the tag's name alone: "answer"/, /tagged\(\): write the tag's name alone/],
      ['last_number(completion)', /a reward term must be a number .* this is a string/, /last_number\(\) gives text, not a number/],
      ['2 * boxed(completion)', /text cannot be used in arithmetic/, /boxed\(\) gives text, not a number/],
      ['exact(last_number(length(completion)), target)', /argument 's' of last_number must be text; found a number/, /last_number\(\): "s" must be text/],
    ] as const) {
      const experiment = 'experiment X { env: Arith, policy: Tiny, algorithm: GRPO, budget: 1k, reward: R }';
      assert.match(checkAndTrain(`reward R { term t = ${term} }\n${experiment}`).errors.join(' | '), checker, term);
      // The plan the checker would not let through: a clean one with the term as the compiler plans it.
      const plan = compiledPlan(`reward R { term t = 1 }\n${experiment}`);
      const [member] = parse(`reward R { term t = ${term} }`).file.declarations[0].body!.members as NamedMember[];
      plan.reward!.terms[0].expr = toPlanExpr(member.value);
      assert.throws(() => TextEnvironment.fromPlan(plan), trainer, term);
    }
  });

  test('every numeric function over numbers and vectors: checked clean where the trainer compiles the reward, an error where it refuses (issue 43 item 19)', () => {
    // Pendulum's action is one number; CartPole's obs a vector of 4; [a, b] a vector.
    const cases: Array<[env: string, term: string]> = [];
    for (const env of ['Swing', 'Pole']) {
      for (const arg of ['action', 'obs', 'obs.x', '[obs.x, 1]', '2']) {
        if (env === 'Swing' && arg === 'obs.x') continue;
        for (const form of ['norm(A)', 'dist(A, A)', 'abs(A)', 'sqrt(A)', 'exp(A)', 'log(A)', 'min(A, 1)', 'max(A)', 'clip(A, 0, 1)', 'if(A > 0, 1, 0)', 'novelty(A)', '-A', 'A * 2', 'A', '[A]']) {
          cases.push([env, form.replaceAll('A', arg)]);
        }
      }
    }
    const disagreements: string[] = [];
    for (const [env, term] of cases) {
      const source = `reward R { term t = ${term} }\nexperiment X { env: ${env}, policy: Actor, algorithm: PPO, budget: 1k, reward: R }`;
      const { errors } = checkAndTrain(source);
      // The trainer's own reading of the same term, errors or not: the plan of a clean term with this one put in.
      const plan = compiledPlan(`reward R { term t = 1 }\nexperiment X { env: ${env}, policy: Actor, algorithm: PPO, budget: 1k, reward: R }`);
      const [member] = parse(`reward R { term t = ${term} }`).file.declarations[0].body!.members as NamedMember[];
      plan.reward!.terms[0].expr = toPlanExpr(member.value);
      let refusal = '';
      try {
        EnvWorkload.create(plan, 1, undefined);
      } catch (err) {
        refusal = (err as Error).message;
      }
      if ((errors.length > 0) !== (refusal !== '')) disagreements.push(`${env}: ${term}: check ${errors.join(' | ') || 'clean'}; train ${refusal || 'runs'}`);
    }
    assert.deepEqual(disagreements, []);
    // The norm of a one-element vector is its absolute value.
    const plan = compiledPlan('reward R { term t = norm(action) + dist(action, 0.5) }\nexperiment X { env: Swing, policy: Actor, algorithm: PPO, budget: 1k, reward: R }');
    const reward = EnvWorkload.create(plan, 1, undefined).stepper.reward!;
    reward.context.action[0] = -0.3;
    assert.ok(Math.abs(reward.evaluate() - (0.3 + 0.8)) < 1e-6, `norm(-0.3) + dist(-0.3, 0.5): ${reward.evaluate()}`);
  });

  test('a pretrained model: planned with its folder, checks clean and passes the trainer; on CartPole warned about and refused', () => {
    const source = `policy Base = ${tiny('qwen2')} { lora { rank: 4 } }\nexperiment X { env: Arith, policy: Base, algorithm: GRPO, budget: 1k }`;
    assert.deepEqual(checkAndTrain(source), { errors: [], warnings: [], refusals: [] });
    const plan = compiledPlan(source);
    assert.equal(plan.policy.kind, 'pretrained');
    assert.ok((plan.policy as { path?: string }).path?.endsWith('hf-tiny/qwen2'), 'the plan carries the model folder');
  });
});
