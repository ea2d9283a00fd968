// Runs graphs with onnxruntime-node: a graph and its outputs are serialised and compiled
// into one InferenceSession once; each run only wraps the feeds. Symbolic dims ('B') stay
// symbolic in the model, so one session serves every batch size.

import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import * as ort from 'onnxruntime-node';
import type { Graph } from './graph.js';
import { type BuiltModel, EXTERNAL_DATA_ABOVE, EXTERNAL_DATA_FILE, type ModelIO, type ParamSource, buildModel } from './onnx.js';
import type { Precision } from './mixed-precision.js';
import type { WeightStore } from './weights.js';
import type { Tensor } from './tensor.js';
import { type DType, type HostArray, dtypeOfArray, formatShape, isStatic, numel, sameDims } from './types.js';

export type ExecutionProvider = 'cpu' | 'cuda' | 'webgpu';

export interface SessionOptions {
  /**
   * Execution providers in order of preference, default ['cpu']. A provider that cannot
   * start is an error naming it; falling back (e.g. to cpu) is the caller's decision.
   */
  readonly providers?: readonly ExecutionProvider[];
  /** Threads inside one op; default 1 (we parallelise across processes instead). */
  readonly intraOpNumThreads?: number;
  readonly graphOptimizationLevel?: 'disabled' | 'basic' | 'extended' | 'all';
  /** Feeds each Param input from this store at every run (its arrays are read live). */
  readonly weights?: WeightStore;
  /** Bakes parameter values into the model as initializers instead (see buildModel); with `weights` too, those `bake` lacks are fed from `weights`. */
  readonly bake?: ParamSource;
  /** Baked initializers past this many bytes go to a weights file beside the model (ModelOptions.externalDataAbove); default EXTERNAL_DATA_ABOVE, under protobuf's 2 GiB. */
  readonly externalDataAbove?: number;
  /** 'fp16': the model is written with float16 products over its float32 inputs (ModelOptions.precision, mixed-precision.ts); default 'fp32'. */
  readonly precision?: Precision;
  /**
   * onnxruntime's CPU memory arena (default on): it keeps the largest memory a run ever took.
   * Off for sessions whose runs vary much in size (the segmented step's), whose freed tensors
   * then go back to the system at once.
   */
  readonly memoryArena?: boolean;
}

/** A run-time input: a buffer with its dims, or just the buffer when at most one dim is symbolic. */
export type Feed = HostArray | { readonly data: HostArray; readonly dims: readonly number[] };

export interface HostTensor {
  readonly dtype: DType;
  readonly dims: readonly number[];
  readonly data: HostArray;
}

/** An ort.Tensor made for a feed, kept while later feeds are the same memory with the same dims. */
interface CachedFeed {
  readonly tensor: ort.Tensor;
  readonly data: HostArray;
  readonly dims: readonly number[];
}

/**
 * What every Session of this process has moved and waited for since the last reset: the bytes
 * of the feeds handed to onnxruntime (host to device on a GPU provider: parameters fed from a
 * WeightStore included, baked initializers not), the bytes of the outputs it handed back (device
 * to host), and the wall time of its runs. Always on: a sum over the feeds and two clock reads a
 * run, next to onnxruntime's ~10 us a call. Runs on worker threads (threaded CPU steps) are not
 * counted. `npm run bench -- gpu` reads it to say where a step's time goes.
 */
export interface SessionTraffic {
  runs: number;
  hostToDeviceBytes: number;
  deviceToHostBytes: number;
  runMs: number;
}

export const sessionTraffic: SessionTraffic = { runs: 0, hostToDeviceBytes: 0, deviceToHostBytes: 0, runMs: 0 };

/** Zeroes sessionTraffic and returns what it held. */
export function resetSessionTraffic(): SessionTraffic {
  const before = { ...sessionTraffic };
  sessionTraffic.runs = sessionTraffic.hostToDeviceBytes = sessionTraffic.deviceToHostBytes = sessionTraffic.runMs = 0;
  return before;
}

