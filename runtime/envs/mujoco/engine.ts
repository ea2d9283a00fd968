// MuJoCo's own WebAssembly build (@mujoco/mujoco, by Google DeepMind), loaded once per process,
// and a small simulation handle over one model: the part of MuJoCo's API the built-in MuJoCo
// envs use (load an XML, reset to qpos/qvel, step with ctrl and a frame skip, read poses and
// contact forces, free the memory).
//
// Loading the module is asynchronous (it compiles ~10 MB of WebAssembly, about 0.7 s), while
// the registry builds envs synchronously; so whoever builds a MuJoCo env awaits
// loadMujocoEngine() first (the trainer and `rlx eval` do, through prepareEnvKind()), and
// building one before that is a clear error rather than a hang.
import loadMujoco, { type MainModule, type MjData, type MjModel } from '@mujoco/mujoco';

let engine: MainModule | undefined;
let loading: Promise<MainModule> | undefined;

/** MuJoCo's WebAssembly module, loaded on the first call (about 0.7 s) and shared after. */
export function loadMujocoEngine(): Promise<MainModule> {
  loading ??= loadMujoco().then((module) => (engine = module));
  return loading;
}

/** The loaded module; throws when nobody awaited loadMujocoEngine() yet. */
export function mujocoEngine(kind: string): MainModule {
  if (!engine) throw new Error(`${kind}: the MuJoCo engine is not loaded yet; await loadMujocoEngine() (or prepareEnvKind("${kind}")) before building the env`);
  return engine;
}

/** The version of the loaded MuJoCo (mj_versionString), e.g. "3.3.8". */
export function mujocoVersion(kind = 'MuJoCo'): string {
  return mujocoEngine(kind).mj_versionString();
}

/**
 * One MuJoCo model and its simulation data. The arrays it hands out (qpos, qvel, ...) are
 * views into WebAssembly memory: they are fetched again after each step, since a growing heap
 * (another model loaded) detaches the old ones.
 */
export class MujocoSim {
  readonly nq: number;
  readonly nv: number;
  readonly nu: number;
  readonly nbody: number;
  /** Seconds per MuJoCo step (the XML's option timestep). */
  readonly timestep: number;
  /** Each actuator's [low, high] control range, as Gymnasium's action space reads it. */
  readonly ctrlRange: readonly (readonly [number, number])[];
  /** qpos and qvel just after loading (mj_resetData's state: the XML's reference pose). */
  readonly initQpos: Float64Array;
  readonly initQvel: Float64Array;
  private model: MjModel | undefined;
  private data: MjData | undefined;

  private constructor(
    private readonly mj: MainModule,
    model: MjModel,
    readonly label: string,
  ) {
    this.model = model;
    this.data = new mj.MjData(model);
    this.nq = model.nq;
    this.nv = model.nv;
    this.nu = model.nu;
    this.nbody = model.nbody;
    this.timestep = model.opt.timestep;
    const range = model.actuator_ctrlrange as Float64Array;
    this.ctrlRange = Array.from({ length: this.nu }, (_, i) => [range[2 * i], range[2 * i + 1]] as const);
    this.initQpos = Float64Array.from(this.data.qpos as Float64Array);
    this.initQvel = Float64Array.from(this.data.qvel as Float64Array);
  }

  /** Compiles `xml` (MJCF text); `label` names it in errors (the file, or the env's own asset). */
  static fromXml(mj: MainModule, xml: string, label: string): MujocoSim {
    let model: MjModel;
    try {
      model = mj.MjModel.from_xml_string(xml);
    } catch (err) {
      throw new Error(`${label}: MuJoCo could not load the model: ${describeError(mj, err)}`);
    }
    if (!model) throw new Error(`${label}: MuJoCo could not load the model`);
    return new MujocoSim(mj, model, label);
  }

  private get live(): { model: MjModel; data: MjData } {
    if (!this.model || !this.data) throw new Error(`${this.label}: the MuJoCo model was freed`);
    return { model: this.model, data: this.data };
  }

