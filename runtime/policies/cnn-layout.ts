// The layers of the `cnn` policy's encoders, as data both passes read (cnn-encoder.ts builds
// them in a graph, conv-stack.ts runs them outside onnxruntime):
//
// - nature: Mnih et al. 2015 (SB3's NatureCNN, CleanRL's Atari agent): convolutions 8x8 stride
//   4, 4x4 stride 2, 3x3 stride 1 (32, 64, 64 channels), each followed by ReLU. Its strides
//   need images of at least 36x36 (84x84 in the paper).
// - impala: Espeholt et al. 2018 (CleanRL's procgen agent): per stack a 3x3 convolution
//   (padding 1), a 3x3 max-pool of stride 2 (padding 1) and two residual blocks
//   x + conv(relu(conv(relu(x)))), stacks of 16, 32, 32 channels; a ReLU after the last. Each
//   stack halves the image (rounding up), so any size of at least 1 pixel works.
//
// Images are [C, H, W] (channels first), or [H, W, C] where the last axis is the smallest and
// at most 4 (SB3's rule for channels last); both are read from pixel values 0-255, scaled to
// [0, 1] first, as SB3 and CleanRL do.

import { InputError } from '../../shared/input-error.js';

export type CnnEncoderKind = 'nature' | 'impala';

export interface ConvSpec {
  /** Its weights: `${name}.weight` [out, in, kernel, kernel], `${name}.bias` [out]. */
  readonly name: string;
  readonly inChannels: number;
  readonly outChannels: number;
  readonly kernel: number;
  readonly stride: number;
  readonly pad: number;
}

/** One IMPALA stack: its convolution, then the pool, then residual blocks of two convolutions each. */
export interface ImpalaStack {
  readonly conv: ConvSpec;
  readonly blocks: readonly (readonly [ConvSpec, ConvSpec])[];
}

export type CnnLayout =
  | { readonly kind: 'nature'; readonly convs: readonly ConvSpec[] }
  | { readonly kind: 'impala'; readonly stacks: readonly ImpalaStack[] };

export interface ImageShape {
  readonly channels: number;
  readonly height: number;
  readonly width: number;
  /** The observation's numbers are [H, W, C] rather than [C, H, W]. */
  readonly channelsLast: boolean;
}

export const NATURE_CHANNELS = [32, 64, 64] as const;
export const IMPALA_CHANNELS = [16, 32, 32] as const;
const NATURE_KERNELS = [[8, 4], [4, 2], [3, 1]] as const;
/** The smallest image side the nature encoder's strides fit. */
export const NATURE_MIN_SIZE = 36;

/** The image an observation of `obsShape` is, or an error saying why it is not one. */
export function imageShape(obsShape: readonly number[], who: string): ImageShape {
  if (obsShape.length !== 3) {
    throw new InputError(`${who} reads images [C, H, W] (or [H, W, C]); this env's observations are [${obsShape.join(', ')}]: use an mlp policy, or an env with image observations (Catch)`);
  }
  const [a, b, c] = obsShape as [number, number, number];
  const channelsLast = c <= 4 && c < a;
  return channelsLast ? { channels: c, height: a, width: b, channelsLast } : { channels: a, height: b, width: c, channelsLast };
}

/** Side of a convolution's or pool's output. */
export function outSize(size: number, kernel: number, stride: number, pad: number): number {
  return Math.floor((size + 2 * pad - kernel) / stride) + 1;
}

/** The layers of encoder `kind` over `image`, with `channels` per layer (nature: 3) or per stack (impala). */
export function cnnLayout(kind: CnnEncoderKind, image: ImageShape, channels: readonly number[] | undefined, who: string): CnnLayout {
  const conv = (name: string, inChannels: number, outChannels: number, kernel: number, stride: number, pad: number): ConvSpec => ({ name, inChannels, outChannels, kernel, stride, pad });
  if (kind === 'nature') {
    const widths = channels ?? NATURE_CHANNELS;
    if (widths.length !== 3) throw new InputError(`${who}: channels: the nature encoder has 3 convolutions, so 3 widths, got ${widths.length}`);
    const side = Math.min(image.height, image.width);
    if (side < NATURE_MIN_SIZE) {
      throw new InputError(`${who}: the nature encoder needs images of at least ${NATURE_MIN_SIZE}x${NATURE_MIN_SIZE} (its strides 4 and 2), got ${image.height}x${image.width}: use encoder: impala, or a larger image`);
    }
    let inChannels = image.channels;
    return {
      kind,
      convs: NATURE_KERNELS.map(([kernel, stride], i) => {
        const spec = conv(`conv${i}`, inChannels, widths[i]!, kernel, stride, 0);
        inChannels = widths[i]!;
        return spec;
      }),
    };
  }
  const widths = channels ?? IMPALA_CHANNELS;
  let inChannels = image.channels;
  return {
    kind,
    stacks: widths.map((width, s) => {
      const stack: ImpalaStack = {
        conv: conv(`stack${s}.conv`, inChannels, width, 3, 1, 1),
        blocks: [0, 1].map((b) => [conv(`stack${s}.block${b}.conv0`, width, width, 3, 1, 1), conv(`stack${s}.block${b}.conv1`, width, width, 3, 1, 1)] as const),
      };
      inChannels = width;
      return stack;
    }),
  };
}

/** Every convolution of a layout, in the order their weights are drawn. */
export function convsOf(layout: CnnLayout): ConvSpec[] {
  return layout.kind === 'nature' ? [...layout.convs] : layout.stacks.flatMap((s) => [s.conv, ...s.blocks.flat()]);
}

/** The encoder's output: channels and side lengths of its last feature map. */
export function outputShape(layout: CnnLayout, image: ImageShape): { channels: number; height: number; width: number } {
  let { height, width } = image;
  if (layout.kind === 'nature') {
    for (const c of layout.convs) {
      height = outSize(height, c.kernel, c.stride, c.pad);
      width = outSize(width, c.kernel, c.stride, c.pad);
    }
    return { channels: layout.convs[layout.convs.length - 1]!.outChannels, height, width };
  }
  for (const _ of layout.stacks) {
    height = outSize(height, 3, 2, 1);
    width = outSize(width, 3, 2, 1);
  }
  return { channels: layout.stacks[layout.stacks.length - 1]!.conv.outChannels, height, width };
}
