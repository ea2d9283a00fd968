// Which onnxruntime execution provider trains: `device: auto | cpu | cuda | webgpu`.
// auto tries the GPU providers and falls back to the CPU, saying why in one line; an explicit
// GPU that cannot start is an error. (The acting forward pass runs outside onnxruntime either way;
// the device carries the batched value pass and the gradient steps.)
import { execFile, type ExecFileException } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ExecutionProvider } from './tensor/session.js';

export type DeviceRequest = 'auto' | 'cpu' | 'cuda' | 'webgpu';

export const DEVICES: readonly DeviceRequest[] = ['auto', 'cpu', 'cuda', 'webgpu'];

export class DeviceError extends Error {
  override name = 'DeviceError';
}

export interface DeviceChoice {
  readonly provider: ExecutionProvider;
  /** One line for the user when auto fell back to the CPU. */
  readonly note?: string;
}

// The probe runs in a child process: a provider that fails to start writes native error noise
// to stderr (which the parent keeps from the user) and could in principle take its process
// down. The child's code is inline (no script file beside this one), so the probe works the
// same from out/ and from a bundle; it loads the same onnxruntime-node as this process.
const PROBE = `
const ort = await import(process.env.RLX_PROBE_ORT);
try {
  const session = await ort.InferenceSession.create(Buffer.from(process.env.RLX_PROBE_MODEL, 'base64'), { executionProviders: [process.env.RLX_PROBE_PROVIDER] });
  const { y } = await session.run({ x: new ort.Tensor('float32', new Float32Array([1, 2]), [2]) });
  if (y.data[0] !== 2 || y.data[1] !== 3) throw new Error('the provider computed 1 + 1 = ' + y.data[0]);
  process.stdout.write(JSON.stringify({ ok: true }));
} catch (err) {
  process.stdout.write(JSON.stringify({ ok: false, reason: err.message }));
}`;

/**
 * y = x + 1 for x float32 [2], as buildModel writes it (kept as bytes so that this module, which
 * every `rlx` command loads, does not load the graph builder; a test rebuilds and compares it).
 */
export const PROBE_MODEL = 'CAgSA3JseBoFMC4xLjA6TwoXCgF4CgNfYzESAXkaBUFkZF8yIgNBZGQSA3JseCoNEAFCA19jMUoEAACAP1oPCgF4EgoKCAgBEgQKAggCYg8KAXkSCgoICAESBAoCCAJCBAoAEBI=';

/**
 * Tries to start `provider` in a child process; the reason when it cannot. Asynchronous, so the
 * caller can do other work meanwhile (a probe process costs ~150 ms: it loads onnxruntime).
 */
export async function probeProvider(provider: ExecutionProvider): Promise<{ ok: true } | { ok: false; reason: string }> {
  // Skip the process when it can only fail.
  if (provider === 'cuda' && cudaLibraryMissing()) return { ok: false, reason: 'Failed to load shared library (no CUDA provider library beside onnxruntime)' };
  const ort = pathToFileURL(onnxruntimeEntry()).href;
  const { error, stdout } = await new Promise<{ error: ExecFileException | null; stdout: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', PROBE],
      { encoding: 'utf8', timeout: 60_000, env: { ...process.env, RLX_PROBE_ORT: ort, RLX_PROBE_PROVIDER: provider, RLX_PROBE_MODEL: PROBE_MODEL } },
      (err, out) => resolve({ error: err, stdout: out }),
    );
  });
  try {
    return JSON.parse(stdout) as { ok: true } | { ok: false; reason: string };
  } catch {
    const why = error?.signal ? `killed by ${error.signal}` : error ? error.message.split('\n')[0] : 'it printed no answer';
    return { ok: false, reason: `the probe process failed (${why})` };
  }
}

/** The onnxruntime-node this process loads (its dist/index.js). */
const onnxruntimeEntry = () => createRequire(import.meta.url).resolve('onnxruntime-node');

/**
 * onnxruntime loads its CUDA provider from a library beside its own (installed with the CUDA
 * build of onnxruntime-node; the default package has none). True only when the folder holding
 * onnxruntime's own library is there and that file is not: anything else is left to the probe.
 */
function cudaLibraryMissing(): boolean {
  const name = process.platform === 'win32' ? 'onnxruntime_providers_cuda.dll' : 'libonnxruntime_providers_cuda.so';
  try {
    const root = path.dirname(path.dirname(onnxruntimeEntry()));
    const folder = path.join(root, 'bin', 'napi-v6', process.platform, process.arch);
    return fs.existsSync(path.join(folder, 'onnxruntime_binding.node')) && !fs.existsSync(path.join(folder, name));
  } catch {
    return false;
  }
}

/** A provider's failure in a few words, for one line of output. */
function shortReason(reason: string): string {
  // Session's message wraps onnxruntime's: "could not start execution provider(s) X (WHY); install ..."
  const why = /could not start execution provider\(s\) \w+ \((.*)\); install/s.exec(reason)?.[1] ?? reason;
  if (/Failed to load shared library/i.test(why)) return 'its provider library is not installed';
  if (/RequestAdapterStatus|adapter/i.test(why)) return 'no GPU adapter (no Vulkan loader or GPU driver)';
  const line = why.split('\n')[0];
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}

/**
 * The device for a request: cpu at once; a GPU after probing it (a DeviceError if it cannot
 * start); auto probes the GPU providers at the same time and takes the first that starts, in
 * the order cuda, webgpu, else the cpu with a note saying why.
 */
export async function selectDevice(request: DeviceRequest): Promise<DeviceChoice> {
  if (!DEVICES.includes(request)) throw new DeviceError(`unknown device "${String(request)}"; use one of ${DEVICES.join(', ')}`);
  if (request === 'cpu') return { provider: 'cpu' };
  if (request === 'cuda' || request === 'webgpu') {
    const probe = await probeProvider(request);
    if (!probe.ok) throw new DeviceError(`device ${request} cannot start: ${shortReason(probe.reason)}. Use --device cpu (or auto) to train on the CPU.`);
    return { provider: request };
  }
  const gpus = ['cuda', 'webgpu'] as const;
  const probes = await Promise.all(gpus.map((provider) => probeProvider(provider)));
  const started = gpus.find((_, i) => probes[i]!.ok);
  if (started) return { provider: started };
  const reasons = gpus.map((provider, i) => `${provider}: ${shortReason((probes[i] as { reason: string }).reason)}`);
  return { provider: 'cpu', note: `device auto: no GPU provider started (${reasons.join('; ')}); training on the cpu` };
}
