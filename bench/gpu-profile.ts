// npm run bench -- gpu, table `profile`: where a training step's onnxruntime run spends its kernel
// time, from onnxruntime's own profiler (RLX_ORT_PROFILE, runtime/tensor/session.ts): a step is
// compiled with profiling on, run a few times, released (onnxruntime writes the file then), and the
// file is summed by op type and by model part (runtime/tensor/profile.ts).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Graph } from '../runtime/tensor/graph.js';
import type { Tensor } from '../runtime/tensor/tensor.js';
import { nodeParts, partOfNode, readOrtProfile, summarizeProfile, transformerPart, type ProfileSummary, type TimeShare } from '../runtime/tensor/profile.js';

/** Steps run before the profiled ones (the first compiles webgpu's shaders) and profiled steps. */
export const PROFILE_WARMUPS = 1;
export const PROFILED_STEPS = 3;
/** Op types printed, largest first; the rest are summed in one line. */
const TOP_OPS = 12;
/** Nodes printed, largest first, with their model part and what they computed. */
const TOP_NODES = 8;

export interface ProfiledStep {
  /** Runs the step once. */
  run(): Promise<unknown>;
  release(): Promise<void>;
  /** The graph and loss that name its nodes' model parts, where the step built them itself. */
  readonly parts?: ModelParts;
}

/** A transformer's graph and loss (after the backward pass was added), which name the model parts of its nodes. */
export interface ModelParts {
  readonly graph: Graph;
  readonly loss: Tensor;
}

/**
 * Builds a step with onnxruntime's profiling on for the sessions it creates (`create` runs with
 * RLX_ORT_PROFILE set), runs it PROFILE_WARMUPS + PROFILED_STEPS times, releases it and summarizes
 * each session's profile. Where given, `parts`' graph and loss (after `create`, which adds the
 * backward pass to the graph), or the step's own, name the model parts of a transformer's nodes. A step that makes
 * `runsPerStep` session runs (a decode of several chunks) has its first PROFILE_WARMUPS x
 * runsPerStep runs left out, and the summary's figures are per run.
 */
export async function profileStep(create: () => Promise<ProfiledStep>, parts?: ModelParts, runsPerStep = 1): Promise<{ summaries: ProfileSummary[]; partOf?: (node: string) => string }> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-profile-'));
  const before = process.env.RLX_ORT_PROFILE;
  try {
    process.env.RLX_ORT_PROFILE = folder;
    let step: ProfiledStep;
    try {
      step = await create();
    } finally {
      if (before === undefined) delete process.env.RLX_ORT_PROFILE;
      else process.env.RLX_ORT_PROFILE = before;
    }
    try {
      for (let i = 0; i < PROFILE_WARMUPS + PROFILED_STEPS; i++) await step.run();
    } finally {
      await step.release();
    }
    const named = parts ?? step.parts;
    const partOf = named ? partOfNode(nodeParts(named.graph, named.loss, transformerPart)) : undefined;
    const files = fs.readdirSync(folder).filter((f) => f.endsWith('.json')).sort();
    if (files.length === 0) throw new Error('onnxruntime wrote no profile (RLX_ORT_PROFILE)');
    return { summaries: files.map((f) => summarizeProfile(readOrtProfile(path.join(folder, f)), { skipRuns: PROFILE_WARMUPS * runsPerStep, partOf })), partOf };
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

const pct = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : '-');

/** The lines of one profiled step (or of what `unit` names, one session run: a chunk): what was timed, then the op types and the parts. */
export function profileLines(summary: ProfileSummary, provider: string, partOf?: (node: string) => string, unit = 'step'): string[] {
  const { timing, stepMs, kernelMs } = summary;
  const what =
    timing === 'gpu'
      ? 'GPU kernel time (webgpu timestamp queries)'
      : provider === 'cpu'
        ? 'kernel time (the CPU provider computing each node)'
        : 'host time in each node\'s kernel (no GPU timestamps from this adapter: recording and submitting dispatches, not GPU time)';
  const lines = [
    `    ${unit} ${stepMs.toFixed(1)} ms (onnxruntime's model_run, mean of ${summary.steps} profiled run(s)${summary.skippedRuns === 0 && PROFILE_WARMUPS > 0 ? ', warm-up included: its GPU times could not be split by run' : ''}); ` +
      `${what} ${kernelMs.toFixed(1)} ms (${pct(kernelMs, stepMs)} of the ${unit}) in ${Math.round(summary.kernelsPerStep)} kernels a ${unit}`,
  ];
  if (timing === 'gpu') lines.push(`    nodes on the CPU provider: ${Math.round(summary.cpuNodes.kernels)} a ${unit}, ${summary.cpuNodes.ms.toFixed(2)} ms (host time)`);
  const table = (title: string, rows: readonly TimeShare[]) => {
    lines.push(`    ${title.padEnd(32)}  ${`ms/${unit}`.padStart(7)}   % kernel ${`% ${unit}`.padStart(10)}   ${`kernels/${unit}`.padStart(12)}`);
    for (const r of rows) lines.push(`    ${r.key.padEnd(32)} ${r.ms.toFixed(2).padStart(8)} ${pct(r.ms, kernelMs).padStart(10)} ${pct(r.ms, stepMs).padStart(10)} ${r.kernels.toFixed(0).padStart(14)}`);
  };
  const rest = summary.byOp.slice(TOP_OPS);
  const restRow: TimeShare[] = rest.length ? [{ key: `other (${rest.length} op types)`, ms: rest.reduce((s, r) => s + r.ms, 0), kernels: rest.reduce((s, r) => s + r.kernels, 0), detail: '' }] : [];
  table('op type', [...summary.byOp.slice(0, TOP_OPS), ...restRow]);
  if (summary.byPart.length) table('model part (by parameters read)', summary.byPart);
  lines.push(`    the ${TOP_NODES} slowest nodes:`);
  for (const r of summary.byNode.slice(0, TOP_NODES)) {
    const part = partOf ? `, ${partOf(r.key)}` : '';
    lines.push(`    ${r.ms.toFixed(2).padStart(8)} ms ${pct(r.ms, kernelMs).padStart(6)}  ${r.key}${part}: ${r.detail.length > 160 ? `${r.detail.slice(0, 157)}...` : r.detail}`);
  }
  return lines;
}
