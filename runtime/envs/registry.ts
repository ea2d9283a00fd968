// The built-in environments by the names the language uses. The runtime
// builds every env of a plan through makeEnv(); envInfo() describes a kind
// (observation fields, spaces, params with defaults) for checks against the
// language's schema registry and for documentation.

import { Acrobot, type AcrobotConfig } from './acrobot.js';
import { Bandit, type BanditConfig } from './bandit.js';
import type { BaseEnv } from './base.js';
import { CartPole, type CartPoleConfig } from './cartpole.js';
import { FreeSlots, type FreeSlotsConfig } from './free-slots.js';
import { Catch, type CatchConfig } from './catch.js';
import { GridWorld, type GridWorldConfig } from './grid-world.js';
import { MountainCar, type MountainCarConfig } from './mountain-car.js';
import { loadMujocoEngine } from './mujoco/engine.js';
import { MUJOCO_RUNTIME, mujocoConfig } from './mujoco/index.js';
import { isMujocoEnvKind } from '../../dsl/schema/mujoco-envs.js';
import { NOT_IMPLEMENTED } from '../not-implemented.js';
import { closestNames } from '../../dsl/diagnostics.js';
import { builtin } from '../../dsl/schema/index.js';
import { describeParams, type ParamDescription } from './params.js';
import { Pendulum, type PendulumConfig } from './pendulum.js';
import type { Space } from './types.js';
import { VecEnv } from './vector.js';

/**
 * Builds one kind from the plan's untyped params; the constructors read them with envParams(),
 * which checks every name and value against the registry, hence the casts below. What each
 * kind is (its doc, its params) is the registry's to say (dsl/schema/envs.ts).
 */
type BuiltinEnv = (params: Record<string, unknown>) => BaseEnv;

const BUILTIN_ENVS: Readonly<Record<string, BuiltinEnv>> = {
  CartPole: (params) => new CartPole(params as Partial<CartPoleConfig>),
  CartPoleNoVel: (params) => new CartPole(params as Partial<CartPoleConfig>, 'positions'),
  MountainCar: (params) => new MountainCar(params as Partial<MountainCarConfig>),
  Acrobot: (params) => new Acrobot(params as Partial<AcrobotConfig>),
  Pendulum: (params) => new Pendulum(params as Partial<PendulumConfig>),
  GridWorld: (params) => new GridWorld(params as Partial<GridWorldConfig>),
  Bandit: (params) => new Bandit(params as Partial<BanditConfig>),
  FreeSlots: (params) => new FreeSlots(params as Partial<FreeSlotsConfig>),
  Catch: (params) => new Catch(params as Partial<CatchConfig>),
  // MuJoCo's (docs/mujoco.md); building one needs prepareEnvKind() awaited first.
  ...Object.fromEntries(Object.entries(MUJOCO_RUNTIME)),
};

/**
 * Throws what makeEnv(kind, params) would throw for a bad kind or param (an EnvParamError
 * naming it), without needing what prepareEnvKind() loads: a MuJoCo env's settings are read,
 * not built.
 */
export function checkEnvParams(kind: string, params: Record<string, unknown>): void {
  // Reading a MuJoCo env's settings needs no engine: checks of a plan run before it is loaded.
  if (Object.hasOwn(MUJOCO_RUNTIME, kind)) mujocoConfig(kind, params);
  else makeEnv(kind, params);
}

/**
 * Loads what building envs of `kind` needs and cannot load synchronously: MuJoCo's WebAssembly
 * engine for a MuJoCo env (once per process, about 0.7 s); nothing for the others.
 */
export async function prepareEnvKind(kind: string): Promise<void> {
  if (isMujocoEnvKind(kind)) await loadMujocoEngine();
}


export interface EnvDescription {
  readonly kind: string;
  readonly doc: string;
  /** For the default params; GridWorld's bounds follow its size. */
  readonly obsFields: readonly string[];
  readonly observationSpace: Space;
  readonly actionSpace: Space;
  readonly params: readonly ParamDescription[];
}

/** The built-in environment kinds this runtime implements. */
export function envKinds(): string[] {
  return Object.keys(BUILTIN_ENVS);
}

/** A built-in env whose actions are text (the registry says so: `action: 'text'`), which text/ implements. */
function isTextEnvKind(kind: string): boolean {
  const spec = builtin(kind);
  return spec?.declKind === 'env' && spec.action === 'text';
}

function lookUp(kind: string): BuiltinEnv {
  if (Object.hasOwn(BUILTIN_ENVS, kind)) return BUILTIN_ENVS[kind];
  if (isTextEnvKind(kind)) {
    throw new Error(`environment kind "${kind}" is a text env: its actions are text, not numbers; train it with SFT, GRPO or REINFORCE and a transformer policy`);
  }
  if (Object.hasOwn(NOT_IMPLEMENTED.env, kind)) {
    throw new Error(`environment kind "${kind}" is part of the language but not implemented in this runtime yet: ${NOT_IMPLEMENTED.env[kind]}`);
  }
  const kinds = envKinds();
  const [hint] = closestNames(kind, kinds, 1);
  throw new Error(`unknown environment kind "${kind}"${hint ? ` (did you mean "${hint}"?)` : ''}; built-in kinds: ${kinds.join(', ')}`);
}

/** Builds a built-in env; throws EnvParamError for an unknown or invalid param. */
export function makeEnv(kind: string, params: Record<string, unknown> = {}): BaseEnv {
  return lookUp(kind)(params);
}

/** Builds `numEnvs` copies of a built-in env stepped together. */
export function makeVecEnv(kind: string, params: Record<string, unknown>, numEnvs: number): VecEnv {
  const create = lookUp(kind);
  return VecEnv.create(() => create(params), numEnvs);
}

export function envInfo(kind: string): EnvDescription {
  const env = lookUp(kind)({});
  return {
    kind,
    doc: builtin(kind)!.doc,
    obsFields: env.obsFields,
    observationSpace: env.observationSpace,
    actionSpace: env.actionSpace,
    params: describeParams(kind),
  };
}
