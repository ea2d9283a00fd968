"""SB3 2.3.2 DQN on CartPole-v1 with rl-baselines3-zoo's hyperparameters (hyperparams/dqn.yml):
n_timesteps 5e4, MlpPolicy, learning_rate 2.3e-3, batch_size 64, buffer_size 100000,
learning_starts 1000, gamma 0.99, target_update_interval 10, train_freq 256, gradient_steps 128,
exploration_fraction 0.16, exploration_final_eps 0.04, policy_kwargs net_arch [256, 256].
The env is built as the zoo does: make_vec_env (one DummyVecEnv + Monitor), seeded.
A callback records the mean of the last 20 finished training episodes' returns (Monitor's
episode return, as SB3 logs it) every 1000 env steps, and the first env step and wall time at
which it is >= 475; by default training stops there (as rlx's `stop:` does).
--eval-episodes N (with --no-stop, as rl-zoo trains) evaluates the final model as rl-zoo does:
evaluate_policy(deterministic=True) for N episodes on an env of its own (make_vec_env, seed +
1000), printed as eval_mean and eval_returns; --eval-every M also evaluates every M env steps
(`evals`: [step, mean]). Greedy actions draw nothing from the training RNG, so evaluating does
not change the training run; its time is left out of train_seconds and sps_train, and counted
in wall_with_evals (from the start of training to the end of the final evaluation).
usage: run_sb3_dqn.py --seed N [--no-stop] [--eval-episodes N [--eval-every M]] [--json OUT]"""
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
from stable_baselines3.common.evaluation import evaluate_policy  # noqa: E402


class Reach(BaseCallback):
    def __init__(self, threshold=475.0, window=20, stop=True, every=1000, evaluate=None, eval_every=0):
        super().__init__()
        self.threshold, self.window, self.stop, self.every = threshold, window, stop, every
        self.evaluate, self.eval_every = evaluate, eval_every
        self.evals = []  # [step, mean eval return]
        self.eval_seconds = 0.0
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
        if self.eval_every > 0 and self.num_timesteps % self.eval_every == 0:
            t0 = time.time()
            self.evals.append([int(self.num_timesteps), self.evaluate()[1]])
            self.eval_seconds += time.time() - t0
        if self.hit is not None and self.stop:
            return False
        return True


ap = argparse.ArgumentParser()
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--no-stop", action="store_true")
ap.add_argument("--eval-episodes", type=int, default=0)
ap.add_argument("--eval-every", type=int, default=0)
ap.add_argument("--json", default=None)
a = ap.parse_args()

t_imports = time.time()
env = make_vec_env("CartPole-v1", n_envs=1, seed=a.seed)
model = DQN("MlpPolicy", env, learning_rate=2.3e-3, batch_size=64, buffer_size=100000,
            learning_starts=1000, gamma=0.99, target_update_interval=10, train_freq=256,
            gradient_steps=128, exploration_fraction=0.16, exploration_final_eps=0.04,
            policy_kwargs=dict(net_arch=[256, 256]), seed=a.seed, device="cpu", verbose=0)
eval_env = make_vec_env("CartPole-v1", n_envs=1, seed=a.seed + 1000)


def evaluate():
    returns, _ = evaluate_policy(model, eval_env, n_eval_episodes=a.eval_episodes, deterministic=True,
                                 return_episode_rewards=True)
    returns = [float(r) for r in returns]
    return returns, sum(returns) / len(returns)


cb = Reach(stop=not a.no_stop, evaluate=evaluate, eval_every=a.eval_every if a.eval_episodes > 0 else 0)
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
    "train_seconds": t_end - cb.t_train0 - cb.eval_seconds,
    "sps_train": model.num_timesteps / (t_end - cb.t_train0 - cb.eval_seconds),
}
if a.eval_episodes > 0:
    res["eval_returns"], res["eval_mean"] = evaluate()
    res["evals"] = cb.evals
    res["wall_with_evals"] = time.time() - cb.t_train0
if cb.hit:
    res["hit_wall_from_process"] = cb.hit["time"] - peer_setup.PROCESS_T0
    res["hit_wall_from_train"] = cb.hit["time"] - cb.t_train0
print(json.dumps(res), flush=True)
if a.json:
    with open(a.json, "w") as f:
        json.dump(res, f)
