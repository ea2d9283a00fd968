// The registry drift check (ARCHITECTURE.md: "the runtime checks that it implements exactly
// what the registry declares"): the language's schema registry (dsl/schema) and this runtime
// must agree on which built-ins exist and on their parameters, defaults, ranges, observation
// fields and action kinds. Built-ins the runtime does not implement yet must be listed in
// dsl/schema with a `notImplemented` reason (runtime/not-implemented.ts reads them), and nothing else may be.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { ALGORITHMS, algorithmWork, dataFilesOf, ENVS, FUNCTIONS, METRICS, POLICIES, REWARD_NAMES, SCHEDULES, type ParamSpec, type ValueType } from '../../dsl/schema/index.js';
import { ALGORITHMS as IMPLEMENTED_ALGORITHMS } from '../../runtime/algorithms/index.js';
import { DEVICES } from '../../runtime/device.js';
import { EXPERIMENT } from '../../dsl/schema/declarations.js';
import { envInfo, envKinds, makeEnv, prepareEnvKind } from '../../runtime/envs/registry.js';
import { isGoalConditioned, type FastEnv } from '../../runtime/envs/types.js';
import { NOT_IMPLEMENTED, NOT_IMPLEMENTED_FUNCTIONS, NOT_IMPLEMENTED_METRICS, NOT_IMPLEMENTED_REWARD_NAMES } from '../../runtime/not-implemented.js';
import { POLICIES as IMPLEMENTED_POLICIES } from '../../runtime/policies/index.js';
import { EXPR_FUNCTIONS, REWARD_REFS } from '../../runtime/rewards/index.js';
import { CONDITION_METRICS } from '../../runtime/run/stop.js';
import { SCHEDULE_KINDS } from '../../runtime/schedule.js';
import { TEXT_ENVS } from '../../runtime/text/env.js';
import { TEXT_EXTRACTORS, TEXT_FUNCTIONS } from '../../runtime/rewards/text-terms.js';

const sorted = (names: Iterable<string>) => [...names].sort();

/** Every declared name is implemented or listed as not implemented, never both, and nothing else exists. */
function partition(what: string, declared: readonly string[], implemented: readonly string[], notImplemented: readonly string[]) {
  const both = implemented.filter((n) => notImplemented.includes(n));
  assert.deepEqual(both, [], `${what} both implemented and listed in not-implemented.ts`);
  assert.deepEqual(sorted([...implemented, ...notImplemented]), sorted(declared), `${what}: the runtime (implemented + not-implemented.ts) vs the registry`);
}

/** The number range of a registry param, as values that must be accepted or refused. */
function rangeProbes(type: ValueType): { accept: number[]; refuse: number[] } {
  if (type.kind !== 'number') return { accept: [], refuse: [] };
  const accept: number[] = [];
  const refuse: number[] = [];
  if (type.min !== undefined) (type.exclusiveMin ? refuse : accept).push(type.min), refuse.push(type.min - 1);
  if (type.max !== undefined) (type.exclusiveMax ? refuse : accept).push(type.max), refuse.push(type.max + 1);
  if (type.integer) refuse.push((type.min ?? 0) + 1.5);
  return { accept, refuse };
}

