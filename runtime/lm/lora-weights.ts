// The adapters of hf/lora.ts as the model's graph takes them (model.ts LoraWeights): the scale,
// and which adapter serves which base weight. Here, not in hf/, because the type is the model's.
import { loraScale, type LoraAdapter, type LoraSettings } from '../../hf/lora.js';
import type { LoraWeights } from './model.js';

/** What model.ts needs: the scale and which adapter serves which base weight. */
export function loraWeights(adapters: readonly LoraAdapter[], settings: LoraSettings): LoraWeights {
  return { scale: loraScale(settings), adapters: new Map(adapters.map((a) => [a.base, { a: a.a.name, b: a.b.name }])) };
}
