// Seeded randomness for fuzz-style tests: the runtime's generator as a plain function, so every
// run sees the same cases.
import { Rng } from '../../shared/random.js';

export function seededRandom(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.uniform();
}
