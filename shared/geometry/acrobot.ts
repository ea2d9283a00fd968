// Drawing and dynamics share these numbers: the env (runtime/envs/) steps with them and the
// rollout inspector (webview/rollouts/draw/) draws with them. Import-free on purpose, so the
// browser bundle takes them without the trainer (test/architecture.test.ts checks it).

/**
 * Gymnasium's fixed physics of Acrobot-v1 (not parameters in the language):
 * the book's equations of motion, no torque noise.
 */
export const ACROBOT_CONSTANTS = {
  /** Seconds integrated per step (one RK4 step). */
  dt: 0.2,
  link_length_1: 1.0,
  /** Only used for drawing in Gymnasium. */
  link_length_2: 1.0,
  link_mass_1: 1.0,
  link_mass_2: 1.0,
  /** Distance from the pivot (joint) to the upper (lower) link's centre of mass. */
  link_com_pos_1: 0.5,
  link_com_pos_2: 0.5,
  /** Moment of inertia of each link about its centre of mass. */
  link_moi: 1.0,
  /** Angular velocities are clipped to these (rad/s). */
  max_vel_1: 4 * Math.PI,
  max_vel_2: 9 * Math.PI,
  book_or_nips: 'book',
} as const;
