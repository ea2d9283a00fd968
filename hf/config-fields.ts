// Typed access to a config.json's fields for the families' readers (hf/families/): every failure
// is an LmConfigError naming the file and the field, so each family reads its own fields with the
// same words.
import { InputError } from '../shared/input-error.js';
import type { RopeScaling } from './config.js';

/** A config.json rlx cannot build a model from; names the file and the field. */
export class LmConfigError extends InputError {
  override name = 'LmConfigError';
}

/** Typed access to config.json's fields; every failure names the field. */
export class ConfigFields {
  constructor(
    private readonly raw: Readonly<Record<string, unknown>>,
    private readonly file: string,
  ) {}

  fail(field: string, what: string): never {
    throw new LmConfigError(`${this.file}: "${field}" ${what}`);
  }

  private value(field: string): unknown {
    return Object.prototype.hasOwnProperty.call(this.raw, field) ? this.raw[field] : undefined;
  }

  optionalCount(field: string): number | undefined {
    const v = this.value(field);
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) return this.fail(field, `must be a positive whole number, got ${JSON.stringify(v)}`);
    return v;
  }

  count(field: string): number {
    return this.optionalCount(field) ?? this.fail(field, 'is missing');
  }

  positive(field: string, fallback: number): number {
    const v = this.value(field) ?? fallback;
    if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) return this.fail(field, `must be a positive number, got ${JSON.stringify(v)}`);
    return v;
  }

  boolean(field: string, fallback: boolean): boolean {
    const v = this.value(field) ?? fallback;
    if (typeof v !== 'boolean') return this.fail(field, `must be true or false, got ${JSON.stringify(v)}`);
    return v;
  }

  string(field: string, fallback: string): string {
    const v = this.value(field) ?? fallback;
    if (typeof v !== 'string') return this.fail(field, `must be a string, got ${JSON.stringify(v)}`);
    return v;
  }

  dtype(): string | undefined {
    const v = this.value('dtype') ?? this.value('torch_dtype');
    return typeof v === 'string' ? v : undefined;
  }

  /**
   * Rotary settings. transformers 5 writes `rope_parameters` {rope_theta, rope_type, ...};
   * older files a top-level `rope_theta` and `rope_scaling` {type or rope_type, factor, ...}.
   */
  rope(): { theta: number; scaling: RopeScaling } {
    const params = this.value('rope_parameters');
    const legacy = this.value('rope_scaling');
    const where = params !== undefined && params !== null ? 'rope_parameters' : 'rope_scaling';
    const block = (params ?? legacy ?? {}) as Record<string, unknown>;
    if (typeof block !== 'object' || Array.isArray(block)) return this.fail(where, `must be an object, got ${JSON.stringify(block)}`);
    const theta = block.rope_theta ?? this.value('rope_theta') ?? 10000;
    if (typeof theta !== 'number' || !(theta > 0)) return this.fail(params ? 'rope_parameters.rope_theta' : 'rope_theta', `must be a positive number, got ${JSON.stringify(theta)}`);
    const type = block.rope_type ?? block.type ?? 'default';
    const number = (key: string, fallback?: number): number => {
      const v = block[key] ?? fallback;
      if (typeof v !== 'number' || !(v > 0)) return this.fail(`${where}.${key}`, `must be a positive number for rope_type "${String(type)}", got ${JSON.stringify(v)}`);
      return v;
    };
    switch (type) {
      case 'default':
        return { theta, scaling: { type: 'default' } };
      case 'linear':
        return { theta, scaling: { type: 'linear', factor: number('factor') } };
      case 'llama3':
        return {
          theta,
          scaling: {
            type: 'llama3',
            factor: number('factor'),
            lowFreqFactor: number('low_freq_factor'),
            highFreqFactor: number('high_freq_factor'),
            originalContext: number('original_max_position_embeddings'),
          },
        };
      default:
        return this.fail(`${where}.rope_type`, `is ${JSON.stringify(type)}; rlx reads rope_type default, linear and llama3`);
    }
  }
}
