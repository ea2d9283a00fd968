// Which onnxruntime execution provider trains: `device: auto | cpu | cuda | webgpu`.
// auto trains on a GPU only where the plan's gradient steps are big enough for a GPU to beat
// the CPU (device-rule.ts) and a hardware GPU starts; else on the CPU, saying why in one line.
// An explicit GPU that cannot start is an error. (The acting forward pass runs outside onnxruntime either way;
// the device carries the batched value pass and the gradient steps.)
import { execFile, type ExecFileException } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plan } from '../dsl/compile/plan.js';
import { gpuWorthIt, planWork } from './device-rule.js';
import { InputError } from '../shared/input-error.js';
import type { ExecutionProvider } from './tensor/session.js';

export type DeviceRequest = 'auto' | 'cpu' | 'cuda' | 'webgpu';

export const DEVICES: readonly DeviceRequest[] = ['auto', 'cpu', 'cuda', 'webgpu'];

export class DeviceError extends InputError {
  override name = 'DeviceError';
}

export interface DeviceChoice {
  readonly provider: ExecutionProvider;
  /** Why this device, in a few words (printed first by `rlx train`, kept in status.json). */
  readonly reason: string;
  /** One line for the user when auto fell back to the CPU because no GPU started. */
  readonly note?: string;
}

/** The reason of a device the plan or the command line named (nothing to explain). */
export const ASKED_FOR = 'asked for';

// The probe runs in a child process: a provider that fails to start writes native error noise
// to stderr (which the parent keeps from the user) and could in principle take its process
// down. The child's code is inline (no script file beside this one), so the probe works the
// same from out/ and from a bundle; it loads the same onnxruntime-node as this process.
// At log level info onnxruntime lists on stderr the hardware it discovered, each device with
// its type (0 CPU, 1 GPU, 2 NPU): a WebGPU provider that starts on a machine without a GPU
// runs on a software adapter (Mesa's llvmpipe, SwiftShader).
const PROBE = `
const ort = await import(process.env.RLX_PROBE_ORT);
ort.env.logLevel = 'info';
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
export type ProbeResult = { ok: true; hardwareGpu?: boolean } | { ok: false; reason: string };

export async function probeProvider(provider: ExecutionProvider): Promise<ProbeResult> {
  // Skip the process when it can only fail.
  if (provider === 'cuda' && cudaLibraryMissing()) return { ok: false, reason: 'Failed to load shared library (no CUDA provider library beside onnxruntime)' };
  const ort = pathToFileURL(onnxruntimeEntry()).href;
  const { error, stdout, stderr } = await new Promise<{ error: ExecFileException | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', PROBE],
      { encoding: 'utf8', timeout: 60_000, maxBuffer: 16 << 20, env: { ...process.env, RLX_PROBE_ORT: ort, RLX_PROBE_PROVIDER: provider, RLX_PROBE_MODEL: PROBE_MODEL } },
      (err, out, errOut) => resolve({ error: err, stdout: out, stderr: errOut }),
    );
  });
  try {
    const result = JSON.parse(stdout) as ProbeResult;
    const discovered = hardwareGpuDiscovered(stderr);
    return result.ok && provider !== 'cpu' && discovered !== undefined ? { ok: true, hardwareGpu: discovered } : result;
  } catch {
    const why = error?.signal ? `killed by ${error.signal}` : error ? error.message.split('\n')[0] : 'it printed no answer';
    return { ok: false, reason: `the probe process failed (${why})` };
  }
}

/**
 * Whether onnxruntime's log (level info) lists a GPU among the hardware it discovered;
 * undefined when it lists no devices at all (another platform's build, say).
 */
export function hardwareGpuDiscovered(log: string): boolean | undefined {
  const types = [...log.matchAll(/Discovered OrtHardwareDevice \{[^}]*\btype:(\d+)/g)].map((m) => Number(m[1]));
  return types.length === 0 ? undefined : types.includes(1);
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
  if (/RequestAdapterStatus|adapter/i.test(why)) return 'no usable GPU adapter: install libvulkan1 and the GPU\'s Vulkan driver (NVIDIA\'s needs libglvnd0 too; docs/gpu.md)';
  const line = why.split('\n')[0];
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}

/**
 * The device for a request: cpu at once; a GPU after probing it (a DeviceError if it cannot
 * start). auto, given the plan, first asks device-rule.ts whether its gradient steps are big
 * enough for a GPU; if so it probes the GPU providers at the same time and takes the first
 * that starts on a hardware GPU, in the order cuda, webgpu; else the cpu, with the reason.
 */
export async function selectDevice(request: DeviceRequest, plan?: Plan): Promise<DeviceChoice> {
  if (!DEVICES.includes(request)) throw new DeviceError(`unknown device "${String(request)}"; use one of ${DEVICES.join(', ')}`);
  if (request === 'cpu') return { provider: 'cpu', reason: ASKED_FOR };
  if (request === 'cuda' || request === 'webgpu') {
    const probe = await probeProvider(request);
    if (!probe.ok) throw new DeviceError(`device ${request} cannot start: ${shortReason(probe.reason)}. Use --device cpu (or auto) to train on the CPU; docs/gpu.md says how to install the ${request} provider's runtime.`);
    const software = probe.hardwareGpu === false ? ' (a software adapter: no GPU found, slower than the cpu)' : '';
    return { provider: request, reason: `${ASKED_FOR}${software}` };
  }
  const work = plan ? gpuWorthIt(planWork(plan)) : { worth: true, reason: '' };
  if (!work.worth) return { provider: 'cpu', reason: `auto: ${work.reason}` };
  const gpus = ['cuda', 'webgpu'] as const;
  const probes = await Promise.all(gpus.map((provider) => probeProvider(provider)));
  const why = work.reason ? `: ${work.reason}` : '';
  const started = gpus.find((_, i) => { const p = probes[i]!; return p.ok && p.hardwareGpu !== false; });
  if (started) return { provider: started, reason: `auto${why}` };
  const reasons = gpus.map((provider, i) => {
    const p = probes[i]!;
    return `${provider}: ${p.ok ? 'a software adapter only (no GPU found), slower than the cpu' : shortReason(p.reason)}`;
  });
  const reason = `auto: no GPU provider started on a GPU (${reasons.join('; ')})`;
  return { provider: 'cpu', reason, note: `device ${reason}; training on the cpu` };
}
