// Built-in policy networks (docs/language.md#built-in-policies).
import { bool, choice, count, list, option, param } from './build.js';
import type { PolicySpec } from './types.js';

export const mlp: PolicySpec = {
  declKind: 'policy',
  name: 'mlp',
  doc: 'A multi-layer perceptron: actor (and critic, where the algorithm needs one) with orthogonal initialisation as in CleanRL.',
  params: [
    param('hidden', list(count({ max: 65536 }), 1), [64, 64], 'Width of each hidden layer.'),
    param('activation', choice(option('tanh', 'Hyperbolic tangent.'), option('relu', 'Rectified linear unit.')), 'tanh', 'Activation after each hidden layer.'),
    param('shared_trunk', bool, false, 'Actor and critic share the hidden layers (separate networks otherwise).'),
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

export const pretrained: PolicySpec = {
  declKind: 'policy',
  name: 'pretrained',
  doc: 'A pretrained language model from a Hugging Face model folder (Llama, Qwen2, Qwen3, GPT-2), fine-tuned on text tasks.',
  params: [],
};

export const POLICIES: PolicySpec[] = [mlp, transformer, pretrained];
