// The forward passes a text learner runs besides its gradient step: log pi(target) at every
// position under the sampling policy's weights (pi_old) or a copy of them kept as the stage began
// (pi_ref). Shared by the policy-gradient learner (policy-gradient.ts) and learner modules
// (../module/text-learner.ts).
import { graphWeights, type LanguageModel } from '../../policies/index.js';
import { writeCount, type Compute, type Dim, type Feed, type WeightStore } from '../../tensor/index.js';
import { buildLogProbs } from './tokens.js';
import { logProbSession, onGpu } from './log-prob-pass.js';
import { tokenLogProbRun, type LogProbRun, type MemoryChoice } from './token-step.js';

export { logProbPrecision, logProbSession } from './log-prob-pass.js';

/**
 * pi_ref: the model's weights as the stage began (a copy, kept in the checkpoint) and log pi(target)
 * under them. On a GPU every weight of the reference is baked into its session, as the frozen
 * base is: the reference never changes within a stage, and fed it would cross to the device at
 * every pass (a full fine-tuning of 85M parameters: 340 MB a pass). A resumed run loads the
 * checkpoint's reference through its WeightStore, which records the write (weight-writes.ts): the
 * session is then made again, with those weights, before its next pass. On the CPU a feed is the
 * array itself, and the weights stay fed.
 */
export class ReferencePolicy {
  private session: LogProbRun | null = null;
  /** The reference weights' write counts when the session baked them. */
  private bakedWrites: readonly number[] = [];

  private constructor(
    private readonly model: LanguageModel,
    private readonly T: Dim,
    readonly weights: WeightStore,
    private readonly compute: Compute,
    /** Whether the session bakes the reference's weights (on a GPU) or feeds them. */
    private readonly bakes: boolean,
    /** Micro-batches and segments, as the learner's step (token-step.ts). */
    private readonly memory: MemoryChoice | undefined,
  ) {}

  /** A copy of `model`'s weights as they are now; `bake` (tests): bake them on any device. */
  static async create(model: LanguageModel, T: Dim, compute: Compute, bake: boolean = onGpu(compute), memory?: MemoryChoice): Promise<ReferencePolicy> {
    const reference = new ReferencePolicy(model, T, model.weights.clone(), compute, bake, memory);
    // Made now, so that a session that cannot be made stops the stage before it samples.
    await reference.currentSession();
    return reference;
  }

  /** log pi_ref(target) at every position, [B, T]. */
  async logProbs(feeds: Readonly<Record<string, Feed>>): Promise<Float32Array> {
    return (await (await this.currentSession()).run(feeds)).logp!;
  }

  /** The session for the weights as they are: made again where they were written since it baked them. */
  async currentSession(): Promise<LogProbRun> {
    if (this.session !== null && (!this.bakes || this.unwrittenSinceBaked())) return this.session;
    await this.session?.release();
    this.session = null;
    const weights = graphWeights(this.model, this.weights);
    this.session = this.memory ? await tokenLogProbRun(this.model, this.T, buildLogProbs, this.memory, this.compute, this.weights, this.bakes ? weights : undefined) : await logProbSession(this.model, this.T, weights, this.compute, undefined, this.bakes ? weights : undefined);
    this.bakedWrites = this.weights.values.map(writeCount);
    return this.session;
  }

  async release(): Promise<void> {
    await this.session?.release();
    this.session = null;
  }

  private unwrittenSinceBaked(): boolean {
    return this.weights.values.every((data, i) => writeCount(data) === this.bakedWrites[i]);
  }
}

