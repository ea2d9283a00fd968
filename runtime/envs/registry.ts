// The built-in environments by the names the language uses. The runtime
// builds every env of a plan through makeEnv(); envInfo() describes a kind
// (observation fields, spaces, params with defaults) for checks against the
// language's schema registry and for documentation.

import { Acrobot, type AcrobotConfig } from './acrobot.js';
import { Bandit, type BanditConfig } from './bandit.js';
import type { BaseEnv } from './base.js';
import { CartPole, type CartPoleConfig } from './cartpole.js';
import { GridWorld, type GridWorldConfig } from './grid-world.js';
import { MountainCar, type MountainCarConfig } from './mountain-car.js';
import { NOT_IMPLEMENTED } from '../not-implemented.js';
import { isTextEnv } from '../text/env.js';
import { closestNames } from '../../dsl/diagnostics.js';
import { describeParams, type ParamDescription } from './params.js';
import { Pendulum, type PendulumConfig } from './pendulum.js';
import type { Space } from './types.js';
import { VecEnv } from './vector.js';

interface BuiltinEnv {
  // `create` takes the plan's untyped params; the constructors' resolveParams
  // checks every name and value, hence the casts below.
  readonly doc: string;
  readonly create: (params: Record<string, unknown>) => BaseEnv;
}

const BUILTIN_ENVS: Readonly<Record<string, BuiltinEnv>> = {
  CartPole: {
    doc: 'Balance a pole on a cart (Gymnasium CartPole-v1).',
    create: (params) => new CartPole(params as Partial<CartPoleConfig>),
  },
  MountainCar: {
    doc: 'Drive an underpowered car up a hill (Gymnasium MountainCar-v0).',
    create: (params) => new MountainCar(params as Partial<MountainCarConfig>),
  },
  Acrobot: {
    doc: 'Swing a two-link arm up past a line (Gymnasium Acrobot-v1).',
    create: (params) => new Acrobot(params as Partial<AcrobotConfig>),
  },
  Pendulum: {
    doc: 'Swing a pendulum upright with continuous torque (Gymnasium Pendulum-v1).',
    create: (params) => new Pendulum(params as Partial<PendulumConfig>),
  },
  GridWorld: {
    doc: 'Reach a goal cell on a grid; goal-conditioned (layouts open, four_rooms, maze).',
    create: (params) => new GridWorld(params as Partial<GridWorldConfig>),
  },
  Bandit: {
    doc: 'k-armed Gaussian bandit; one pull per episode.',
    create: (params) => new Bandit(params as Partial<BanditConfig>),
  },
};


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

function lookUp(kind: string): BuiltinEnv {
  if (Object.hasOwn(BUILTIN_ENVS, kind)) return BUILTIN_ENVS[kind];
  if (isTextEnv(kind)) {
    throw new Error(`environment kind "${kind}" is a text env: it has prompts and completions, not observation vectors and actions; train it with SFT or GRPO and a transformer policy`);
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
  return lookUp(kind).create(params);
}

/** Builds `numEnvs` copies of a built-in env stepped together. */
export function makeVecEnv(kind: string, params: Record<string, unknown>, numEnvs: number): VecEnv {
  const builtin = lookUp(kind);
  return VecEnv.create(() => builtin.create(params), numEnvs);
}

export function envInfo(kind: string): EnvDescription {
  const builtin = lookUp(kind);
  const env = builtin.create({});
  return {
    kind,
    doc: builtin.doc,
    obsFields: env.obsFields,
    observationSpace: env.observationSpace,
    actionSpace: env.actionSpace,
    params: describeParams(kind),
  };
}
