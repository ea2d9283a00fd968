// Rotary embeddings' inverse frequencies per rope_type, as transformers computes them
// (modeling_rope_utils.py): default, linear (positions divided by a factor) and Llama 3's
// frequency-dependent scaling. The angles themselves are computed in the graph
// (tensor/layers.ts rotaryTables).
import type { LmConfig } from './config.js';

/** inv_freq [D/2] for the model's rope settings (float32, as transformers keeps them). */
export function inverseFrequencies(c: LmConfig): Float32Array {
  if (!c.rope) throw new Error(`${c.family} has no rotary embeddings`);
  const D = c.headDim;
  const base = Float32Array.from({ length: D / 2 }, (_, i) => 1 / Math.pow(c.rope!.theta, Math.fround((2 * i) / D)));
  const s = c.rope.scaling;
  switch (s.type) {
    case 'default':
      return base;
    case 'linear':
      return base.map((f) => f / s.factor);
    case 'llama3': {
      const lowWavelength = s.originalContext / s.lowFreqFactor;
      const highWavelength = s.originalContext / s.highFreqFactor;
      return base.map((f) => {
        const wavelength = (2 * Math.PI) / f;
        if (wavelength < highWavelength) return f; // high frequencies: unchanged
        if (wavelength > lowWavelength) return f / s.factor; // low frequencies: scaled
        const smooth = (s.originalContext / wavelength - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
        return (1 - smooth) * (f / s.factor) + smooth * f;
      });
    }
  }
}
