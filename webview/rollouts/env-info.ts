// What the inspector knows about built-in envs beyond the rollout header: names of discrete
// actions, and a natural playback rate (steps per second of simulated time, so 1x plays an
// episode about as fast as the env's physics runs).

const ACTION_NAMES: Record<string, string[]> = {
  CartPole: ['push left', 'push right'],
  MountainCar: ['push left', 'no push', 'push right'],
  Acrobot: ['torque −1', 'no torque', 'torque +1'],
  GridWorld: ['up', 'right', 'down', 'left'],
};

const STEPS_PER_SECOND: Record<string, number> = {
  CartPole: 50,
  MountainCar: 30,
  Acrobot: 5,
  Pendulum: 20,
  GridWorld: 4,
};

export function actionName(env: string | undefined, action: number): string | undefined {
  return env ? ACTION_NAMES[env]?.[action] : undefined;
}

export function stepsPerSecond(env: string | undefined): number {
  return (env && STEPS_PER_SECOND[env]) || 10;
}
