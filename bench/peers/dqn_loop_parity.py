"""Replays whole rounds of rlx's DQN learner (bench/dqn-parity.ts writes them: the Q-network's
initial weights, every gradient step's sampled batch, where the target network was copied, the
final weights) in PyTorch as SB3's DQN.train() takes them: the TD target from the target
network (max over actions, 1 - done), smooth_l1_loss, clip_grad_norm_(10), Adam(lr) with
PyTorch's defaults, the target a hard copy of the online network where rlx copied it. Prints,
as JSON, the largest difference of the loss, of the TD targets and of the final weights.
usage: dqn_loop_parity.py ROUNDS.json"""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "shims"))
import peer_setup  # noqa: E402,F401

import copy  # noqa: E402
import torch as th  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from dqn_net import as_torch, q_network  # noqa: E402

d = json.load(open(sys.argv[1]))
q_net, linears, names = q_network(d)


def replay(nudge=None):
    """The recorded steps from w0 (each weight times 1 + nudge where given); (net, worst loss and TD target differences)."""
    with th.no_grad():
        for name, lin in zip(names, linears):
            weight, bias = as_torch(d["w0"], name, lin)
            lin.weight.copy_(weight)
            lin.bias.copy_(bias)
            if nudge is not None:
                lin.weight.mul_(1 + nudge * th.sign(th.randn_like(lin.weight)))
                lin.bias.mul_(1 + nudge * th.sign(th.randn_like(lin.bias)))
    q_target = copy.deepcopy(q_net)
    opt = th.optim.Adam(q_net.parameters(), lr=d["lr"])
    worst = {"loss": 0.0, "td_target": 0.0, "copies": 0}
    for s in d["steps"]:
        if s["copied"]:
            q_target.load_state_dict(q_net.state_dict())
            worst["copies"] += 1
        obs = th.tensor(s["obs"]).reshape(-1, d["obs_dim"])
        next_obs = th.tensor(s["next_obs"]).reshape(-1, d["obs_dim"])
        rewards = th.tensor(s["rewards"]).reshape(-1, 1)
        dones = th.tensor(s["dones"]).reshape(-1, 1)
        with th.no_grad():
            next_q, _ = q_target(next_obs).max(dim=1)
            target = rewards + (1 - dones) * d["gamma"] * next_q.reshape(-1, 1)
        q = th.gather(q_net(obs), 1, th.tensor(s["actions"]).long().reshape(-1, 1))
        loss = F.smooth_l1_loss(q, target)
        opt.zero_grad()
        loss.backward()
        th.nn.utils.clip_grad_norm_(q_net.parameters(), d["max_grad_norm"])
        opt.step()
        worst["loss"] = max(worst["loss"], abs(loss.item() - s["loss"]))
        worst["td_target"] = max(worst["td_target"], (target.reshape(-1) - th.tensor(s["td_target"])).abs().max().item())
    return [p.detach().clone() for p in q_net.parameters()], worst


def largest(a, b):
    return max((x - y).abs().max().item() for x, y in zip(a, b))


def rlx_final():
    out = []
    for name, lin in zip(names, linears):
        weight, bias = as_torch(d["w1"], name, lin)
        out += [weight, bias]
    return out


torch_final, worst = replay()
worst["steps"] = len(d["steps"])
worst["weights"] = largest(torch_final, rlx_final())
# The floor: PyTorch against itself from weights one float32 step apart (2^-23 relative);
# Adam steps every weight by about lr whatever its gradient's size, so tiny gradients' rounding
# moves weights apart by whole steps.
th.manual_seed(0)
nudged, _ = replay(nudge=2.0 ** -23)
worst["floor_weights"] = largest(torch_final, nudged)
print(json.dumps(worst), flush=True)
