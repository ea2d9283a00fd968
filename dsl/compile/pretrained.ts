// A pretrained policy's settings as the plan carries them (`plan.policy.params`): its LoRA
// adapters (or none: full fine-tuning) and how a task's prompt becomes a chat prompt. One
// reading serves the compiler, the checker's memory estimate and hover, so they agree.
import { pretrained, type BlockSpec, type PlanValue } from '../schema/index.js';
import { definitionOf } from '../../hf/families/index.js';
import type { DeclSymbol, Model } from '../semantics/model.js';
import type { LmConfig } from '../../hf/config.js';
import type { PlanPolicy } from './plan.js';
import { paramValue, untypedValue } from './values.js';

export interface PlanLora {
  rank: number;
  alpha: number;
  /** Module names (PEFT's target_modules); the family's default when the spec names none. */
  targets: string[];
  rslora: boolean;
  /** How the trainer holds the frozen base (hf/memory.ts chooseBaseDtype). */
  base_dtype: 'auto' | 'float32' | 'float16';
}

export interface PlanChat {
  /** The system message; null for none. */
  system: string | null;
  /** The user message, `{prompt}` standing for the task's prompt. */
  user: string;
  /** Every other key of `chat { }`: variables of the chat template (`enable_thinking`). */
  variables: Record<string, PlanValue>;
}

const block = (name: string): BlockSpec => pretrained.blocks!.find((b) => b.name === name)!;

/** The statements of one block of the policy, through inheritance. */
function stated(model: Model, symbol: DeclSymbol, name: string) {
  return model.effective(symbol).blocks.get(name);
}

/** The LoRA settings, defaults filled; null when the policy (and its bases) has no `lora { }`. */
export function loraSettings(model: Model, symbol: DeclSymbol, config: LmConfig | undefined): PlanLora | null {
  const lora = stated(model, symbol, 'lora');
  if (!lora) return null;
  const value = (param: string) => paramValue(block('lora').params.find((p) => p.name === param)!, lora.get(param)?.node.value);
  const targets = lora.has('targets') ? (value('targets') as string[]) : [...(config ? definitionOf(config).defaultLoraTargets : [])];
  return { rank: value('rank') as number, alpha: value('alpha') as number, targets, rslora: value('rslora') as boolean, base_dtype: value('base_dtype') as PlanLora['base_dtype'] };
}

export function chatSettings(model: Model, symbol: DeclSymbol): PlanChat {
  const chat = stated(model, symbol, 'chat');
  const spec = block('chat');
  const value = (param: string) => paramValue(spec.params.find((p) => p.name === param)!, chat?.get(param)?.node.value);
  const variables: Record<string, PlanValue> = {};
  for (const [key, { node }] of [...(chat ?? [])].sort(([a], [b]) => a.localeCompare(b))) {
    if (!spec.params.some((p) => p.name === key)) variables[key] = untypedValue(node.value);
  }
  return { system: (value('system') as string | undefined) ?? null, user: value('user') as string, variables };
}

/** The plan's policy for a pretrained one; undefined for other policies. */
export function pretrainedPolicy(model: Model, symbol: DeclSymbol): PlanPolicy | undefined {
  const folder = model.modelFolder(symbol);
  if (!folder) return undefined;
  const config = folder.read.kind === 'model' || folder.read.kind === 'incomplete' ? folder.read.config : undefined;
  const lora = loraSettings(model, symbol, config);
  const chat = chatSettings(model, symbol);
  return {
    name: symbol.name,
    kind: pretrained.name,
    path: folder.dir,
    params: { lora: lora && { ...lora }, chat: { ...chat } },
  };
}
