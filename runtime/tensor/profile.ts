// Reads the profile onnxruntime writes for a session with profiling on (RLX_ORT_PROFILE, session.ts)
// and says where a run's kernel time goes: by op type, and by model part where node names allow.
//
// The file is a Chrome trace: a JSON array of complete events ({ cat, name, ts, dur } in
// microseconds). onnxruntime-node 1.30 writes, per session:
// - cat 'Session': model loading, session_initialization, and per run a `model_run` event
//   (the run's wall time, host clock) holding a `SequentialExecutor::Execute` one;
// - cat 'Node': per node and run, `<node>_kernel_time`, args { op_name, provider }: the host's time
//   in the node's kernel. On the CPU provider that is the op's compute; on a GPU provider it is the
//   time to record and submit the op's dispatches, not the GPU's time;
// - cat 'Api', only on webgpu where the adapter has timestamp queries (lavapipe does):
//   per dispatched program, `<node>&<op>&<program>`, dur = the GPU's time between timestamps written
//   around the dispatch. ts counts from the session's first GPU timestamp (GPU clock), so these are
//   matched to runs by order: onnxruntime collects each run's at the end of that run.
// Fused or inserted nodes keep a name derived from a graph node's or get their own (`Memcpy`).
import type { Graph } from './graph.js';
import type { Tensor } from './tensor.js';
import { readInputJson } from '../../shared/input-files.js';

/** Larger profiles are refused: a profiled 12 x 768 step writes a few MB per run. */
export const MAX_PROFILE_BYTES = 512 * 2 ** 20;

/** A profile onnxruntime did not write as expected (read by the bench, never by rlx's commands: not a refusal of input). */
export class ProfileError extends Error {
  override name = 'ProfileError';
}

/** One kernel's time in one run. */
export interface KernelTime {
  /** The graph node's name in the model (`MatMul_123`). */
  readonly node: string;
  /** Its op type (`MatMul`). */
  readonly op: string;
  readonly ms: number;
  /** The run it belongs to (0 = the session's first), -1 where the runs could not be told apart. */
  readonly run: number;
  /** Where it ran: the provider for host times, 'gpu' for GPU timestamps. */
  readonly where: string;
  /** What it computed: the program and its shapes (GPU), the input shapes (host). */
  readonly detail: string;
}

export interface OrtProfile {
  /** Each run's wall time (onnxruntime's model_run), in ms, in order. */
  readonly runMs: readonly number[];
  /** Every node's host time (cat 'Node'). */
  readonly hostKernels: readonly KernelTime[];
  /** Every GPU dispatch's time (cat 'Api'): empty on the CPU, or where the adapter has no timestamp queries. */
  readonly gpuKernels: readonly KernelTime[];
  /** Whether gpuKernels could be split into runs (each run dispatches the same programs in the same order). */
  readonly gpuSplitByRun: boolean;
}

interface TraceEvent {
  readonly cat: string;
  readonly name: string;
  readonly ts: number;
  readonly dur: number;
  readonly args?: Record<string, unknown>;
}

/** Reads a profile file (a regular file, at most MAX_PROFILE_BYTES). */
export function readOrtProfile(file: string): OrtProfile {
  return parseOrtProfile(readInputJson(file, { what: 'onnxruntime profile', maxBytes: MAX_PROFILE_BYTES }), file);
}

/** The profile in onnxruntime's trace events; `source` names it in errors. */
export function parseOrtProfile(json: unknown, source: string): OrtProfile {
  if (!Array.isArray(json)) throw new ProfileError(`the onnxruntime profile ${source} is not a JSON array of trace events`);
  const events: TraceEvent[] = [];
  for (const e of json) {
    if (typeof e !== 'object' || e === null) continue;
    const { cat, name, ts, dur } = e as Record<string, unknown>;
    if (typeof cat === 'string' && typeof name === 'string' && typeof ts === 'number' && typeof dur === 'number') events.push(e as TraceEvent);
  }
  const runs = events.filter((e) => e.cat === 'Session' && e.name === 'model_run').sort((a, b) => a.ts - b.ts);
  const runOf = (ts: number) => runs.findIndex((r) => ts >= r.ts && ts <= r.ts + r.dur);
  const hostKernels = events
    .filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time'))
    .map((e) => ({
      node: e.name.slice(0, -'_kernel_time'.length),
      op: typeof e.args?.op_name === 'string' ? e.args.op_name : '?',
      ms: e.dur / 1000,
      run: runOf(e.ts),
      where: typeof e.args?.provider === 'string' ? e.args.provider : '?',
      detail: `inputs ${JSON.stringify(e.args?.input_type_shape ?? [])}`,
    }));
  const dispatches = events.filter((e) => e.cat === 'Api' && e.name.split('&').length === 3);
  const { runOfDispatch, split } = splitByRun(dispatches.map((e) => e.name), runs.length);
  const gpuKernels = dispatches.map((e, i) => {
    const [node, op, program] = e.name.split('&') as [string, string, string];
    const shapes = typeof e.args?.shapes === 'string' ? e.args.shapes.trim() : '';
    return { node, op, ms: e.dur / 1000, run: runOfDispatch(i), where: 'gpu', detail: `${program} ${shapes}` };
  });
  return { runMs: runs.map((r) => r.dur / 1000), hostKernels, gpuKernels, gpuSplitByRun: split };
}

