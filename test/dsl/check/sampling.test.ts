// The sampling controls and completion lengths as `rlx check` and the editor meet them: each bad
// value an error at the value, the names from TRL pointed to rlx's, and a completion that
// cannot fit the pretrained model's context an error at the setting that makes it so.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as path from 'node:path';
import { analyze, compile, Workspace } from '../../../dsl/index.js';
import { expectPretrained, tiny } from '../../helpers/pretrained.js';

const experiment = (algorithm: string, env = 'env Arith = TextTask { task: addition(digits: 2), max_tokens: 4 }') =>
  `policy Base = ${tiny('qwen2')}\n${env}\nalgorithm G = GRPO { ${algorithm} }\nexperiment E {\n  env: Arith\n  policy: Base\n  algorithm: G\n  budget: 1k\n}\n`;

describe('sampling controls at check time', () => {
  it('values in range check clean', () => {
    expectPretrained(experiment('top_k: 20, top_p: 0.95, min_p: 0.05, repetition_penalty: 1.1, stop: ["\\n\\n", "</answer>"]'), []);
    expectPretrained(experiment('top_k: none, top_p: 1, min_p: 0, repetition_penalty: 1, stop: []'), []);
  });

  it('each bad value is an error at the value, saying the range', () => {
    const cases: [string, RegExp][] = [
      ['top_p: ⟦0⟧', /top_p must be > 0 and <= 1; found 0/],
      ['top_p: ⟦1.5⟧', /top_p must be > 0 and <= 1; found 1\.5/],
      ['top_k: ⟦0⟧', /top_k must be >= 1/],
      ['min_p: ⟦1⟧', /min_p must be >= 0 and < 1; found 1/],
      ['min_p: ⟦-0.1⟧', /min_p must be >= 0 and < 1/],
      ['repetition_penalty: ⟦0⟧', /repetition_penalty must be > 0/],
      ['stop: ["ok", ⟦""⟧]', /must not be the empty string/],
    ];
    for (const [setting, message] of cases) expectPretrained(experiment(setting), [{ code: 'out-of-range', message }]);
  });

  it('the plan carries the controls, neutral ones at their defaults', () => {
    const text = experiment('top_p: 0.9, stop: ["!"]').replace(tiny('qwen2'), 'transformer');
    const entry = path.resolve('/virtual-rlx/main.rlx');
    const result = compile(analyze(new Workspace({ readFile: (p) => (p === entry ? text : undefined) }), [entry]), entry);
    assert.ok(result.ok, result.ok ? '' : result.error);
    const params = [...result.plans][0]!.stages[0]!.algorithm.params;
    assert.equal(params.top_p, 0.9);
    assert.deepEqual(params.stop, ['!']);
    assert.equal(params.top_k, 'none');
    assert.equal(params.min_p, 0);
    assert.equal(params.repetition_penalty, 1);
  });
});

describe('completion lengths and the model\'s context at check time', () => {
  it('an env max_tokens that leaves no room for a prompt in the context: an error there, naming the context', () => {
    const [d] = expectPretrained(experiment('max_new_tokens: 4', 'env Arith = TextTask { task: addition(digits: 2), max_tokens: ⟦128⟧ }'), [{ code: 'out-of-range' }]);
    assert.match(d!.message, /Arith's max_tokens is 128, but policy Base's model has a context of 128 tokens \(max_position_embeddings in .*qwen2\/config\.json\)/);
  });

  it('a max_new_tokens past the context: an error at it (and at the env\'s max_tokens, which evaluation samples)', () => {
    const [env, learner] = expectPretrained(experiment('max_new_tokens: ⟦300⟧', 'env Arith = TextTask { task: addition(digits: 2), max_tokens: ⟦500⟧ }'), [{ code: 'out-of-range' }, { code: 'out-of-range' }]);
    assert.match(env!.message, /max_tokens is 500/);
    assert.match(learner!.message, /^max_new_tokens is 300, but policy Base's model has a context of 128 tokens/);
  });

  it('a max_new_tokens past the context that the env\'s max_tokens cuts to fit: only the warning that it is cut', () => {
    expectPretrained(experiment('max_new_tokens: ⟦300⟧', 'env Arith = TextTask { task: addition(digits: 2), max_tokens: 100 }'), [{ code: 'suspicious-value', severity: 'warning' }]);
  });

  it('lengths within the context check clean; above 256 is no longer refused by itself', () => {
    expectPretrained(experiment('max_new_tokens: 100', 'env Arith = TextTask { task: addition(digits: 2), max_tokens: 120 }'), []);
  });

  it('a max_prompt_length whose prompts and completions could pass the context: a warning at it', () => {
    const [d] = expectPretrained(experiment('max_prompt_length: ⟦100⟧, max_new_tokens: 40', 'env Arith = TextTask { task: addition(digits: 2), max_tokens: 64 }'), [{ code: 'suspicious-value', severity: 'warning' }]);
    assert.match(d!.message, /^max_prompt_length 100 and completions of 40 tokens make rows of up to 140 tokens, past policy Base's context of 128 .*lower max_prompt_length to at most 88/);
    expectPretrained(experiment('max_prompt_length: 88, max_new_tokens: 40', 'env Arith = TextTask { task: addition(digits: 2), max_tokens: 64 }'), []);
  });

  it('names from TRL and transformers point to rlx\'s', () => {
    const cases: [string, RegExp][] = [
      ['⟦max_completion_length⟧: 64', /has no property 'max_completion_length'; did you mean 'max_new_tokens'\? \(TRL's max_completion_length is rlx's max_new_tokens\)/],
      ['⟦truncation_side⟧: left', /did you mean 'truncation'\? \(TRL\/transformers' truncation_side is rlx's truncation\)/],
      ['⟦stop_strings⟧: ["\\n"]', /did you mean 'stop'\? \(transformers' generate stop_strings is rlx's stop\)/],
    ];
    for (const [setting, message] of cases) expectPretrained(experiment(setting), [{ code: 'unknown-property', message }]);
  });
});
