// Built-in policy networks (docs/language.md#built-in-policies).
import { bool, choice, count, list, num, oneOf, option, param, string } from './build.js';
import type { ParamSpec, PolicySpec } from './types.js';

/** The units of a recurrent core's hidden state. */
const coreSize = [param('size', count({ max: 4096 }), 64, 'Units of the hidden state.')];

/**
 * A recurrent core between the observation encoder and the layers of the heads, shared by actor
 * and critic (CleanRL's ppo_atari_lstm.py, SB3-contrib's RecurrentPPO with a shared LSTM). Only
 * algorithms that declare `recurrent` carry its state (dsl/check/experiments.ts refuses others).
 */
export const core: ParamSpec = param('core', choice(
  option('none', 'No memory: each action reads the current observation only.'),
  option('gru', 'A GRU (Cho et al. 2014, PyTorch\'s nn.GRU) of `size` units: the policy remembers what it saw earlier in the episode.', coreSize),
  option('lstm', 'An LSTM (Hochreiter & Schmidhuber 1997, PyTorch\'s nn.LSTM) of `size` units, its state h and c.', coreSize),
), 'none', 'A recurrent core after the observation encoder, before the hidden layers, for partially observed envs (CartPoleNoVel): actor and critic each have one unless they share a trunk. Its state starts at zero in each episode. PPO only (docs/recurrent-policies.md).');

export const mlp: PolicySpec = {
  declKind: 'policy',
  name: 'mlp',
  doc: 'A multi-layer perceptron: actor (and critic, where the algorithm needs one) with orthogonal initialisation as in CleanRL.',
  params: [
    param('hidden', list(count({ max: 65536 }), 1), [64, 64], 'Width of each hidden layer.'),
    param('activation', choice(option('tanh', 'Hyperbolic tangent.'), option('relu', 'Rectified linear unit.')), 'tanh', 'Activation after each hidden layer.'),
    param('shared_trunk', bool, false, 'Actor and critic share the hidden layers (separate networks otherwise).'),
    core,
  ],
};

export const cnn: PolicySpec = {
  declKind: 'policy',
  name: 'cnn',
  doc: 'A convolutional network over image observations [C, H, W] (or [H, W, C]) of pixel values 0-255, scaled to [0, 1] first, then dense ReLU layers that the actor and critic heads (or DQN\'s Q-values) share, as CleanRL\'s Atari and procgen agents. For PPO, REINFORCE and DQN on an env with image observations (Catch, or a Python env with a Box image).',
  params: [
    param('encoder', choice(
      option('nature', 'Mnih et al. 2015 (SB3\'s NatureCNN): 8x8 stride 4, 4x4 stride 2, 3x3 stride 1 convolutions with ReLU; needs images of at least 36x36.'),
      option('impala', 'Espeholt et al. 2018 (CleanRL\'s procgen agent): per stack a 3x3 convolution, a 3x3 max-pool of stride 2 and two residual blocks; each stack halves the image, so any size works.'),
    ), 'nature', 'The convolutional layers.'),
    param('channels', list(count({ max: 1024 }), 1), undefined, 'Output channels of each convolution (nature: 3 widths, default [32, 64, 64]) or of each stack (impala: any number of stacks, default [16, 32, 32]).'),
    param('hidden', list(count({ max: 65536 }), 1), [256], 'Width of each dense ReLU layer after the convolutions (CleanRL: [512] after nature, [256] after impala).'),
    core,
  ],
};

export const transformer: PolicySpec = {
  declKind: 'policy',
  name: 'transformer',
  doc: 'A small decoder-only transformer over characters, trained from scratch (for text tasks).',
  params: [
    param('layers', count({ max: 64 }), 2, 'Transformer blocks.'),
    param('width', count({ max: 4096 }), 64, 'Model width (embedding size); a multiple of `heads`.'),
    param('heads', count({ max: 64 }), 4, 'Attention heads per block.'),
    param('context', count({ max: 8192 }), 32, 'Longest sequence (prompt + completion) in tokens.'),
  ],
};

