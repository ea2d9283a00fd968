"""Takes a whole rlx DQN run's gradient steps again in PyTorch (bench/dqn-replay.ts writes them:
the replay buffer's rows, each step's sampled row indices, where the target was copied, and the
Q-network's initial weights), as SB3's DQN.train() takes them: the TD target from the target
network (max over actions, 1 - done), smooth_l1_loss, clip_grad_norm_, Adam(lr) with PyTorch's
defaults, the target a hard copy of the online network where rlx copied it. After each round of
gradient steps it prints, as a JSON line, the largest and the mean Q-value over the first
`probe` stored observations.
usage: dqn_replay.py DIR"""
import copy
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "shims"))
import peer_setup  # noqa: E402,F401

import numpy as np  # noqa: E402
import torch as th  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from dqn_net import load_weights, q_network  # noqa: E402

d = sys.argv[1]
meta = json.load(open(os.path.join(d, "meta.json")))
rows, obs_dim, batch = meta["rows"], meta["obs_dim"], meta["batch"]


def load(name, dtype):
    return np.fromfile(os.path.join(d, name + ".bin"), dtype=dtype)


obs = th.tensor(load("obs", np.float32).reshape(rows, obs_dim))
next_obs = th.tensor(load("next_obs", np.float32).reshape(rows, obs_dim))
actions = th.tensor(load("actions", np.float32)).long()
rewards = th.tensor(load("rewards", np.float32))
dones = th.tensor(load("dones", np.float32))
indices = th.tensor(load("indices", np.int32).astype(np.int64).reshape(-1, batch))
copied = load("copied", np.uint8)

q_net, linears, names = q_network(meta)
load_weights(meta["w0"], names, linears)
q_target = copy.deepcopy(q_net)
opt = th.optim.Adam(q_net.parameters(), lr=meta["lr"])
probe = obs[: meta["probe"]]
for s in range(indices.shape[0]):
    if copied[s]:
        q_target.load_state_dict(q_net.state_dict())
    i = indices[s]
    with th.no_grad():
        next_q, _ = q_target(next_obs[i]).max(dim=1)
        target = rewards[i] + (1 - dones[i]) * meta["gamma"] * next_q
    q = th.gather(q_net(obs[i]), 1, actions[i].reshape(-1, 1)).reshape(-1)
    loss = F.smooth_l1_loss(q, target)
    opt.zero_grad()
    loss.backward()
    th.nn.utils.clip_grad_norm_(q_net.parameters(), meta["max_grad_norm"])
    opt.step()
    if (s + 1) % meta["gradient_steps"] == 0:
        with th.no_grad():
            values = q_net(probe)
        print(json.dumps([values.max().item(), values.mean().item()]), flush=True)
