// The `flatten` encoder: an observation's numbers as one row, as SB3's FlattenExtractor. No
// weights and no arithmetic: the graph's `obs` input and the acting rows pass through as they
// are, so a network behind it is the plain MLP it was before the encoder seam (encoder.ts).
import type { EncoderDefinition, ObservationEncoder } from './encoder.js';

export const FLATTEN: EncoderDefinition = {
  name: 'flatten',
  build: (spaces): ObservationEncoder => ({
    features: spaces.obsDim,
    encode: (_g, obs) => obs,
    encodeRows: (obs) => obs,
    sync: () => {},
  }),
};
