// A run folder is a record of what trained: `rlx check DIR` and `rlx fmt DIR` walk past it as
// the language server does (its source/ copy names imports and modules as in the original
// folder, so checked there it reports false errors), and no command rewrites it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import { scratch } from './scratch.js';

const { work, rlx, write } = scratch('rlx-run-folders-');

const WALK = `export default class Walk {
  observationSpace = { kind: 'box', shape: [1], low: [0], high: [1] };
  actionSpace = { kind: 'discrete', n: 2 };
  reset() { return { obs: [0], info: {} }; }
  step(action) { return { obs: [0], reward: action, terminated: false, truncated: false, info: {} }; }
}
`;
/** Written unformatted on purpose: `rlx fmt .` has something to do in the spec, and would in its copy. */
const SPEC = 'import "./parts.rlx"\nenv Walk = module("./walk.mjs"){max_steps:20}\n' +
  'experiment Stroll {\n  env: Walk\n  policy: Small\n  algorithm: Short\n  budget: 64\n  seeds: [1]\n  device: cpu\n}\n';
const PARTS = 'policy Small = mlp{hidden:[4]}\nalgorithm Short = PPO { rollout_steps: 32 }\n';

let source: string;
before(() => {
  write('walk.mjs', WALK);
  write('spec.rlx', SPEC);
  write('parts.rlx', PARTS);
  // Wherever --out puts it: `results/`, a name the scan does not skip by itself.
  const trained = rlx('train', 'spec.rlx', '--out', 'results');
  assert.equal(trained.code, 0, trained.stderr);
  const experiment = path.join(work, 'results', 'Stroll');
  source = path.join(experiment, fs.readdirSync(experiment)[0], 'source');
  assert.equal(fs.readFileSync(path.join(source, 'spec.rlx'), 'utf8'), SPEC, 'the run recorded the spec as written');
});

describe('run folders on the command line', () => {
  test('rlx check . checks the specs, not the run\'s recorded copy', () => {
    // The copy's module("./walk.mjs") has no walk.mjs beside it (the run keeps env-module.mjs).
    assert.equal(fs.existsSync(path.join(source, 'walk.mjs')), false);
    const r = rlx('check', '.');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stderr, /0 errors, 0 warnings in 2 files/);
  });

  test('rlx fmt . formats the specs and leaves the recorded copy as it was', () => {
    const r = rlx('fmt', '.');
    assert.equal(r.code, 0, r.stderr);
    assert.notEqual(fs.readFileSync(path.join(work, 'spec.rlx'), 'utf8'), SPEC);
    assert.equal(fs.readFileSync(path.join(source, 'spec.rlx'), 'utf8'), SPEC);
    assert.equal(fs.readFileSync(path.join(source, 'parts.rlx'), 'utf8'), PARTS);
  });

  test('named on its own, a recorded file is not rewritten: exit 1 and the reason; --check and --stdout still read it', () => {
    const recorded = path.relative(work, path.join(source, 'parts.rlx'));
    const r = rlx('fmt', recorded);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /parts\.rlx: not formatted: it is the recorded source of the run results\/Stroll\/[^ ]+, which no command changes; format the spec the run was trained from/);
    assert.equal(fs.readFileSync(path.join(source, 'parts.rlx'), 'utf8'), PARTS);
    assert.equal(rlx('fmt', '--stdout', recorded).stdout, 'policy Small = mlp { hidden: [4] }\n\nalgorithm Short = PPO { rollout_steps: 32 }\n');
    assert.equal(rlx('fmt', '--check', recorded).code, 1);
  });

  test('a folder holding only runs says why it found nothing', () => {
    const r = rlx('check', 'results');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /'results' is a directory with no \.rlx files in it \(outside run folders/);
  });
});
