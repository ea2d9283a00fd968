// The `cnn` policy: a convolutional encoder over image observations (nature or impala,
// cnn-layout.ts), then dense ReLU layers of `hidden` widths shared by the heads: CleanRL's
// Atari and procgen agents (one network, actor and critic heads on top; SB3's CnnPolicy shares
// its features extractor the same way). An actor-critic of it is MlpPolicy with this encoder
// (actor-critic.ts); DQN's Q-network is EncodedMlp with it (algorithms/dqn/q-network.ts).
import { PlanParams } from '../plan-params.js';
import { cnnEncoder as encoderOf, type CnnEncoderSettings } from './cnn-encoder.js';
import type { EncoderDefinition } from './encoder.js';
import type { MlpSettings } from './mlp.js';
import { coreSetting } from './recurrent-core.js';

/** The `cnn` policy's settings: its encoder's, and those of the layers after it (as an mlp's, shared, ReLU). */
export interface CnnSettings extends MlpSettings, CnnEncoderSettings {}

/** Reads the plan's `cnn` settings (defaults from the registry); errors name the param. */
export function cnnSettings(params: Readonly<Record<string, unknown>>): CnnSettings {
  const p = PlanParams.of('cnn', params, 'policy cnn');
  const channels = p.value('channels') === null ? undefined : p.counts('channels');
  return { encoder: p.option('encoder', ['nature', 'impala']), channels, hidden: p.counts('hidden'), activation: 'relu', sharedTrunk: true, core: coreSetting(p) };
}

/** The encoder a network of `settings` reads its observations through. */
export function cnnEncoder(settings: CnnSettings): EncoderDefinition {
  return encoderOf(settings, 'policy cnn');
}