/** Runs onnxruntime on prepared feeds, adding what the run moved and took to sessionTraffic. */
async function countedRun(session: ort.InferenceSession, feeds: Record<string, ort.Tensor>, fetches?: Record<string, ort.Tensor>): Promise<ort.InferenceSession.ReturnType> {
  let fed = 0;
  for (const name in feeds) fed += (feeds[name]!.data as HostArray).byteLength;
  const start = performance.now();
  const results = fetches ? await session.run(feeds, fetches) : await session.run(feeds);
  sessionTraffic.runMs += performance.now() - start;
  let fetched = 0;
  for (const name in results) fetched += (results[name]!.data as HostArray).byteLength;
  sessionTraffic.runs++;
  sessionTraffic.hostToDeviceBytes += fed;
  sessionTraffic.deviceToHostBytes += fetched;
  return results;
}

export class Session {
  private readonly paramTensors = new Map<string, ort.Tensor>();
  private readonly feedTensors = new Map<string, CachedFeed>();
  /** The size each symbolic dim has in the feeds being checked (reused across runs). */
  private readonly boundDims = new Map<string, number>();
  /** Output tensors that runReusingOutputs() has onnxruntime write into; made at its first call. */
  private outputTensors: Record<string, ort.Tensor> | null = null;

  private constructor(
    private readonly session: ort.InferenceSession,
    readonly model: BuiltModel,
    private readonly weights: WeightStore | undefined,
  ) {}

  /** Compiles `outputs` of `graph` (once; reuse the session for every run). */
  static async create(graph: Graph, outputs: Readonly<Record<string, Tensor>>, options: SessionOptions = {}): Promise<Session> {
    const model = buildModel(graph, { outputs, bake: options.bake, bakeFound: options.bake !== undefined && options.weights !== undefined, forWebGpu: options.providers?.includes('webgpu'), precision: options.precision, externalDataAbove: options.externalDataAbove ?? EXTERNAL_DATA_ABOVE });
    if (options.weights) {
      for (const io of model.inputs) {
        if (io.isParam && !options.weights.has(io.name)) {
          throw new Error(`Session: graph parameter '${io.name}' has no value in the WeightStore`);
        }
      }
    }
    return Session.fromModel(model, options);
  }

  /** Compiles an already built model. */
  static async fromModel(model: BuiltModel, options: SessionOptions = {}): Promise<Session> {
    const session = model.externalData ? await createFromFolder(model, options) : await createInferenceSession(model.bytes, options);
    return new Session(session, model, options.weights);
  }

  get inputNames(): string[] {
    return this.model.inputs.map((io) => io.name);
  }

  get outputNames(): string[] {
    return this.model.outputs.map((io) => io.name);
  }

  /**
   * Runs the model and returns every output as a Float32Array (the training path; all
   * outputs must be float32, else use runTensors). Feeds the model does not use are ignored.
   */
  async run(feeds: Readonly<Record<string, Feed>>): Promise<Record<string, Float32Array>> {
    const other = this.model.outputs.find((io) => io.dtype !== 'float32');
    if (other) throw new Error(`Session.run: output '${other.name}' is ${other.dtype}, not float32; use runTensors`);
    const results = await countedRun(this.session, this.prepareFeeds(feeds));
    const out: Record<string, Float32Array> = {};
    // onnxruntime-node hands back fresh arrays each run, so callers may keep them.
    for (const io of this.model.outputs) out[io.name] = results[io.name]!.data as Float32Array;
    return out;
  }