/**
 * Which run each GPU dispatch belongs to: the runs' dispatches are equal runs of names when every run
 * dispatches the same programs (same shapes); otherwise they cannot be told apart (-1).
 */
function splitByRun(names: readonly string[], runs: number): { runOfDispatch: (i: number) => number; split: boolean } {
  const unknown = { runOfDispatch: () => -1, split: false };
  if (runs === 0 || names.length === 0 || names.length % runs !== 0) return unknown;
  const perRun = names.length / runs;
  for (let i = perRun; i < names.length; i++) if (names[i] !== names[i % perRun]) return unknown;
  return { runOfDispatch: (i) => Math.floor(i / perRun), split: true };
}

/** A sum of kernel times over the runs summarized, per step. */
export interface TimeShare {
  readonly key: string;
  /** Kernel ms per step. */
  readonly ms: number;
  /** Kernels per step. */
  readonly kernels: number;
  /** The first kernel's detail (KernelTime.detail). */
  readonly detail: string;
}

export interface ProfileSummary {
  /** 'gpu': GPU timestamps of webgpu's dispatches; 'host': the host's time in each node's kernel. */
  readonly timing: 'gpu' | 'host';
  /** The runs summarized (after `skipRuns`); with GPU times that could not be split by run, all of them. */
  readonly steps: number;
  /** Mean wall time of those runs (model_run), ms. */
  readonly stepMs: number;
  /** Kernel ms per step, summed over every kernel. */
  readonly kernelMs: number;
  readonly kernelsPerStep: number;
  /** By op type, largest first. */
  readonly byOp: readonly TimeShare[];
  /** By the part `partOf` names, largest first (empty without it). */
  readonly byPart: readonly TimeShare[];
  /** By node (each node's dispatches summed), largest first. */
  readonly byNode: readonly TimeShare[];
  /** On a GPU provider: the nodes left to the CPU provider (host time: their compute). */
  readonly cpuNodes: TimeShare;
  /** The first runs left out (warm-up): fewer than asked where GPU times could not be split by run (0), or to keep one run. */
  readonly skippedRuns: number;
}

/**
 * Kernel time per step by op type (and by part), over the runs after the first `skipRuns`
 * (warm-up). GPU times are used where the profile has them, else the host's.
 */
export function summarizeProfile(profile: OrtProfile, options: { skipRuns?: number; partOf?: (node: string) => string } = {}): ProfileSummary {
  const timing = profile.gpuKernels.length > 0 ? 'gpu' : 'host';
  const all = timing === 'gpu' ? profile.gpuKernels : profile.hostKernels.filter((k) => k.run >= 0);
  // GPU times not split by run are summed over every run, warm-up included.
  const canSkip = timing === 'host' || profile.gpuSplitByRun;
  const firstRun = canSkip ? Math.min(options.skipRuns ?? 0, Math.max(profile.runMs.length - 1, 0)) : 0;
  const kept = canSkip ? all.filter((k) => k.run >= firstRun) : all;
  const steps = Math.max(profile.runMs.length - firstRun, 1);
  const runMs = profile.runMs.slice(firstRun);
  const sum = (kernels: readonly KernelTime[], key: string): TimeShare => ({
    key,
    ms: kernels.reduce((s, k) => s + k.ms, 0) / steps,
    kernels: kernels.length / steps,
    detail: kernels[0]?.detail ?? '',
  });
  const by = (keyOf: (k: KernelTime) => string): TimeShare[] => {
    const groups = new Map<string, KernelTime[]>();
    for (const k of kept) {
      const key = keyOf(k);
      let group = groups.get(key);
      if (!group) groups.set(key, (group = []));
      group.push(k);
    }
    return [...groups].map(([key, group]) => sum(group, key)).sort((a, b) => b.ms - a.ms);
  };
  const total = sum(kept, 'all');
  const cpuNodes = timing === 'gpu' ? profile.hostKernels.filter((k) => k.run >= firstRun && k.where === 'CPUExecutionProvider') : [];
  return {
    timing,
    steps,
    stepMs: runMs.length > 0 ? runMs.reduce((s, x) => s + x, 0) / runMs.length : NaN,
    kernelMs: total.ms,
    kernelsPerStep: total.kernels,
    byOp: by((k) => k.op),
    byPart: options.partOf ? by((k) => options.partOf!(k.node)) : [],
    byNode: by((k) => k.node),
    cpuNodes: sum(cpuNodes, 'cpu'),
    skippedRuns: firstRun,
  };
}

/**
 * The graph tensor a node was written from: buildModel names nodes `<op>_<id>` (`<op>_t<id>` for
 * some lowerings); onnxruntime keeps the name as a prefix of a node it rewrites or fuses
 * (`Reshape_522_new_reshape`, `MatMul_32/MatmulTransposeFusion/`).
 */
