// The `pretrained("…")` policy's settings as the plan carries them: the model folder (relative to
// the .rlx file's folder, as a module env's file is), and the optional `lora { }` and `chat { }`
// blocks. Errors name the block and the field.
import * as path from 'node:path';
import { pretrained } from '../../dsl/schema/index.js';
import { ParamError } from '../plan-params.js';
import type { LoraSettings } from '../../hf/lora.js';
import type { ChatSettings, PretrainedSettings } from './pretrained.js';
import type { BaseDtypeSetting } from '../../hf/memory.js';


type Raw = Readonly<Record<string, unknown>>;
const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A plan's pretrained policy settings as written: the folder still relative to the .rlx file's folder. */
export interface PretrainedParams extends Omit<PretrainedSettings, 'folder'> {
  readonly model: string | undefined;
}

/** Reads and checks the plan's params; `folder` is the plan's policy path (older hand-written plans: `params.model`). */
export function pretrainedParams(params: Raw, folder?: string, where = 'policy pretrained'): PretrainedParams {
  const fail = (what: string): never => {
    throw new ParamError(where, what.split(/[ :]/)[0]!, `${where}: ${what}`);
  };
  const model = folder ?? params.model;
  if (model !== undefined && (typeof model !== 'string' || model === '')) return fail(`the model folder must be a path, got ${JSON.stringify(model)}`);
  return { model, lora: loraSettings(params.lora, fail), baseDtype: baseDtype(params.lora, fail), chat: chatSettings(params.chat, fail) };
}

/** The settings with the model folder resolved against `baseDir` (the .rlx file's folder); a plan without one is refused. */
export function resolvePretrained(params: PretrainedParams, baseDir: string | undefined, where: string): PretrainedSettings {
  if (params.model === undefined) throw new ParamError(where, 'path', `${where}: the plan names no model folder (pretrained("./models/NAME"))`);
  const { model, ...rest } = params;
  return { ...rest, folder: path.resolve(baseDir ?? process.cwd(), model) };
}

/** A `lora { }` setting's default, from the schema registry (the compiler writes them all; a hand-written plan may not). */
function loraDefault(name: 'rank' | 'alpha'): unknown {
  return pretrained.blocks?.find((b) => b.name === 'lora')?.params.find((p) => p.name === name)?.default;
}

function loraSettings(raw: unknown, fail: (what: string) => never): LoraSettings | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) return fail('lora must be a block { rank, alpha, targets }');
  const rank = raw.rank ?? loraDefault('rank');
  const alpha = raw.alpha ?? loraDefault('alpha');
  const targets = raw.targets ?? ['q_proj', 'v_proj'];
  if (typeof rank !== 'number' || typeof alpha !== 'number') return fail('lora: rank and alpha must be numbers');
  if (!Array.isArray(targets) || !targets.every((t) => typeof t === 'string')) return fail('lora: targets must be a list of layer names');
  return { rank, alpha, targets: targets as string[], rsLora: raw.rslora === true };
}

/** lora { base_dtype }: how the frozen base is held (auto where absent or without a lora block, which has no frozen base). */
function baseDtype(raw: unknown, fail: (what: string) => never): BaseDtypeSetting {
  const value = isObject(raw) ? raw.base_dtype ?? 'auto' : 'auto';
  if (value !== 'auto' && value !== 'float32' && value !== 'float16') return fail(`lora: base_dtype must be auto, float32 or float16, not ${JSON.stringify(value)}`);
  return value;
}

function chatSettings(raw: unknown, fail: (what: string) => never): ChatSettings | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) return fail('chat must be a block { system, user, ... }');
  // The compiler writes { system: string | null, user, variables: {...} }; a hand-written plan may put variables beside them.
  const { system: given, user = '{prompt}', variables: nested, ...rest } = raw;
  const system = given ?? undefined;
  const variables = isObject(nested) ? { ...rest, ...nested } : rest;
  if (system !== undefined && typeof system !== 'string') return fail('chat: system must be a string');
  if (typeof user !== 'string') return fail('chat: user must be a string');
  if (!user.includes('{prompt}')) return fail(`chat: user must contain {prompt}, where the task's prompt goes; got ${JSON.stringify(user)}`);
  return { ...(system !== undefined ? { system } : {}), user, variables };
}
