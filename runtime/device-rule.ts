// When `device: auto` trains on a GPU: a rule read from the plan, no measurement at run time.
// A gradient step on the webgpu provider pays a fixed cost however small it is (uploading the
// minibatch, dispatching each of the graph's kernels, reading the gradients back), which grows
// with the graph's nodes; the CPU (one thread) pays for the arithmetic alone. The GPU wins once
// a step has work enough to hide that cost. Measured with `npm run bench -- gpu` on an NVIDIA
// H200 (docs/gpu.md, 2026-11-26):
// - PPO's MLP graph (~160 nodes): ~9 ms per step on the GPU at any size up to 16k rows, where the
//   CPU does ~20G multiply-adds per second: even at ~250M (webgpu/cpu 0.2x at 52M, 1.3-1.7x at 415M).
// - the transformer's GRPO step (~500 nodes): ~12 ms per step, where the CPU does ~46G of the
//   estimate's multiply-adds (it counts the whole context) per second: even at ~550M (1.0-1.2x
//   at 654M, 5.3-5.7x at 2.6G).
// A smaller GPU computes slower but dispatches about as fast, so the thresholds stay near these.
// Software GPUs (llvmpipe) never win, and auto never picks them.
import type { Plan } from '../dsl/compile/plan.js';
import { parameterCount, readLmConfig } from '../hf/config.js';
import { stageWork } from '../dsl/schema/index.js';
import { PlanParams } from './plan-params.js';
import { isTextEnv } from './text/env.js';

/** Multiply-adds per gradient step from which auto prefers a hardware GPU to the CPU, by policy kind. */
export const GPU_MIN_MACS_PER_STEP: Readonly<Record<'mlp' | 'transformer', number>> = { mlp: 250e6, transformer: 600e6 };

/** The threshold for a policy kind (the MLP's for kinds without their own measurement). */
export const gpuMinMacs = (policyKind: string): number => (policyKind === 'transformer' ? GPU_MIN_MACS_PER_STEP.transformer : GPU_MIN_MACS_PER_STEP.mlp);

/** Tokens a pretrained model's row is assumed to hold (prompt and completion) for the estimate. */
const ASSUMED_PRETRAINED_ROW_TOKENS = 256;

/** A pretrained model's multiply-adds for a row: about its parameters per token; 0 (the CPU) when its config cannot be read here. */
function pretrainedMacsPerRow(folder: string | undefined): number {
  if (folder === undefined) return 0;
  try {
    const config = readLmConfig(folder);
    return parameterCount(config) * Math.min(config.context, ASSUMED_PRETRAINED_ROW_TOKENS);
  } catch {
    return 0; // the model's own load says what is wrong with its folder
  }
}

/** Rows an episode is assumed to last where the plan does not bound it (REINFORCE's batches). */
const ASSUMED_EPISODE_ROWS = 200;

/** The work of the plan's largest gradient step, and what it was estimated from. */
export interface PlanWork {
  /** Multiply-adds of one gradient step (forward and backward, ~3x the forward). */
  readonly macsPerStep: number;
  /** Rows (samples or sequences) of that step. */
  readonly rows: number;
  /** Multiply-adds per step from which a GPU beats the CPU for this policy (GPU_MIN_MACS_PER_STEP). */
  readonly gpuFrom: number;
}

/**
 * Estimates a gradient step's multiply-adds: rows times the policy's multiply-adds per row
 * (its weight matrices between hidden layers; for a transformer, per token, 12 width^2 per
 * block plus attention over the context), times 3 for the backward pass. The largest step of
 * all stages counts: the device serves every stage.
 */
export function planWork(plan: Plan): PlanWork {
  const perRow = policyMacsPerRow(plan.policy);
  let rows = 0;
  for (const stage of plan.stages) rows = Math.max(rows, stageRows(plan, stage.algorithm.kind, stage.algorithm.params));
  return { macsPerStep: 3 * rows * perRow, rows, gpuFrom: gpuMinMacs(plan.policy.kind) };
}

/** Multiply-adds of one forward pass of a row (a sample; for a transformer, a sequence of `context` tokens). */
export function policyMacsPerRow(policy: Pick<Plan['policy'], 'kind' | 'params'> & { readonly path?: string }): number {
  if (policy.kind === 'pretrained') return pretrainedMacsPerRow(policy.path);
  const params = PlanParams.of(policy.kind, policy.params, `policy ${policy.kind}`);
  if (policy.kind === 'transformer') {
    const width = params.count('width');
    const context = params.count('context');
    return params.count('layers') * context * (12 * width * width + 2 * context * width);
  }
  if (policy.kind === 'mlp') {
    const hidden = params.counts('hidden');
    let between = 0;
    for (let i = 1; i < hidden.length; i++) between += hidden[i - 1]! * hidden[i]!;
    // Input and output layers are narrow (an observation, a few actions): a row per unit.
    const layers = between + hidden[0]! + hidden.at(-1)!;
    // Actor and critic are two networks unless they share the trunk.
    return params.flag('shared_trunk') ? layers : 2 * layers;
  }
  return 0;
}

/** Rows of one gradient step of a stage, as its algorithm says them (AlgorithmSpec.work in the schema registry). */
function stageRows(plan: Plan, kind: string, given: Readonly<Record<string, unknown>>): number {
  // A learner module's stage carries rlx's settings of its kind: batch_size only for a numeric one.
  const text = isTextEnv(plan.env.kind) || (kind === 'module' && !('batch_size' in given));
  const maxSteps = plan.env.params.max_steps;
  const rowsPerEpisode = text ? 1 : typeof maxSteps === 'number' ? maxSteps : ASSUMED_EPISODE_ROWS;
  return stageWork(kind, given, { text, envs: plan.envs, rowsPerEpisode }).trainRows;
}

/** Whether a hardware GPU is worth it for this work, and the reason in a few words. */
export function gpuWorthIt(work: PlanWork): { worth: boolean; reason: string } {
  const macs = formatMacs(work.macsPerStep);
  const threshold = formatMacs(work.gpuFrom);
  return work.macsPerStep >= work.gpuFrom
    ? { worth: true, reason: `a gradient step is ~${macs} multiply-adds (${work.rows} rows), at least ${threshold}` }
    : { worth: false, reason: `a gradient step is ~${macs} multiply-adds (${work.rows} rows), under the ${threshold} a GPU needs to beat the CPU` };
}

function formatMacs(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toPrecision(3)}G`;
  if (n >= 1e6) return `${(n / 1e6).toPrecision(3)}M`;
  if (n >= 1e3) return `${(n / 1e3).toPrecision(3)}k`;
  return String(Math.round(n));
}