  /**
   * Like run(), but onnxruntime writes the outputs into buffers this session owns: the arrays
   * returned are overwritten by the next call. For training loops, where a fresh array per
   * output and run is garbage for the collector, whose pauses stall every thread waiting on
   * this one. Outputs must be float32 with static shapes.
   */
  async runReusingOutputs(feeds: Readonly<Record<string, Feed>>): Promise<Record<string, Float32Array>> {
    this.outputTensors ??= this.allocateOutputs();
    await countedRun(this.session, this.prepareFeeds(feeds), this.outputTensors);
    const out: Record<string, Float32Array> = {};
    for (const io of this.model.outputs) out[io.name] = this.outputTensors[io.name]!.data as Float32Array;
    return out;
  }

  /**
   * Has runReusingOutputs() write output `name` into `data` from now on: the array it returned
   * for that output came back as a new object over the same memory (its buffer was transferred
   * to another thread and back: gradient-handover.ts), the old one detached.
   */
  adoptOutput(name: string, data: Float32Array): void {
    const current = this.outputTensors?.[name];
    if (!current) throw new Error(`Session.adoptOutput: no output '${name}' has been written yet`);
    if (data.length !== current.size) throw new Error(`Session.adoptOutput: output '${name}' has ${current.size} values, the array ${data.length}`);
    this.outputTensors![name] = new ort.Tensor('float32', data, current.dims);
  }

  /** Runs the model and returns outputs of any dtype with their dims. */
  async runTensors(feeds: Readonly<Record<string, Feed>>): Promise<Record<string, HostTensor>> {
    const results = await countedRun(this.session, this.prepareFeeds(feeds));
    const out: Record<string, HostTensor> = {};
    for (const io of this.model.outputs) {
      const t = results[io.name]!;
      out[io.name] = { dtype: io.dtype, dims: t.dims, data: hostData(io.dtype, t.data as HostArray) };
    }
    return out;
  }

  async release(): Promise<void> {
    await this.session.release();
  }

  private prepareFeeds(feeds: Readonly<Record<string, Feed>>): Record<string, ort.Tensor> {
    const out: Record<string, ort.Tensor> = {};
    const bound = this.boundDims;
    bound.clear();
    for (const io of this.model.inputs) {
      const feed = feeds[io.name];
      if (feed === undefined && io.isParam && this.weights) {
        out[io.name] = this.paramTensor(io);
        continue;
      }
      if (feed === undefined) {
        const what = io.isParam ? 'parameter' : 'input';
        throw new Error(`Session.run: missing ${what} '${io.name}' (${io.dtype} ${formatShape(io.shape)})`);
      }
      const { data, dims } = resolveFeed(io, feed);
      checkFeed(io, data, dims, bound);
      out[io.name] = this.feedTensor(io, data, dims);
    }
    return out;
  }

  /**
   * The ort.Tensor for a feed: the one made last time when the feed is the same memory with
   * the same dims (a training loop's fresh subarray() views of one buffer, say), else a new one.
   */
  private feedTensor(io: ModelIO, data: HostArray, dims: readonly number[]): ort.Tensor {
    const cached = this.feedTensors.get(io.name);
    if (cached && sameMemory(cached.data, data) && sameDims(cached.dims, dims)) return cached.tensor;
    const tensor = new ort.Tensor(io.dtype, data, dims);
    this.feedTensors.set(io.name, { tensor, data, dims: [...dims] });
    return tensor;
  }

  private allocateOutputs(): Record<string, ort.Tensor> {
    const tensors: Record<string, ort.Tensor> = {};
    for (const io of this.model.outputs) {
      if (io.dtype !== 'float32' || !isStatic(io.shape)) {
        throw new Error(`Session.runReusingOutputs: output '${io.name}' must be float32 with a static shape, got ${io.dtype} ${formatShape(io.shape)}`);
      }
      tensors[io.name] = new ort.Tensor('float32', new Float32Array(numel(io.shape)), [...io.shape]);
    }
    return tensors;
  }