/**
 * The linear layers LoRA may adapt, by the module names PEFT's target_modules takes. Which of
 * them a model has depends on its family (hf/families/, read by hf/lora.ts linearModules, the one list the
 * trainer adapts; test/dsl/pretrained.test.ts keeps the two equal); the checker checks a
 * spec's targets against the family of its model folder.
 */
export const LORA_TARGETS = [
  option('q_proj', 'Attention query projection (Llama, Qwen2, Qwen3).'),
  option('k_proj', 'Attention key projection (Llama, Qwen2, Qwen3).'),
  option('v_proj', 'Attention value projection (Llama, Qwen2, Qwen3).'),
  option('o_proj', 'Attention output projection (Llama, Qwen2, Qwen3).'),
  option('gate_proj', 'MLP gate projection (Llama, Qwen2, Qwen3).'),
  option('up_proj', 'MLP up projection (Llama, Qwen2, Qwen3).'),
  option('down_proj', 'MLP down projection (Llama, Qwen2, Qwen3).'),
  option('c_attn', 'Fused query, key and value projection (GPT-2).'),
  option('c_proj', 'Attention output and MLP down projections: GPT-2 names both c_proj (GPT-2).'),
  option('c_fc', 'MLP up projection (GPT-2).'),
];

export const pretrained: PolicySpec = {
  declKind: 'policy',
  name: 'pretrained',
  doc: 'A pretrained causal language model from a Hugging Face model folder (Llama, Qwen2, Qwen3 or GPT-2: config.json, tokenizer.json and safetensors weights), '
    + 'fine-tuned in full or with LoRA, for text tasks. Written `policy Base = pretrained("./models/Qwen3-0.6B") { ... }`; the path is relative to the .rlx file (docs/pretrained.md).',
  folder: { doc: 'The Hugging Face model folder (config.json, tokenizer.json, model.safetensors), relative to this file.' },
  params: [],
  blocks: [
    {
      name: 'lora',
      doc: 'Train low-rank adapters beside the chosen linear layers (Hu et al. 2021) instead of every weight; the loaded weights stay frozen. Without this block the whole model is fine-tuned.',
      params: [
        param('rank', count({ max: 4096 }), 8, 'Rank r of each adapter (PEFT\'s r).'),
        param('alpha', num({ min: 0, exclusiveMin: true, max: 1e6 }), 8, 'Scale numerator: the update is multiplied by alpha / rank (PEFT\'s lora_alpha).'),
        param('targets', list(choice(...LORA_TARGETS), 1), undefined,
          'The layers to adapt, by module name; the model\'s family decides which exist. Absent: PEFT\'s default for the family (q_proj, v_proj; GPT-2: c_attn).'),
        param('rslora', bool, false, 'Scale by alpha / sqrt(rank) instead (rsLoRA, Kalajdzievski 2023).'),
        param('base_dtype', choice(
          option('auto', 'float16 where the frozen base in float32 would not fit in the free memory (and its checkpoint is bf16 or fp16), float32 otherwise.'),
          option('float32', 'The base in float32: the fastest on the CPU (nothing to cast per run).'),
          option('float16', 'The base kept as float16 in memory, half the bytes, cast up to float32 inside each pass, which computes in float32: an fp16 checkpoint as stored, a bf16 one narrowed (exact over float16\'s range; refused if a value lies past 65504). Needs a bf16 or fp16 checkpoint.'),
        ), 'auto', 'How the frozen base weights are held in memory (TRL\'s torch_dtype for the base under PEFT).'),
      ],
    },
    {
      name: 'chat',
      doc: 'How a text task\'s prompt becomes the model\'s chat prompt, rendered with the model\'s chat template. Without this block the prompt is the user message and there is no system message.',
      params: [
        param('system', string, undefined, 'The system message (none when absent).'),
        param('user', string, '{prompt}', 'The user message; `{prompt}` stands for the task\'s prompt.'),
      ],
      otherKeys: {
        type: oneOf({ kind: 'bool' }, num(), string),
        doc: 'Any other key is passed to the chat template as a variable, e.g. Qwen3\'s `enable_thinking: false`.',
      },
    },
  ],
};

export const POLICIES: PolicySpec[] = [mlp, cnn, transformer, pretrained];
