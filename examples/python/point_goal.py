# A goal env for rlx's gymnasium(...) bridge, written as Gymnasium-Robotics writes its goal envs:
# a point in the square [-1, 1]^2 moves by up to `speed` per step along each axis (continuous
# actions in [-1, 1]^2) and must come within `distance_threshold` of a goal drawn each episode.
#
# - Observations are a Dict of `observation` (the position), `achieved_goal` (the position again)
#   and `desired_goal`; rlx flattens it in Gymnasium's order (achieved_goal, desired_goal,
#   observation) and names the numbers achieved_goal_0, achieved_goal_1, desired_goal_0, ...
# - The reward is sparse: -1 for a step that ends away from the goal, 0 for one that ends on it;
#   reaching the goal ends the episode, with info["is_success"] (rlx's `success`).
# - compute_reward and compute_terminated are vectorised over a leading batch dimension, as
#   Gymnasium-Robotics asks: hindsight relabeling (`relabel: future(k: 4)`) gets the rewards of a
#   whole batch of relabeled goals in one call.
#
# Importing this module registers PointGoal-v0 (`imports: ["point_goal"]` in the .rlx file, with
# this folder on PYTHONPATH); examples/gym-point-goal-her.rlx trains SAC with HER on it.
import gymnasium
import numpy as np
from gymnasium import spaces


class PointGoal(gymnasium.Env):
    def __init__(self, speed=0.2, distance_threshold=0.15):
        self.speed = speed
        self.distance_threshold = distance_threshold
        square = spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.observation_space = spaces.Dict({'observation': square, 'achieved_goal': square, 'desired_goal': square})
        self.action_space = spaces.Box(-1.0, 1.0, (2,), np.float32)

    def compute_reward(self, achieved_goal, desired_goal, info):
        # -1 away from the goal, 0 on it; achieved_goal and desired_goal may be (2,) or (batch, 2).
        distance = np.linalg.norm(np.asarray(achieved_goal) - np.asarray(desired_goal), axis=-1)
        return (distance <= self.distance_threshold).astype(np.float32) - 1.0

    def compute_terminated(self, achieved_goal, desired_goal, info):
        distance = np.linalg.norm(np.asarray(achieved_goal) - np.asarray(desired_goal), axis=-1)
        return distance <= self.distance_threshold

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.position = self.np_random.uniform(-1.0, 1.0, 2).astype(np.float32)
        self.goal = self.np_random.uniform(-1.0, 1.0, 2).astype(np.float32)
        return self.observation(), {}

    def step(self, action):
        move = np.clip(np.asarray(action, dtype=np.float32), -1.0, 1.0) * self.speed
        self.position = np.clip(self.position + move, -1.0, 1.0).astype(np.float32)
        obs = self.observation()
        reward = float(self.compute_reward(obs['achieved_goal'], obs['desired_goal'], {}))
        reached = bool(self.compute_terminated(obs['achieved_goal'], obs['desired_goal'], {}))
        return obs, reward, reached, False, {'is_success': reached}

    def observation(self):
        return {'observation': self.position.copy(), 'achieved_goal': self.position.copy(), 'desired_goal': self.goal.copy()}


gymnasium.register('PointGoal-v0', entry_point=PointGoal, max_episode_steps=30)