  /** Gymnasium's reset then set_state: mj_resetData, qpos and qvel installed, mj_forward. */
  reset(qpos: ArrayLike<number>, qvel: ArrayLike<number>): void {
    const { model, data } = this.live;
    this.mj.mj_resetData(model, data);
    (data.qpos as Float64Array).set(qpos);
    (data.qvel as Float64Array).set(qvel);
    this.mj.mj_forward(model, data);
  }

  /**
   * Gymnasium's do_simulation: ctrl set from actions[offset ..] (MuJoCo clamps it to the
   * control range), `frames` mj_step calls, then mj_rnePostConstraint so that cfrc_ext is current.
   */
  step(actions: ArrayLike<number>, offset: number, frames: number): void {
    const { model, data } = this.live;
    const ctrl = data.ctrl as Float64Array;
    for (let i = 0; i < this.nu; i++) ctrl[i] = actions[offset + i];
    for (let f = 0; f < frames; f++) this.mj.mj_step(model, data);
    this.mj.mj_rnePostConstraint(model, data);
  }

  get qpos(): Float64Array {
    return this.live.data.qpos as Float64Array;
  }
  get qvel(): Float64Array {
    return this.live.data.qvel as Float64Array;
  }
  /** Bodies' world positions, 3 per body (body 0 is the world). */
  get xpos(): Float64Array {
    return this.live.data.xpos as Float64Array;
  }
  /** Bodies' world orientations, 4 (w, x, y, z) per body. */
  get xquat(): Float64Array {
    return this.live.data.xquat as Float64Array;
  }
  /** Bodies' centres of mass in the world, 3 per body. */
  get xipos(): Float64Array {
    return this.live.data.xipos as Float64Array;
  }
  /** Geoms' world positions, 3 per geom. */
  get geomXpos(): Float64Array {
    return this.live.data.geom_xpos as Float64Array;
  }
  /** Sites' world positions, 3 per site. */
  get siteXpos(): Float64Array {
    return this.live.data.site_xpos as Float64Array;
  }
  /** Constraint forces in joint space, one per dof. */
  get qfrcConstraint(): Float64Array {
    return this.live.data.qfrc_constraint as Float64Array;
  }
  /** External contact forces on bodies, 6 (torque, force) per body, current after step(). */
  get cfrcExt(): Float64Array {
    return this.live.data.cfrc_ext as Float64Array;
  }
  /** com-based inertia, 10 per body; com-based velocities, 6 per body; actuator forces; body masses. */
  get cinert(): Float64Array {
    return this.live.data.cinert as Float64Array;
  }
  get cvel(): Float64Array {
    return this.live.data.cvel as Float64Array;
  }
  get qfrcActuator(): Float64Array {
    return this.live.data.qfrc_actuator as Float64Array;
  }
  get bodyMass(): Float64Array {
    return this.live.model.body_mass as Float64Array;
  }
  /** Simulated time in seconds. */
  get time(): number {
    return this.live.data.time;
  }

  /** The id of body `name`; throws naming the model when it has none. */
  bodyId(name: string): number {
    const { model } = this.live;
    const id = this.mj.mj_name2id(model, this.mj.mjtObj.mjOBJ_BODY.value, name);
    if (id < 0) throw new Error(`${this.label}: the model has no body "${name}"`);
    return id;
  }

  /** The id of geom `name`; throws naming the model when it has none. */
  geomId(name: string): number {
    const { model } = this.live;
    const id = this.mj.mj_name2id(model, this.mj.mjtObj.mjOBJ_GEOM.value, name);
    if (id < 0) throw new Error(`${this.label}: the model has no geom "${name}"`);
    return id;
  }

  /** Frees the model and data in WebAssembly memory; the handle is unusable after. */
  free(): void {
    this.data?.delete();
    this.model?.delete();
    this.data = undefined;
    this.model = undefined;
  }
}

/** MuJoCo's compile errors reach JS as a C++ exception pointer or an Error; its message either way. */
function describeError(mj: MainModule, err: unknown): string {
  if (err instanceof Error) return err.message;
  const withMessage = mj as unknown as { getExceptionMessage?: (e: unknown) => [string, string] };
  if (typeof err === 'number' && withMessage.getExceptionMessage) {
    try {
      return withMessage.getExceptionMessage(err).join(': ');
    } catch {
      // fall through
    }
  }
  return String(err);
}
