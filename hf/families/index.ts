// The model families rlx builds, listed once: config.json's model_type finds its definition here
// (config.ts), and every reader asks a config's definition (definitionOf) for what differs. The
// order is the order messages list them in. Adding a family: hf/README.md.
import type { FamilyDefinition } from '../family.js';
import { gpt2 } from './gpt2.js';
import { llama } from './llama.js';
import { qwen2 } from './qwen2.js';
import { qwen3 } from './qwen3.js';

export const FAMILY_DEFINITIONS = [llama, qwen2, qwen3, gpt2] as const;

/** A family rlx builds, by config.json's `model_type`. */
export type Family = (typeof FAMILY_DEFINITIONS)[number]['modelType'];

export const FAMILIES: readonly Family[] = FAMILY_DEFINITIONS.map((d) => d.modelType);

/** The definition of model_type `modelType`; undefined for a family rlx does not build. */
export function familyDefinition(modelType: string): FamilyDefinition | undefined {
  return FAMILY_DEFINITIONS.find((d) => d.modelType === modelType);
}

/** The definition of a config's family (an LmConfig only holds families of the list). */
export function definitionOf(c: { readonly family: Family }): FamilyDefinition {
  const definition = familyDefinition(c.family);
  if (!definition) throw new Error(`no definition for model family "${c.family}" (hf/families/index.ts lists ${FAMILIES.join(', ')})`);
  return definition;
}