describe('registry drift: dsl/schema vs runtime', () => {
  // MuJoCo's envs need their engine loaded before one is built.
  before(async () => {
    for (const kind of envKinds()) await prepareEnvKind(kind);
  });

  it('environments: which exist', () => {
    partition('envs', ENVS.map((e) => e.name), [...envKinds(), ...TEXT_ENVS], Object.keys(NOT_IMPLEMENTED.env));
  });

  for (const spec of ENVS.filter((e) => envKinds().includes(e.name))) {
    it(`environment ${spec.name}: params, defaults, ranges, obs fields, action kind`, () => {
      const info = envInfo(spec.name);
      assert.deepEqual(info.params.map((p) => p.name), spec.params.map((p) => p.name), 'param names');
      for (const param of spec.params) {
        const ours = info.params.find((p) => p.name === param.name)!;
        assert.deepEqual(ours.default, param.default, `${param.name} default`);
        const { accept, refuse } = rangeProbes(param.type);
        for (const v of accept) assert.doesNotThrow(() => makeEnv(spec.name, { [param.name]: v }), `${param.name} = ${v} is in the registry's range`);
        for (const v of refuse) assert.throws(() => makeEnv(spec.name, { [param.name]: v }), `${param.name} = ${v} is outside the registry's range`);
        if (param.type.kind === 'choice' && ours.values) assert.deepEqual(ours.values, param.type.options.map((o) => o.name), `${param.name} options`);
      }
      assert.deepEqual(info.obsFields, spec.obsFields, 'observation fields');
      const kind = info.actionSpace.kind === 'discrete' ? 'discrete' : 'continuous';
      assert.equal(kind, spec.action, 'action kind');
      assert.equal(isGoalConditioned(makeEnv(spec.name, {})), spec.goalConditioned === true, 'goal-conditioned');
      const env: FastEnv = makeEnv(spec.name, {});
      assert.deepEqual(spec.infoFields ?? [], env.infoFields ?? [], 'info fields the runtime reports');
      if (env.infoFields) {
        env.reset(0);
        const zeros = Array.from({ length: env.actionDim }, () => 0);
        assert.deepEqual(Object.keys(env.step(zeros).info), env.infoFields, 'each declared info value is in every step\'s info');
      }
    });
  }

  it('algorithms: which exist, that each reads every param the registry declares, their action kinds', () => {
    partition('algorithms', ALGORITHMS.map((a) => a.name), IMPLEMENTED_ALGORITHMS.map((a) => a.name), Object.keys(NOT_IMPLEMENTED.algorithm));
    for (const definition of IMPLEMENTED_ALGORITHMS) {
      const spec = ALGORITHMS.find((a) => a.name === definition.name)!;
      assertReadsEvery(definition.name, spec.params, (given) => definition.params(given));
      // Action kinds the language accepts but the runtime does not train on yet are marked in the registry.
      const notYet = Object.keys(spec.actionsNotImplemented ?? {});
      assert.deepEqual(sorted(definition.actions), sorted(spec.actions.filter((a) => !notYet.includes(a))), `${definition.name} action kinds`);
      assert.equal(definition.lengthWithoutBudget !== undefined, spec.lengthParam !== undefined, `${definition.name}: a length without a budget (lengthParam in the registry)`);
    }
  });

  // Each algorithm says what its update holds (rows sampled and trained, a reference copy, files
  // read) beside its settings: the checker's memory estimate, the trainer's and the device rule
  // read that one answer, so a new algorithm is counted the moment it is declared, never as 1 row.
  it('algorithms: each says its work from its own settings (AlgorithmSpec.work), in whole rows', () => {
    for (const spec of ALGORITHMS) {
      assert.equal(typeof spec.work, 'function', `${spec.name}: work(params) beside its settings in dsl/schema/algorithms.ts`);
      const defaults = Object.fromEntries(spec.params.map((p) => [p.name, p.default ?? null]));
      const read = new Set<string>();
      const params = new Proxy(defaults, { get: (target, key) => (typeof key === 'string' && read.add(key), target[key as string]) });
      const envs = [...(spec.actions.includes('text') ? [{ text: true, envs: 1, rowsPerEpisode: 1 }] : []), ...(spec.actions.some((a) => a !== 'text') ? [{ text: false, envs: 4, rowsPerEpisode: 100 }] : [])];
      for (const on of envs) {
        const work = algorithmWork(spec, params, on);
        assert.ok(Number.isInteger(work.trainRows) && work.trainRows >= 1, `${spec.name}: trainRows ${work.trainRows} at its defaults`);
        assert.ok(Number.isInteger(work.sampleRows) && work.sampleRows >= 0, `${spec.name}: sampleRows ${work.sampleRows}`);
        if (!on.text) assert.equal(work.sampleRows, 0, `${spec.name}: no language model samples on an env of numbers`);
        assert.deepEqual(work.dataFiles, [], `${spec.name}: its defaults read no file`);
      }
      assert.deepEqual([...read].filter((name) => !(name in defaults)), [], `${spec.name}: work() reads only settings the registry declares`);
    }
  });

  // A learner's data file is declared once, by its setting's type (`file` in dsl/schema/build.ts):
  // the work lists it, so nothing outside the registry names the setting to find it.
  it('algorithms: the data files a stage reads come from its settings\' file types, not from their names', () => {
    const grpo = ALGORITHMS.find((a) => a.name === 'GRPO')!;
    const sft = ALGORITHMS.find((a) => a.name === 'SFT')!;
    const defaults = (spec: typeof grpo) => Object.fromEntries(spec.params.map((p) => [p.name, p.default ?? null]));
    const examples = { what: 'demonstrations, one {"prompt", "target"} object a line', format: 'examples' };
    assert.deepEqual(dataFilesOf(grpo.params, { ...defaults(grpo), sft_data: 'demos.jsonl' }), [{ param: 'sft_data', path: 'demos.jsonl', file: examples }]);
    assert.deepEqual(dataFilesOf(grpo.params, { ...defaults(grpo), sft_data: 'demos' }), [], 'an option is no file');
    assert.deepEqual(dataFilesOf(sft.params, { ...defaults(sft), data: 'pairs.jsonl' }), [{ param: 'data', path: 'pairs.jsonl', file: examples }]);
    const isFile = (t: ValueType): boolean => (t.kind === 'string' && t.file !== undefined) || (t.kind === 'oneOf' && t.types.some(isFile));
    const fileSettings = ALGORITHMS.flatMap((a) => a.params.filter((p) => isFile(p.type)).map((p) => `${a.name}.${p.name}`));
    assert.deepEqual(fileSettings, ['GRPO.sft_data', 'SFT.data', 'DPO.data', 'BC.data', 'TD3BC.data', 'IQL.data']);
    const bc = ALGORITHMS.find((a) => a.name === 'BC')!;
    assert.deepEqual(dataFilesOf(bc.params, { ...defaults(bc), data: 'hopper.npz' }).map((f) => [f.param, f.path, f.file.format]), [['data', 'hopper.npz', 'transitions']]);
  });

  it('policies: which exist, that each reads every param the registry declares', () => {
    partition('policies', POLICIES.map((p) => p.name), IMPLEMENTED_POLICIES.map((p) => p.name), Object.keys(NOT_IMPLEMENTED.policy));
    for (const definition of IMPLEMENTED_POLICIES) {
      assertReadsEvery(definition.name, POLICIES.find((p) => p.name === definition.name)!.params, (given) => definition.settings(given));
    }
  });

  it('expressions: functions, reward names, stop metrics, schedules, devices', () => {
    partition('functions', FUNCTIONS.map((f) => f.name), EXPR_FUNCTIONS, Object.keys(NOT_IMPLEMENTED_FUNCTIONS));
    // The text functions (verifiers and extractors) are what a text env compiles; the extractors are those that give text.
    assert.deepEqual(sorted(TEXT_FUNCTIONS), sorted(FUNCTIONS.filter((f) => f.text).map((f) => f.name)), 'text functions');
    assert.deepEqual(sorted(TEXT_EXTRACTORS), sorted(FUNCTIONS.filter((f) => f.text && f.returns === 'string').map((f) => f.name)), 'extractors');
    partition('reward names', REWARD_NAMES.map((n) => n.name), REWARD_REFS, Object.keys(NOT_IMPLEMENTED_REWARD_NAMES));
    partition('metrics of stop conditions', METRICS.map((m) => m.name), CONDITION_METRICS, Object.keys(NOT_IMPLEMENTED_METRICS));
    assert.deepEqual(sorted(SCHEDULE_KINDS), sorted(SCHEDULES.map((s) => s.name)), 'schedules');
    const device = EXPERIMENT.params.find((p) => p.name === 'device')!;
    assert.deepEqual(sorted(DEVICES), sorted(device.type.kind === 'choice' ? device.type.options.map((o) => o.name) : []), 'devices');
  });
});

/**
 * The runtime takes a built-in's params, defaults and ranges from the registry (one source of
 * truth); what can still drift is a param the language accepts and the runtime never reads.
 * `read` gets every declared param at its default and must look at each one.
 */
function assertReadsEvery(what: string, declared: readonly ParamSpec[], read: (given: Record<string, unknown>) => unknown): void {
  const looked = new Set<string>();
  // A required setting has no default: a string one (the offline learners' `data`) gets a path.
  const given = Object.fromEntries(declared.map((p) => [p.name, p.default ?? (p.required && p.type.kind === 'string' ? 'data.npz' : undefined)]));
  read(new Proxy(given, { get: (target, key) => (typeof key === 'string' && looked.add(key), target[key as string]) }));
  const unread = declared.map((p) => p.name).filter((name) => !looked.has(name));
  assert.deepEqual(unread, [], `${what}: params the registry declares that the runtime never reads`);
}