export function tensorIdOfNode(node: string): number | undefined {
  const match = /^[A-Za-z]+_t?(\d+)(?=$|[^0-9A-Za-z])/.exec(node);
  return match ? Number(match[1]) : undefined;
}

/**
 * The model part of each graph node, by the parameters nodes read. A parameter's part comes from
 * `partOfParam` (its name); a forward node (created up to `loss`) belongs to the part of the next node
 * that reads a parameter (a layer norm's statistics come before its scale, attention's softmax before
 * its output projection), or 'loss' after the last one. The gradient builder writes the backward
 * pass in reverse, so a backward node belongs to the part of the last backward node before it that
 * reads a parameter ('loss' before the first), suffixed ' (backward)'. Approximate at the seams
 * (a residual add, a bias's gradient), which are cheap ops. What concatenates the outputs is
 * PACKED_OUTPUTS.
 */
export function nodeParts(graph: Graph, loss: Tensor, partOfParam: (param: string) => string): Map<number, string> {
  const parts = new Map<number, string>();
  // A parameter read directly, or through a view of it (a tied head reads the embedding transposed).
  const paramOf = (t: Tensor): Tensor | undefined => (t.op === 'Param' ? t : VIEW_OPS.has(t.op) ? paramOf(t.inputs[0]!) : undefined);
  const readsParam = (t: Tensor) => (VIEW_OPS.has(t.op) ? undefined : t.inputs.map(paramOf).find((p) => p !== undefined));
  const nodes = graph.nodes.filter((t) => !t.isLeaf);
  const forward = nodes.filter((t) => t.id <= loss.id);
  let next = 'loss';
  for (let i = forward.length - 1; i >= 0; i--) {
    const param = readsParam(forward[i]!);
    if (param) next = partOfParam(param.name!);
    parts.set(forward[i]!.id, next);
  }
  let previous = 'loss';
  for (const t of nodes.filter((n) => n.id > loss.id)) {
    const param = readsParam(t);
    if (param) previous = partOfParam(param.name!);
    parts.set(t.id, `${previous} (backward)`);
  }
  // What packs a step's outputs: a Concat made after the loss that nothing reads (every gradient
  // flattened into one output, gradient-parts.ts; the loss and metrics, gradient-step.ts), with
  // the reshapes only it reads. It comes after the last parameter's gradient, not in its part.
  const readers = new Map<number, number>();
  for (const t of nodes) for (const input of t.inputs) readers.set(input.id, (readers.get(input.id) ?? 0) + 1);
  for (const t of nodes) {
    if (t.id <= loss.id || t.op !== 'Concat' || readers.has(t.id)) continue;
    parts.set(t.id, PACKED_OUTPUTS);
    for (const input of t.inputs) if (input.op === 'Reshape' && input.id > loss.id && readers.get(input.id) === 1) parts.set(input.id, PACKED_OUTPUTS);
  }
  return parts;
}

export const PACKED_OUTPUTS = 'packing the outputs';

/** Ops that only lay a tensor out anew: a node reading a parameter through them reads that parameter. */
const VIEW_OPS = new Set(['Transpose', 'Reshape', 'Cast', 'Unsqueeze', 'Squeeze']);

/**
 * A transformer parameter's part, by the names runtime/policies/transformer gives them
 * (`h.3.attn.qkv.weight`, `lnf.scale`, `wte`) and those of the pretrained families (runtime/lm/weights.ts:
 * `model.layers.3.self_attn.q_proj.weight` and its LoRA adapters, `model.layers.3.input_layernorm.weight`,
 * Qwen3's `self_attn.q_norm`, `model.embed_tokens.weight`, `lm_head.weight`, GPT-2's `transformer.h.3.ln_1`).
 */
export function transformerPart(param: string): string {
  if (/(^|\.)(ln\w*|norm\w*|\w*layernorm|[qk]_norm)\./.test(param)) return 'layer norm';
  if (/(^|\.)(self_)?attn\./.test(param)) return 'attention';
  if (/(^|\.)mlp\./.test(param)) return 'MLP';
  if (/^(wte|wpe)$|(^|\.)(wte|wpe|embed_tokens|lm_head)\./.test(param)) return 'embeddings and head';
  return 'other';
}

/**
 * A part lookup for summarizeProfile. Nodes not written from one graph node get a part of their
 * own: precision fp16's casts and webgpu's lowerings (named `<op>_l<n>` by buildModel), and what
 * onnxruntime inserts (copies to and from the host, layout transposes).
 */
export function partOfNode(parts: ReadonlyMap<number, string>): (node: string) => string {
  return (node) => {
    const id = tensorIdOfNode(node);
    const part = id !== undefined ? parts.get(id) : undefined;
    if (part !== undefined) return part;
    if (/^Cast_l\d+$/.test(node)) return 'fp16 casts';
    if (/^[A-Za-z]+_l\d+$/.test(node)) return 'lowered ops';
    return 'inserted by onnxruntime';
  };
}
