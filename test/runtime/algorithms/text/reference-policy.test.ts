// pi_ref (runtime/algorithms/text/log-prob-sessions.ts ReferencePolicy): on a GPU its weights are
// baked into its session, so a pass sends only the batch to the device, and a checkpoint that
// loads other reference weights (a resumed run) makes the session again with them. Baking is
// asked for on the CPU provider here, so that every CI run checks it; on webgpu (lavapipe in CI)
// it is the default.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';

import { ReferencePolicy } from '../../../../runtime/algorithms/text/log-prob-sessions.js';
import { PretrainedPolicy } from '../../../../runtime/policies/pretrained.js';
import { resetSessionTraffic, sessionTraffic, type Compute, type Feed } from '../../../../runtime/tensor/index.js';
import type { ExecutionProvider } from '../../../../runtime/tensor/session.js';
import { Rng } from '../../../../shared/random.js';
import { HF_TINY } from '../../../helpers/pretrained.js';
import { webgpuOrSkip } from '../../../helpers/webgpu.js';

const computeOf = (provider: ExecutionProvider): Compute => ({ providers: [provider], threads: false });

/** A tiny qwen2 trained in full (every weight in the reference), and 2 rows of 12 random ids. */
function fullModel() {
  const model = PretrainedPolicy.load({ folder: path.join(HF_TINY, 'qwen2') }, new Rng(3));
  const [rows, width] = [2, 12];
  const random = new Rng(5);
  const ids = () => BigInt64Array.from({ length: rows * width }, () => BigInt(random.int(model.lm.config.vocab)));
  const feeds: Record<string, Feed> = { tokens: { data: ids(), dims: [rows, width] }, targets: { data: ids(), dims: [rows, width] }, ...model.rowFeeds(new Int32Array(rows), width), inv_temperature: new Float32Array([1]) };
  return { model, feeds };
}

/** Moves every weight of `model` a little: the policy after some training. */
function nudge(model: ReturnType<typeof fullModel>['model'], seed: number): void {
  const random = new Rng(seed);
  for (const name of model.weights.names) model.weights.get(name).data.forEach((x, i, w) => (w[i] = x + 0.02 * (random.uniform() - 0.5)));
}

async function checkReference(provider: ExecutionProvider, bake: boolean | undefined): Promise<void> {
  const { model, feeds } = fullModel();
  const reference = await ReferencePolicy.create(model, 'T', computeOf(provider), bake);
  const fed = await ReferencePolicy.create(model, 'T', computeOf(provider), false);
  try {
    resetSessionTraffic();
    const baked = await reference.logProbs(feeds);
    const bakedBytes = sessionTraffic.hostToDeviceBytes;
    resetSessionTraffic();
    const expected = await fed.logProbs(feeds);
    const fedBytes = sessionTraffic.hostToDeviceBytes;
    baked.forEach((x, i) => assert.ok(Math.abs(x - expected[i]!) <= 1e-5, `token ${i}: ${x} baked, ${expected[i]} fed`));
    const weightBytes = 4 * model.weights.size;
    assert.ok(fedBytes >= weightBytes, `the fed pass sent ${fedBytes} bytes, under the weights' ${weightBytes}`);
    const batchBytes = Object.values(feeds).reduce((n, f) => n + ('data' in f ? f.data : f).byteLength, 0);
    assert.ok(bakedBytes <= batchBytes, `the baked pass sent ${bakedBytes} bytes: more than its batch's ${batchBytes}`);

    // Training moves the policy, not its reference: the pass is unchanged.
    nudge(model, 11);
    assert.deepEqual(await reference.logProbs(feeds), baked);

    // A resumed run loads the checkpoint's reference (here: the moved policy) through the store.
    reference.weights.load(model.weights.snapshot());
    const resumed = await reference.logProbs(feeds);
    const fresh = await ReferencePolicy.create(model, 'T', computeOf(provider), false);
    try {
      const wanted = await fresh.logProbs(feeds);
      resumed.forEach((x, i) => assert.ok(Math.abs(x - wanted[i]!) <= 1e-5, `after the load, token ${i}: ${x}, want ${wanted[i]}`));
      assert.ok(resumed.some((x, i) => Math.abs(x - baked[i]!) > 1e-4), 'the loaded reference gave the old log-probabilities');
    } finally {
      await fresh.release();
    }
  } finally {
    await reference.release();
    await fed.release();
  }
}

test("a baked pi_ref feeds no weights, gives the fed pass's log-probabilities, and follows a checkpoint's reference (CPU provider)", async () => {
  await checkReference('cpu', true);
});

test('on webgpu pi_ref bakes its weights by default, and follows a checkpoint\'s reference (lavapipe in CI)', async (t) => {
  const skip = await webgpuOrSkip();
  if (skip) return t.skip(skip);
  await checkReference('webgpu', undefined);
});
