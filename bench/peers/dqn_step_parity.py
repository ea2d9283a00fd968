"""Replays rlx's DQN updates (bench/dqn-parity.ts writes them: the initial Q-network weights, and
per step the batch, TD targets, loss and gradient norm) in PyTorch as SB3's DQN.train() takes
them: smooth_l1_loss, clip_grad_norm_(10), Adam(lr) with PyTorch's defaults. Prints, as JSON, the
largest difference of the loss, the gradient norm and the final weights.
usage: dqn_step_parity.py STEPS.json"""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "shims"))
import peer_setup  # noqa: E402,F401

import torch as th  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from dqn_net import as_torch, load_weights, q_network  # noqa: E402

d = json.load(open(sys.argv[1]))
net, linears, names = q_network(d)


load_weights(d["w0"], names, linears)
opt = th.optim.Adam(net.parameters(), lr=d["lr"])
worst = {"loss": 0.0, "grad_norm": 0.0, "weights": 0.0}
for s in d["steps"]:
    obs = th.tensor(s["obs"]).reshape(-1, d["obs_dim"])
    q = th.gather(net(obs), 1, th.tensor(s["actions"]).reshape(-1, 1))
    loss = F.smooth_l1_loss(q, th.tensor(s["td_target"]).reshape(-1, 1))
    opt.zero_grad()
    loss.backward()
    norm = th.nn.utils.clip_grad_norm_(net.parameters(), d["max_grad_norm"])
    opt.step()
    worst["loss"] = max(worst["loss"], abs(loss.item() - s["loss"]))
    worst["grad_norm"] = max(worst["grad_norm"], abs(norm.item() - s["grad_norm"]))
with th.no_grad():
    for name, lin in zip(names, linears):
        weight, bias = as_torch(d["w1"], name, lin)
        worst["weights"] = max(worst["weights"], (weight - lin.weight).abs().max().item(), (bias - lin.bias).abs().max().item())
print(json.dumps(worst), flush=True)