  /** One ort.Tensor per parameter, wrapping the store's array, which optimisers update in place. */
  private paramTensor(io: ModelIO): ort.Tensor {
    const param = this.weights!.get(io.name);
    let t = this.paramTensors.get(io.name);
    const data = param.half ?? param.data;
    if (!t || t.data !== data) {
      const dtype = param.half ? 'float16' : 'float32';
      if (io.dtype !== dtype) throw new Error(`Session.run: parameter '${io.name}' is ${io.dtype} in the graph but ${dtype} in the WeightStore`);
      t = new ort.Tensor(dtype, data, param.shape);
      this.paramTensors.set(io.name, t);
    }
    return t;
  }
}

/**
 * A model with external data: onnxruntime reads the weights file relative to the model's path,
 * so both are written to a fresh temporary folder, which is removed once the session holds the
 * weights (where onnxruntime maps the file, the mapping outlives its name on Linux and macOS).
 */
async function createFromFolder(model: BuiltModel, options: SessionOptions): Promise<ort.InferenceSession> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'rlx-onnx-'));
  try {
    const file = path.join(folder, 'model.onnx');
    await fs.writeFile(file, model.bytes);
    const weights = await fs.open(path.join(folder, EXTERNAL_DATA_FILE), 'w');
    try {
      for (const { offset, bytes } of model.externalData!.chunks) await weights.write(bytes, 0, bytes.byteLength, offset);
    } finally {
      await weights.close();
    }
    return await createInferenceSession(file, options);
  } finally {
    // On Windows a mapped file cannot be removed: the folder then stays in the temporary folder.
    await fs.rm(folder, { recursive: true, force: true }).catch(() => {});
  }
}

async function createInferenceSession(bytes: Uint8Array | string, options: SessionOptions): Promise<ort.InferenceSession> {
  const providers = options.providers ?? ['cpu'];
  try {
    const threads = options.intraOpNumThreads ?? 1;
    const sessionOptions: ort.InferenceSession.SessionOptions = {
      executionProviders: [...providers],
      intraOpNumThreads: threads,
      // An op's helper threads sleep between ops instead of spinning: spinning, they held a core
      // that the trainer's own work between gradient steps (sampling, rewards) needed, and
      // examples/addition-grpo.rlx on two cores took 243 s instead of 164 s on one thread;
      // sleeping, 101 s.
      ...(threads > 1 ? { extra: { session: { intra_op: { allow_spinning: '0' } } } } : {}),
      graphOptimizationLevel: options.graphOptimizationLevel ?? 'all',
      ...(options.memoryArena === false ? { enableCpuMemArena: false } : {}),
      logSeverityLevel: logSeverity(providers),
      ...profiling(),
    };
    return await (typeof bytes === 'string' ? ort.InferenceSession.create(bytes, sessionOptions) : ort.InferenceSession.create(bytes, sessionOptions));
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    const accelerators = providers.filter((p) => p !== 'cpu');
    if (accelerators.length > 0 && looksLikeProviderFailure(reason)) {
      throw new Error(
        `Session: could not start execution provider(s) ${accelerators.join(', ')} (${reason}); ` +
          `install the provider's runtime, or run with providers ['cpu']`,
      );
    }
    throw new Error(`Session: onnxruntime rejected the model (providers ${providers.join(', ')}): ${reason}`);
  }
}

/**
 * onnxruntime's log level for a session: verbose when RLX_ORT_PLACEMENT=1 (its log then lists
 * the provider of every node, which placement.ts reads); errors only on a GPU provider, whose
 * warning that some nodes run on the CPU would repeat for every session (bench gpu lists them);
 * onnxruntime's default (warnings) otherwise.
 */
function logSeverity(providers: readonly ExecutionProvider[]): 0 | 2 | 3 {
  if (process.env.RLX_ORT_PLACEMENT === '1') return 0;
  return providers.some((p) => p !== 'cpu') ? 3 : 2;
}

/** Sessions this process has profiled: each gets its own file prefix (onnxruntime adds only a timestamp). */
let profiledSessions = 0;

