// rlx check and a gymnasium(...) env: the command probes the env once (the user's own command
// may run their Python) and checks reward terms against the probed names; the answer is kept
// on disk for the next run; --no-probe leaves the names to training, as before.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { testPython } from '../helpers/python.js';
import { scratch } from './scratch.js';

const python = testPython();
const { work, rlx, write } = scratch('rlx-check-python-');
const cache = path.join(work, 'probe-cache');
if (python) Object.assign(process.env, { PYTHONPATH: python.env.PYTHONPATH, RLX_PROBE_CACHE: cache, RLX_PYTHON: python.python });

const SPEC = `env Cart = gymnasium("CartPole-v1")
policy P = mlp { }
experiment E { env: Cart, policy: P, algorithm: DQN, budget: 10k, reward: R }
reward R {
  term upright = -abs(obs.theta)
}
`;

describe('rlx check probes gymnasium envs', { skip: python === null ? 'python3 with numpy is not available' : false }, () => {
  test('--no-probe: the names are left to training', () => {
    const r = rlx('check', '--no-probe', write('cart.rlx', SPEC));
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(fs.existsSync(cache), false, 'nothing probed');
  });

  test('probed: an unknown observation name is an error, and the facts are kept for the next run', () => {
    const first = rlx('check', write('cart.rlx', SPEC));
    assert.equal(first.code, 1, first.stderr);
    assert.equal(first.stdout.trim(), "cart.rlx:5:27: error unknown-field: Cart (gymnasium(\"CartPole-v1\")) has no observation field 'theta'; its fields are: x0, x1, x2, x3");
    assert.equal(fs.readdirSync(cache).filter((f) => f.endsWith('.json')).length, 1);
    const second = rlx('check', write('cart.rlx', SPEC.replace('obs.theta', 'obs.x2')));
    assert.equal(second.code, 0, second.stdout + second.stderr);
  });

  test('spaces rlx refuses (no numbers, too many, 2^40 actions) are errors at the base, with their size (issue 43 items 9, 12)', () => {
    const spec = (kwargs: string) => `env S = gymnasium("RlxSpaces-v0") {\n  imports: ["rlx_space_envs"]\n  kwargs { ${kwargs} }\n}\npolicy P = mlp { }\nexperiment E { env: S, policy: P, algorithm: PPO, budget: 1k }\n`;
    for (const [kwargs, message] of [
      ['observation: "empty"', /holds no numbers \(shape \(0,\)\); rlx takes observation spaces of at least one number/],
      ['observation: "huge"', /holds 2,000,000 numbers; rlx takes observation spaces of at most 1,048,576/],
      ['action: "huge_discrete"', /has 1,099,511,627,776 actions; rlx takes Discrete actions of 1 to 65,536 choices/],
    ] as const) {
      const r = rlx('check', write('spaces.rlx', spec(kwargs)));
      assert.equal(r.code, 1, r.stdout + r.stderr);
      const [line, ...rest] = r.stdout.trim().split('\n');
      assert.deepEqual(rest, [], r.stdout);
      assert.match(line!, /^spaces\.rlx:1:9: error python-env-probe-failed: `rlx train` would refuse gymnasium\("RlxSpaces-v0"\): the /);
      assert.match(line!, message);
    }
  });

  test('image observations (uint8 pixels) are a warning at the base, naming the shape and a Dict key (issue 43 item 21)', () => {
    const spec = (observation: string) => `env S = gymnasium("RlxSpaces-v0") {\n  imports: ["rlx_space_envs"]\n  kwargs { observation: "${observation}" }\n}\npolicy P = mlp { }\nexperiment E { env: S, policy: P, algorithm: PPO, budget: 1k }\n`;
    const image = rlx('check', write('image.rlx', spec('image')));
    assert.equal(image.code, 0, image.stdout + image.stderr);
    assert.equal(image.stdout.trim(), "image.rlx:1:9: warning image-observations: gymnasium(\"RlxSpaces-v0\") observes an image: uint8 pixels of shape 8x8x3, which an mlp policy takes flattened and unscaled (0-255); use a cnn policy (`policy Eyes = cnn { encoder: impala }`), which reads it as an image scaled to [0, 1]");
    const keyed = rlx('check', write('keyed.rlx', spec('dict_image')));
    assert.match(keyed.stdout, /warning image-observations: gymnasium\("RlxSpaces-v0"\) observes an image \(key 'camera'\): uint8 pixels of shape 6x6, which an mlp policy takes flattened and unscaled \(0-255\); a cnn policy reads only a whole observation/);
    // A uint8 Box of one dimension is numbers, not an image.
    assert.equal(rlx('check', write('ints.rlx', spec('int_box'))).stdout.trim(), '');
  });

  test('a probe that fails is a warning at the base with Python\'s last line, and no error', () => {
    const r = rlx('check', write('broken.rlx', SPEC.replace('gymnasium("CartPole-v1")', 'gymnasium("CartPole-v1") { imports: ["no_such_package_for_rlx"] }')));
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^broken\.rlx:1:12: warning python-env-probe-failed: probing gymnasium\("CartPole-v1"\) failed, so its observation names and action kind are not checked; training would fail the same way: ModuleNotFoundError: No module named 'no_such_package_for_rlx'$/m);
  });
});
