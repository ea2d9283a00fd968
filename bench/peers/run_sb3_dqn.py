"""SB3 2.3.2 DQN on CartPole-v1 with rl-baselines3-zoo's hyperparameters (hyperparams/dqn.yml):
n_timesteps 5e4, MlpPolicy, learning_rate 2.3e-3, batch_size 64, buffer_size 100000,
learning_starts 1000, gamma 0.99, target_update_interval 10, train_freq 256, gradient_steps 128,
exploration_fraction 0.16, exploration_final_eps 0.04, policy_kwargs net_arch [256, 256].
The env is built as the zoo does: make_vec_env (one DummyVecEnv + Monitor), seeded.
A callback records the mean of the last 20 finished training episodes' returns (Monitor's
episode return, as SB3 logs it) every 1000 env steps, and the first env step and wall time at
which it is >= 475; by default training stops there (as rlx's `stop:` does).
usage: run_sb3_dqn.py --seed N [--no-stop] [--json OUT]"""
import argparse
import json
import os
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "shims"))
import peer_setup  # noqa: E402

from stable_baselines3 import DQN  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402


class Reach(BaseCallback):
    def __init__(self, threshold=475.0, window=20, stop=True, every=1000):
        super().__init__()
        self.threshold, self.window, self.stop, self.every = threshold, window, stop, every
        self.returns = []
        self.curve = []  # [step, mean of the last `window` returns]
        self.hit = None
        self.t_train0 = None

    def _on_training_start(self):
        self.t_train0 = time.time()

    def mean(self):
        last = self.returns[-self.window:]
        return sum(last) / len(last) if last else None

    def _on_step(self):
        for info in self.locals["infos"]:
            ep = info.get("episode")
            if ep is not None:
                self.returns.append(float(ep["r"]))
                if self.hit is None and len(self.returns) >= self.window:
                    m = self.mean()
                    if m >= self.threshold:
                        self.hit = {"step": int(self.num_timesteps), "time": time.time(), "mean20": m,
                                    "episodes": len(self.returns)}
        if self.num_timesteps % self.every == 0:
            self.curve.append([int(self.num_timesteps), self.mean()])
        if self.hit is not None and self.stop:
            return False
        return True


ap = argparse.ArgumentParser()
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--no-stop", action="store_true")
ap.add_argument("--json", default=None)
a = ap.parse_args()

t_imports = time.time()
env = make_vec_env("CartPole-v1", n_envs=1, seed=a.seed)
model = DQN("MlpPolicy", env, learning_rate=2.3e-3, batch_size=64, buffer_size=100000,
            learning_starts=1000, gamma=0.99, target_update_interval=10, train_freq=256,
            gradient_steps=128, exploration_fraction=0.16, exploration_final_eps=0.04,
            policy_kwargs=dict(net_arch=[256, 256]), seed=a.seed, device="cpu", verbose=0)
cb = Reach(stop=not a.no_stop)
model.learn(total_timesteps=int(5e4), callback=cb)
t_end = time.time()
res = {
    "seed": a.seed,
    "t_process": peer_setup.PROCESS_T0,
    "t_imports_done": t_imports,
    "t_train_start": cb.t_train0,
    "t_end": t_end,
    "steps_done": int(model.num_timesteps),
    "episodes": len(cb.returns),
    "final_mean20": cb.mean(),
    "best_mean20": max((m for _, m in cb.curve if m is not None), default=None),
    "hit": cb.hit,
    "curve": cb.curve,
    "sps_train": model.num_timesteps / (t_end - cb.t_train0),
}
if cb.hit:
    res["hit_wall_from_process"] = cb.hit["time"] - peer_setup.PROCESS_T0
    res["hit_wall_from_train"] = cb.hit["time"] - cb.t_train0
print(json.dumps(res), flush=True)
if a.json:
    with open(a.json, "w") as f:
        json.dump(res, f)