/**
 * onnxruntime's profiler for a session: on when RLX_ORT_PROFILE names a folder, where each session
 * writes `ort-<pid>-<n>_<time>.json` when it is released (per node times; on webgpu, each kernel's
 * GPU time where the adapter has timestamp queries). profile.ts reads it; docs/gpu.md says how.
 */
function profiling(): Pick<ort.InferenceSession.SessionOptions, 'enableProfiling' | 'profileFilePrefix'> {
  const folder = process.env.RLX_ORT_PROFILE;
  if (!folder) return {};
  return { enableProfiling: true, profileFilePrefix: path.join(folder, `ort-${process.pid}-${++profiledSessions}`) };
}

function looksLikeProviderFailure(reason: string): boolean {
  return /provider|cuda|webgpu|dawn|vulkan|backend|\.so|library|device|adapter/i.test(reason);
}

/**
 * An output's data as HostArray holds its type: onnxruntime gives float16 as a Uint16Array of
 * its bits, or as a Float16Array where the JavaScript engine has one; both become the bits.
 */
function hostData(dtype: DType, data: HostArray): HostArray {
  if (dtype === 'float16' && !(data instanceof Uint16Array)) return new Uint16Array(data.buffer, data.byteOffset, data.byteLength / 2);
  return data;
}

function sameMemory(a: HostArray, b: HostArray): boolean {
  return a === b || (a.buffer === b.buffer && a.byteOffset === b.byteOffset && a.length === b.length && a.constructor === b.constructor);
}

/** The buffer and dims of a feed; a bare buffer gets its one symbolic dim from its length. */
export function resolveFeed(io: Pick<ModelIO, 'name' | 'shape'>, feed: Feed): { data: HostArray; dims: readonly number[] } {
  if (ArrayBuffer.isView(feed)) {
    const data = feed as HostArray;
    const unknown = io.shape.filter((d) => typeof d !== 'number').length;
    if (unknown > 1) {
      throw new Error(`Session.run: input '${io.name}' ${formatShape(io.shape)} has several symbolic dims; feed { data, dims }`);
    }
    const known = io.shape.reduce<number>((p, d) => (typeof d === 'number' ? p * d : p), 1);
    const dims = io.shape.map((d) => (typeof d === 'number' ? d : known === 0 ? 0 : data.length / known));
    return { data, dims };
  }
  return feed as { data: HostArray; dims: readonly number[] };
}

/**
 * Checks dtype, size and dims against the declaration; symbols must agree across inputs.
 * (Plain loops and no closures: it runs for every input of every training step.)
 */
export function checkFeed(io: Pick<ModelIO, 'name' | 'dtype' | 'shape'>, data: HostArray, dims: readonly number[], bound: Map<string, number>): void {
  if (dtypeOfArray(data) !== io.dtype) throw feedError(io, data, dims, 'wrong element type');
  if (dims.length !== io.shape.length) throw feedError(io, data, dims, 'wrong rank');
  let size = 1;
  for (let i = 0; i < dims.length; i++) {
    const n = dims[i]!;
    const d = io.shape[i]!;
    if (!Number.isInteger(n) || n < 0) throw feedError(io, data, dims, `dim ${i} is not a size`);
    if (typeof d === 'number' && d !== n) throw feedError(io, data, dims, `dim ${i} must be ${d}`);
    if (typeof d === 'string' && !d.startsWith('?')) {
      const seen = bound.get(d);
      if (seen !== undefined && seen !== n) throw feedError(io, data, dims, `'${d}' is ${seen} in another input`);
      bound.set(d, n);
    }
    size *= n;
  }
  if (size !== data.length) throw feedError(io, data, dims, `${data.length} elements for ${size} places`);
}

function feedError(io: Pick<ModelIO, 'name' | 'dtype' | 'shape'>, data: HostArray, dims: readonly number[], why: string): Error {
  return new Error(`Session.run: input '${io.name}' expects ${io.dtype} ${formatShape(io.shape)}, got ${dtypeOfArray(data)} ${formatShape(dims)}: ${why}`);
}
