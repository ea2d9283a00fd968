// CartPoleNoVel is CartPole observed without its velocities: the same cart (same seed, same
// actions, same rewards and ends), its observation the position and angle alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeEnv } from '../../../runtime/envs/registry.js';

test('CartPoleNoVel observes x and theta of the same cart CartPole runs', () => {
  const full = makeEnv('CartPole', { max_steps: 50 });
  const blind = makeEnv('CartPoleNoVel', { max_steps: 50 });
  assert.deepEqual(blind.obsFields, ['x', 'theta']);
  assert.deepEqual(blind.observationSpace.kind === 'box' && blind.observationSpace.shape, [2]);
  full.seed(3, 0);
  blind.seed(3, 0);
  const a = new Float32Array(4);
  const b = new Float32Array(2);
  full.reset();
  blind.reset();
  for (let t = 0; t < 30; t++) {
    full.writeObs(a, 0);
    blind.writeObs(b, 0);
    assert.deepEqual([...b], [a[0], a[2]], `step ${t}`);
    const action = t % 3 === 0 ? 1 : 0;
    const r1 = full.step(action);
    const r2 = blind.step(action);
    assert.deepEqual([r2.reward, r2.terminated, r2.truncated], [r1.reward, r1.terminated, r1.truncated]);
    assert.deepEqual([...r2.obs], [r1.obs[0], r1.obs[2]]);
    if (r1.terminated) break;
  }
});
