"""The Q-network of rlx's DQN in PyTorch, for the parity peers (dqn_step_parity.py,
dqn_loop_parity.py): Linear and ReLU layers of the recorded sizes, named as rlx names them
(q.0, q.1, ..., q.out), and rlx's [in, out] weights read into torch's [out, in] layout."""
import torch as th
import torch.nn as nn


def q_network(d):
    """(net, its Linear layers, their rlx names) for a record with obs_dim, hidden and actions."""
    sizes = [d["obs_dim"], *d["hidden"], d["actions"]]
    layers = []
    for i in range(len(sizes) - 1):
        layers += [nn.Linear(sizes[i], sizes[i + 1]), nn.ReLU()]
    net = nn.Sequential(*layers[:-1])
    linears = [m for m in net if isinstance(m, nn.Linear)]
    names = [f"q.{i}" for i in range(len(linears) - 1)] + ["q.out"]
    return net, linears, names


def as_torch(w, name, lin):
    """Layer `name`'s weight and bias from rlx's record `w` ([in, out]) as torch's ([out, in])."""
    return th.tensor(w[name + ".weight"]).reshape(lin.in_features, lin.out_features).t(), th.tensor(w[name + ".bias"])


def load_weights(w, names, linears):
    """Sets each Linear of `linears` (named `names`) to rlx's record `w` ([in, out] weights)."""
    with th.no_grad():
        for name, lin in zip(names, linears):
            weight, bias = as_torch(w, name, lin)
            lin.weight.copy_(weight)
            lin.bias.copy_(bias)
