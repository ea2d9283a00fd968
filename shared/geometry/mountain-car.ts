// Drawing and dynamics share these numbers: the env (runtime/envs/) steps with them and the
// rollout inspector (webview/rollouts/draw/) draws with them. Import-free on purpose, so the
// browser bundle takes them without the trainer (test/architecture.test.ts checks it).

/** Gymnasium's fixed geometry of MountainCar-v0 (not parameters in the language). */
export const MOUNTAIN_CAR_CONSTANTS = {
  max_speed: 0.07,
  /** Left wall: position is clipped here and the velocity zeroed. */
  min_position: -1.2,
  max_position: 0.6,
  /** Position of the flag. */
  goal_position: 0.5,
} as const;
