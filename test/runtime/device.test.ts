// Device choice: cpu always works; auto falls back to the cpu with one line saying why; an
// explicit GPU that cannot start is a DeviceError; the probe's model is what buildModel writes.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { DeviceError, probeProvider, PROBE_MODEL, selectDevice } from '../../runtime/device.js';
import { Graph } from '../../runtime/tensor/graph.js';
import { buildModel } from '../../runtime/tensor/onnx.js';

it('probes with a model buildModel writes as it is stored', () => {
  const g = new Graph();
  const x = g.input('x', 'float32', [2]);
  assert.equal(Buffer.from(buildModel(g, { outputs: { y: g.add(x, 1) } }).bytes).toString('base64'), PROBE_MODEL);
});

it('starts the cpu, and treats GPUs as the machine allows', async () => {
  assert.deepEqual(await probeProvider('cpu'), { ok: true });
  assert.deepEqual(await selectDevice('cpu'), { provider: 'cpu' });
  const auto = await selectDevice('auto');
  const [cuda, webgpu] = [await probeProvider('cuda'), await probeProvider('webgpu')];
  if (cuda.ok) {
    assert.equal(auto.provider, 'cuda');
    assert.deepEqual(await selectDevice('cuda'), { provider: 'cuda' });
  } else {
    await assert.rejects(selectDevice('cuda'), (err: unknown) => err instanceof DeviceError && /^device cuda cannot start: .+\. Use --device cpu/.test(err.message));
    // auto takes webgpu when it starts, else the cpu with both reasons.
    if (webgpu.ok) assert.deepEqual(auto, { provider: 'webgpu' });
    else assert.match(auto.note ?? '', /^device auto: no GPU provider started \(cuda: .+; webgpu: .+\); training on the cpu$/);
  }
  await assert.rejects(selectDevice('tpu' as never), /unknown device "tpu"; use one of auto, cpu, cuda, webgpu/);
});
