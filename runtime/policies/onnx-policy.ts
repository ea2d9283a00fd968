// A policy exported by the trainer (checkpoints/policy-*.onnx), loaded back with plain
// onnxruntime, as any other program would: input `obs` [B, obsDim]; outputs `logits`
// (discrete) or `mean` and `log_std` (continuous), and `value` (PPO's; SAC's actor has none);
// or a Q-network's `q_values` (DQN), whose action is their argmax. A SAC actor's metadata says
// `squash: tanh` with the bounds: its actions are tanh(mean + std eps) rescaled to them, as
// the trainer acts (algorithms/sac/networks.ts). A recurrent policy (recurrent-policy.ts) also
// takes `state` [B, state_width] and gives `next_state`: this actor carries it from step to
// step, zeroed where an episode ends (resetMemory, endEpisodes). Used by `rlx eval`.
import { maskValues } from '../envs/action-mask.js';
import * as ort from 'onnxruntime-node';
import type { Rng } from '../../shared/random.js';
import { ModelProto } from '../tensor/onnx-schema.js';
import { Bernoulli, Categorical, DiagGaussian, type ActionBuffer, type ActionDistribution } from './distributions.js';
import { actFromHead, type Actor, type PolicySpaces } from './policy.js';
import { argmax } from './distributions.js';
import { policySession, readPolicyFile } from './policy-file.js';

export class OnnxPolicy implements Actor {
  readonly distribution: ActionDistribution;
  private readonly logStd: Float32Array;
  private readonly head: 'logits' | 'mean' | 'q_values';

  private constructor(
    private readonly session: ort.InferenceSession,
    /** An exported policy reads flat observation rows: their width, not their shape. */
    readonly spaces: Pick<PolicySpaces, 'obsDim' | 'actionSpace'>,
    /** A SAC actor's squash: actions are tanh(x) rescaled to [low, high]; null for a plain Gaussian. */
    private readonly squash: { readonly low: readonly number[]; readonly high: readonly number[] } | null = null,
    /** Numbers of memory per row of a recurrent policy; 0 for one without. */
    private readonly stateWidth = 0,
  ) {
    const space = spaces.actionSpace;
    if (space.kind === 'discrete' && session.outputNames.includes('q_values')) {
      this.head = 'q_values';
      this.logStd = new Float32Array(0);
      this.distribution = new Categorical(space.n);
      return;
    }
    if (space.kind === 'discrete' || space.kind === 'multibinary') {
      this.head = 'logits';
      this.logStd = new Float32Array(0);
      this.distribution = space.kind === 'discrete' ? new Categorical(space.n) : new Bernoulli(space.n);
    } else {
      this.head = 'mean';
      const width = space.shape.reduce((a, b) => a * b, 1);
      this.logStd = new Float32Array(width);
      this.distribution = new DiagGaussian(width, this.logStd, space.low, space.high);
    }
    for (const name of space.kind !== 'box' ? ['logits'] : ['mean', 'log_std']) {
      if (!session.outputNames.includes(name)) throw new Error(`the policy model has no output "${name}" (outputs: ${session.outputNames.join(', ')})`);
    }
  }

  /** `bytes`: the file's, already read (and checked: rlx eval verifies them against the run's record). */
  static async load(file: string, spaces: Pick<PolicySpaces, 'obsDim' | 'actionSpace'>, bytes: Uint8Array = readPolicyFile(file)): Promise<OnnxPolicy> {
    const session = await policySession(file, bytes);
    const meta = readMetadata(bytes);
    const squash = meta.squash === 'tanh' && Array.isArray(meta.low) && Array.isArray(meta.high) ? { low: meta.low as number[], high: meta.high as number[] } : null;
    const stateWidth = session.inputNames.includes('state') ? Number(meta.state_width) : 0;
    if (!Number.isSafeInteger(stateWidth) || stateWidth < 0) throw new Error(`${file}: the policy model takes a state, but its metadata has no whole state_width`);
    return new OnnxPolicy(session, spaces, squash, stateWidth);
  }

  /** A recurrent policy's memory: [rows, stateWidth], zeros at an episode's start. */
  private memory = new Float32Array(0);

  resetMemory(rows: number): void {
    this.memory = new Float32Array(rows * this.stateWidth);
  }

  endEpisodes(terminated: Uint8Array, truncated: Uint8Array): void {
    const S = this.stateWidth;
    for (let i = 0; S > 0 && i * S < this.memory.length; i++) if (terminated[i] === 1 || truncated[i] === 1) this.memory.fill(0, i * S, (i + 1) * S);
  }

  async act(obs: Float32Array, rows: number, actions: ActionBuffer, deterministic: boolean, rng: Rng, mask?: Uint8Array | null): Promise<void> {
    const out = await this.run(obs, rows);
    if (mask && this.head !== 'mean') maskValues(out[this.head].data as Float32Array, rows, this.distribution.headWidth, mask);
    if (this.head === 'q_values') {
      // A Q-network acts greedily, deterministic or not: its exploration was the learner's.
      const q = out.q_values.data as Float32Array;
      const n = this.distribution.headWidth;
      for (let i = 0; i < rows; i++) actions[i] = argmax(q, i * n, n);
      return;
    }
    if (this.head === 'mean') this.logStd.set((out.log_std.data as Float32Array).subarray(0, this.logStd.length));
    if (this.squash) return this.actSquashed(out.mean.data as Float32Array, out.log_std.data as Float32Array, rows, actions, deterministic, rng);
    const dist = this.distribution;
    actFromHead(dist, out[this.head].data as Float32Array, rows, actions, deterministic, rng, new Float32Array(rows * dist.encodedWidth));
  }

  private actSquashed(mean: Float32Array, logStd: Float32Array, rows: number, actions: ActionBuffer, deterministic: boolean, rng: Rng): void {
    const { low, high } = this.squash!;
    const a = low.length;
    for (let i = 0; i < rows * a; i++) {
      const k = i % a;
      const x = deterministic ? mean[i] : mean[i] + Math.exp(logStd[i]) * rng.normal();
      actions[i] = Math.tanh(x) * ((high[k] - low[k]) / 2) + (high[k] + low[k]) / 2;
    }
  }

  /** Every output for `rows` observations. */
  async run(obs: Float32Array, rows: number): Promise<ort.InferenceSession.OnnxValueMapType> {
    const input = new ort.Tensor('float32', obs.subarray(0, rows * this.spaces.obsDim), [rows, this.spaces.obsDim]);
    if (this.stateWidth === 0) return this.session.run({ obs: input });
    if (this.memory.length !== rows * this.stateWidth) this.resetMemory(rows);
    const out = await this.session.run({ obs: input, state: new ort.Tensor('float32', this.memory, [rows, this.stateWidth]) });
    this.memory = Float32Array.from(out.next_state!.data as Float32Array);
    return out;
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

/** The JSON the trainer stores in the model's doc_string; empty when there is none. */
function readMetadata(bytes: Uint8Array): Record<string, unknown> {
  try {
    return JSON.parse((ModelProto.decode(bytes) as unknown as { doc_string?: string }).doc_string ?? '{}') as Record<string, unknown>;
  } catch {
    return {};
  }
}
