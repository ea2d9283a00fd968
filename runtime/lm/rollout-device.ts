// Where a pretrained model's rollouts decode (GRPO, RLOO and REINFORCE sampling, held-out
// evaluation's greedy completions) when its run trains on a GPU: a rule read from the model,
// no measurement at run time. On a GPU the chunked decoder (chunked-decoder.ts) decodes K
// tokens per session run with the frozen base baked into the session, only the LoRA adapters
// fed. Measured with `npm run bench -- gpu` on an NVIDIA H200 at Qwen2.5-0.5B's shape (494M
// parameters), batch 64, 32 new tokens (docs/gpu.md "Generation on a GPU"): 1178.7 tokens/s,
// against 303.4 for the CPU with 16 threads (3.9x) and 280.5 for one token per webgpu run.
// Smaller shapes were not measured: a chunk's fixed cost (the cache's round trip, dispatching
// K copies of the model's kernels) is paid whatever the model's size, so the rule starts just
// below the one shape measured, and the test models (a few thousand parameters) stay on the CPU.
// With an experiment's `precision: fp16` the chunked session there is written in fp16 too, as
// the gradient step and the pi_old/pi_ref passes are on a GPU; sampling on the CPU stays fp32.
import type { ExecutionProvider, Precision } from '../tensor/index.js';

/** Parameters from which a LoRA run on a GPU device samples there (Qwen2.5-0.5B's 494M measured 3.9x the CPU; smaller shapes not measured). */
export const GPU_SAMPLING_MIN_PARAMETERS = 400e6;

/** Where rollouts decode, and why, in a few words (logged at a stage's start, kept in its hparams). */
export interface RolloutDevice {
  readonly provider: ExecutionProvider;
  /**
   * The chunked session's products: the experiment's precision on a GPU (fp16: float16 products,
   * the baked base float16 where only products read it, as the gradient step and the pi_old/pi_ref
   * passes); fp32 on the CPU, whose one-step decoder stays float32.
   */
  readonly precision: Precision;
  readonly reason: string;
}

export interface RolloutDeviceInput {
  /** The device the run trains on. */
  readonly device: ExecutionProvider;
  /** Whether the model trains LoRA adapters (its base frozen) rather than every weight. */
  readonly lora: boolean;
  readonly parameters: number;
  /** Whether the stage's sampling records each token's statistics (entropy_top_fraction, intrinsic rewards). */
  readonly tokenStatistics: boolean;
  /** The experiment's precision (default fp32). */
  readonly precision?: Precision;
  /** GPU_SAMPLING_MIN_PARAMETERS, unless a caller (a test) sets another. */
  readonly minParameters?: number;
}

/** The rule: a GPU device, LoRA, no token statistics, and a model of at least minParameters. */
export function rolloutDevice(input: RolloutDeviceInput): RolloutDevice {
  const cpu = (reason: string): RolloutDevice => ({ provider: 'cpu', precision: 'fp32', reason });
  if (input.device === 'cpu') return cpu('the run trains on the cpu');
  // Full fine-tuning would feed every weight to the device at each chunk (nothing frozen to
  // bake): at 0.5B, 2 GB a chunk, more than the chunk saves.
  if (!input.lora) return cpu('full fine-tuning: every weight would be sent to the device at each chunk');
  // Statistics need every step's logits, which the chunked graph keeps on the device; the
  // one-step GPU loop that returns them measured slower than the CPU (280.5 against 303.4 tokens/s).
  if (input.tokenStatistics) return cpu("token statistics (entropy_top_fraction, intrinsic rewards) need every step's logits");
  const from = input.minParameters ?? GPU_SAMPLING_MIN_PARAMETERS;
  const size = `${formatCount(input.parameters)} parameters`;
  if (input.parameters < from) return cpu(`${size}, under the ${formatCount(from)} from which sampling moves to the GPU`);
  const precision = input.precision ?? 'fp32';
  return { provider: input.device, precision, reason: `chunked decoding${precision === 'fp16' ? ' in fp16' : ''}, ${size}, at least ${formatCount(from)}` };
}

function formatCount(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toPrecision(3)}B`;
  if (n >= 1e6) return `${(n / 1e6).toPrecision(3)}M`;
  if (n >= 1e3) return `${(n / 1e3).toPrecision(3)}k`;
  return String(Math.round(n));
}
