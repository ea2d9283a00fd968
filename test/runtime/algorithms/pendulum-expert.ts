// A hand-written Pendulum controller to record datasets from, for the offline learners' tests:
// energy pumping (torque along the swing while the energy is below the upright's) and a PD
// controller near the top. It scores about -150 per 200-step episode, where a uniformly random
// policy scores about -1200 (Pendulum-v1's dynamics: theta'' = 15 sin(theta) + 3 u, dt 0.05).
import type { Actor } from '../../../runtime/policies/index.js';

export const PENDULUM_EXPERT: Actor = {
  act(obs, rows, actions) {
    for (let i = 0; i < rows; i++) {
      const [cos, sin, speed] = [obs[i * 3]!, obs[i * 3 + 1]!, obs[i * 3 + 2]!];
      const theta = Math.atan2(sin, cos);
      let u: number;
      if (cos > 0.8) u = -(12 * theta + 2.5 * speed);
      else {
        // Energy below the upright's at rest (0): push along the motion.
        const energy = (speed * speed) / 2 + 15 * (cos - 1);
        u = energy < 0 ? (speed >= 0 ? 2 : -2) : 0;
      }
      actions[i] = Math.max(-2, Math.min(2, u));
    }
  },
};

/** A policy of uniformly random torques. */
export function randomPendulum(rng: { uniform(): number }): Actor {
  return { act(_obs, rows, actions) { for (let i = 0; i < rows; i++) actions[i] = -2 + 4 * rng.uniform(); } };
}
