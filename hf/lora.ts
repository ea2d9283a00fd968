// LoRA (Hu et al. 2021): a low-rank update beside chosen linear layers, y = x W + s (x A) B,
// with W frozen and only A [in, r] and B [r, out] trained (s = alpha / r, or alpha / sqrt(r)
// with rsLoRA). Adapters are named as PEFT names them, less PEFT's `base_model.model.` prefix
// (`model.layers.0.self_attn.q_proj.lora_A.weight`), and held [in, r] / [r, out] like every
// weight in runtime/; PEFT stores lora_A [r, in] and lora_B [out, r], so loading and export
// transpose them.
import { InputError } from '../shared/input-error.js';
import type { Rng } from '../shared/random.js';
import type { LmConfig } from './config.js';
import type { LinearRole } from './family.js';
import { definitionOf } from './families/index.js';
import { layerWeightNames, type LinearNames } from './weights.js';

export interface LoraSettings {
  readonly rank: number;
  readonly alpha: number;
  /** Module names as PEFT's target_modules takes them: q_proj, v_proj, ... (GPT-2: c_attn, c_proj, c_fc). */
  readonly targets: readonly string[];
  /** rsLoRA's scale alpha / sqrt(rank) instead of alpha / rank. */
  readonly rsLora?: boolean;
}

/** A LoRA request the model cannot serve; names what is wrong and what is possible. */
export class LoraError extends InputError {
  override name = 'LoraError';
}

/** PEFT's prefix on every adapter tensor of a causal LM. */
export const PEFT_PREFIX = 'base_model.model.';

/** One adapted layer: the base weight, the adapter's two matrices, and their shapes in runtime/. */
export interface LoraAdapter {
  readonly base: string;
  /** The module's name, as PEFT's target_modules says it. */
  readonly module: string;
  readonly a: { readonly name: string; readonly shape: readonly [number, number] };
  readonly b: { readonly name: string; readonly shape: readonly [number, number] };
}

/** The linear layers of each block by module name (the family's, hf/families/), with their in and out widths. */
export function linearModules(c: LmConfig): { module: string; names: LinearNames; inDim: number; outDim: number; layer: number }[] {
  const [q, kv, C, M] = [c.heads * c.headDim, c.kvHeads * c.headDim, c.width, c.mlpWidth];
  // Each role's widths, in block order (the order adapters are drawn in).
  const roles: readonly [LinearRole, number, number][] = [['qkv', C, 3 * q], ['q', C, q], ['k', C, kv], ['v', C, kv], ['out', q, C], ['gate', C, M], ['up', C, M], ['down', M, C]];
  const modules = definitionOf(c).linearModules;
  const out: ReturnType<typeof linearModules> = [];
  for (let l = 0; l < c.layers; l++) {
    const n = layerWeightNames(c, l);
    for (const [role, inDim, outDim] of roles) {
      const [module, names] = [modules[role], n[role]];
      if (module && names) out.push({ module, names, inDim, outDim, layer: l });
    }
  }
  return out;
}

/** The adapters `settings` asks for on model `c`; an unknown target or a bad rank is a LoraError. */
export function loraAdapters(c: LmConfig, settings: LoraSettings, where = 'lora'): LoraAdapter[] {
  const modules = linearModules(c);
  const known = [...new Set(modules.map((m) => m.module))];
  if (!Number.isInteger(settings.rank) || settings.rank < 1) throw new LoraError(`${where}: rank must be a whole number of at least 1, got ${settings.rank}`);
  if (!(settings.alpha > 0)) throw new LoraError(`${where}: alpha must be positive, got ${settings.alpha}`);
  if (settings.targets.length === 0) throw new LoraError(`${where}: targets is empty; name the layers to adapt (${known.join(', ')})`);
  for (const t of settings.targets) {
    if (!known.includes(t)) throw new LoraError(`${where}: ${c.family} has no layer "${t}"; its linear layers are ${known.join(', ')}`);
  }
  return modules
    .filter((m) => settings.targets.includes(m.module))
    .map((m) => {
      const prefix = m.names.weight.replace(/\.weight$/, '');
      return {
        base: m.names.weight,
        module: m.module,
        a: { name: `${prefix}.lora_A.weight`, shape: [m.inDim, settings.rank] as const },
        b: { name: `${prefix}.lora_B.weight`, shape: [settings.rank, m.outDim] as const },
      };
    });
}

export function loraScale(settings: LoraSettings): number {
  return settings.rsLora ? settings.alpha / Math.sqrt(settings.rank) : settings.alpha / settings.rank;
}

/**
 * PEFT's initialisation: A uniform in +-1/sqrt(in) (kaiming_uniform with a = sqrt(5), as
 * nn.Linear), B zero, so a new adapter leaves the model's outputs unchanged.
 */
export function initialAdapter(adapter: LoraAdapter, which: 'a' | 'b', rng: Rng): Float32Array {
  const [rows, cols] = adapter[which].shape;
  const data = new Float32Array(rows * cols);
  if (which === 'b') return data;
  const bound = 1 / Math.sqrt(rows);
  for (let i = 0; i < data.length; i++) data[i] = (rng.uniform() * 2 - 1) * bound;
  return data;
}
