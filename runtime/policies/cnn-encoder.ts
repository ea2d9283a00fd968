// The `cnn` policy's encoder (encoder.ts): a convolutional network over image observations,
// `nature` or `impala` (cnn-layout.ts says what each is), its weights in the network's store as
// `${prefix}.conv0.weight` ... ([out, in, k, k], as PyTorch's Conv2d), drawn as CleanRL's
// layer_init draws them: orthogonal with gain sqrt(2) over each weight's [out, in * k * k]
// rows, zero biases. The graph pass reshapes the flat observation rows to images, scales pixel
// values 0-255 to [0, 1] and runs the layers (conv2d, maxPool2d); acting runs conv-stack.ts.
import type { Rng } from '../../shared/random.js';
import type { Graph, Tensor } from '../tensor/index.js';
import { orthogonal } from '../tensor/init.js';
import { cnnLayout, convsOf, imageShape, outputShape, type CnnEncoderKind, type CnnLayout, type ConvSpec } from './cnn-layout.js';
import { ConvStack } from './conv-stack.js';
import type { EncoderDefinition, ObservationEncoder } from './encoder.js';
import { graphParam } from './linear-layers.js';

export interface CnnEncoderSettings {
  readonly encoder: CnnEncoderKind;
  /** Widths of the convolutions (nature: 3) or of the stacks (impala); the encoder's own when absent. */
  readonly channels?: readonly number[];
}

/** The encoder definition of `settings` (the policy's; `who` names it in errors). */
export function cnnEncoder(settings: CnnEncoderSettings, who: string): EncoderDefinition {
  return {
    name: 'cnn',
    build: (spaces, store, prefix, rng: Rng): ObservationEncoder => {
      const image = imageShape(spaces.obsShape, who);
      const layout = cnnLayout(settings.encoder, image, settings.channels, who);
      const random = () => rng.uniform();
      for (const conv of convsOf(layout)) {
        const fanIn = conv.inChannels * conv.kernel * conv.kernel;
        store.add(`${prefix}.${conv.name}.weight`, [conv.outChannels, conv.inChannels, conv.kernel, conv.kernel], () => orthogonal(random, conv.outChannels, fanIn, Math.SQRT2));
        store.add(`${prefix}.${conv.name}.bias`, [conv.outChannels]);
      }
      const last = outputShape(layout, image);
      const stack = new ConvStack(store, prefix, layout, image);
      return {
        features: last.channels * last.height * last.width,
        encode: (g, obs, rename) => encodeImages(g, obs, layout, image, (conv, x, relu) => {
          const param = (suffix: string) => graphParam(g, store, `${prefix}.${conv.name}.${suffix}`, rename);
          const y = g.conv2d(x, param('weight'), param('bias'), { stride: conv.stride, pad: conv.pad });
          return relu ? g.relu(y) : y;
        }),
        encodeRows: (obs, rows) => stack.encode(obs, rows),
        sync: () => stack.sync(),
      };
    },
  };
}

type ConvLayer = (conv: ConvSpec, x: Tensor, relu: boolean) => Tensor;

/** Feature rows [B, C' H' W'] of observation rows [B, obsDim] through `layout`. */
function encodeImages(g: Graph, obs: Tensor, layout: CnnLayout, image: ReturnType<typeof imageShape>, conv: ConvLayer): Tensor {
  const { channels: c, height: h, width: w, channelsLast } = image;
  const pixels = g.mul(obs, 1 / 255);
  let x = channelsLast ? g.transpose(g.reshape(pixels, [-1, h, w, c]), [0, 3, 1, 2]) : g.reshape(pixels, [-1, c, h, w]);
  if (layout.kind === 'nature') {
    for (const spec of layout.convs) x = conv(spec, x, true);
  } else {
    for (const stack of layout.stacks) {
      x = g.maxPool2d(conv(stack.conv, x, false), 3, { stride: 2, pad: 1 });
      for (const [c0, c1] of stack.blocks) x = g.add(x, conv(c1, conv(c0, g.relu(x), true), false));
    }
    x = g.relu(x);
  }
  return g.reshape(x, [-1, x.shape[1] as number * (x.shape[2] as number) * (x.shape[3] as number)]);
}
