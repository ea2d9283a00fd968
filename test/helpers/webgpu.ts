// Whether a test of the webgpu provider runs here: it starts on Mesa's software Vulkan
// (lavapipe) on machines without a GPU, and .ci/run installs that, so in CI it must start.
import assert from 'node:assert/strict';
import { probeProvider } from '../../runtime/device.js';

const INSTALL = 'install Mesa >= 25 software Vulkan: apt-get install -y -t bookworm-backports mesa-vulkan-drivers libvulkan1 (docs/gpu.md)';

/** false when the WebGPU provider starts here, else the reason to skip; fails in CI, where it must start. */
export async function webgpuOrSkip(): Promise<string | false> {
  const probe = await probeProvider('webgpu');
  if (probe.ok) return false;
  if (process.env.CI) assert.fail(`the webgpu provider does not start in CI (${probe.reason}); .ci/run must ${INSTALL}`);
  // onnxruntime's message starts with its source file and the failed check: keep what follows.
  return `the webgpu provider does not start (${probe.reason.replace(/^[^]*? was false\. /, '').split('\n')[0]}); ${INSTALL}`;
}
