"""The least PyTorch does for one off-policy update, as the baseline `npm run bench -- offpolicy`
prints beside rlx's: DQN's (CleanRL dqn.py: Q-network obs -> 120 -> 84 -> actions, MSE TD loss,
Adam) and SAC's (CleanRL sac_continuous_action.py: actor and twin critics of 256 x 256, one
critic step, one actor step and one temperature step, Polyak update of both target critics).
Batches are drawn from tensors already in memory, so the figure is the update alone.

    python3 offpolicy_torch.py dqn OBS_DIM ACTIONS BATCH RUNS
    python3 offpolicy_torch.py sac OBS_DIM ACTION_DIM BATCH RUNS

Prints one JSON line: {"update_ms": median milliseconds per update}."""
import json
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import peer_setup  # noqa: F401  (one torch thread, as the other peers)

BUFFER = 10_000


def mlp(inputs, hidden, outputs):
    layers, width = [], inputs
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    return nn.Sequential(*layers, nn.Linear(width, outputs))


def timed(update, runs):
    for _ in range(5):
        update()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        update()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def dqn(obs_dim, actions, batch, runs):
    q, target = mlp(obs_dim, [120, 84], actions), mlp(obs_dim, [120, 84], actions)
    target.load_state_dict(q.state_dict())
    opt = torch.optim.Adam(q.parameters(), lr=2.5e-4)
    obs, next_obs = torch.randn(BUFFER, obs_dim), torch.randn(BUFFER, obs_dim)
    act = torch.randint(0, actions, (BUFFER, 1))
    rew, done = torch.randn(BUFFER), torch.zeros(BUFFER)

    def update():
        idx = torch.randint(0, BUFFER, (batch,))
        with torch.no_grad():
            target_max, _ = target(next_obs[idx]).max(dim=1)
            td_target = rew[idx] + 0.99 * target_max * (1 - done[idx])
        old_val = q(obs[idx]).gather(1, act[idx]).squeeze()
        loss = F.mse_loss(td_target, old_val)
        opt.zero_grad()
        loss.backward()
        opt.step()

    return timed(update, runs)


def sac(obs_dim, action_dim, batch, runs):
    actor = mlp(obs_dim, [256, 256], 2 * action_dim)
    qf1, qf2 = mlp(obs_dim + action_dim, [256, 256], 1), mlp(obs_dim + action_dim, [256, 256], 1)
    qf1_t, qf2_t = mlp(obs_dim + action_dim, [256, 256], 1), mlp(obs_dim + action_dim, [256, 256], 1)
    qf1_t.load_state_dict(qf1.state_dict())
    qf2_t.load_state_dict(qf2.state_dict())
    q_opt = torch.optim.Adam(list(qf1.parameters()) + list(qf2.parameters()), lr=1e-3)
    actor_opt = torch.optim.Adam(actor.parameters(), lr=3e-4)
    log_alpha = torch.zeros(1, requires_grad=True)
    a_opt = torch.optim.Adam([log_alpha], lr=1e-3)
    target_entropy = -float(action_dim)
    obs, next_obs = torch.randn(BUFFER, obs_dim), torch.randn(BUFFER, obs_dim)
    act, rew, done = torch.rand(BUFFER, action_dim) * 2 - 1, torch.randn(BUFFER), torch.zeros(BUFFER)

    def policy(x):
        mean, log_std = actor(x).chunk(2, dim=-1)
        log_std = -5 + 0.5 * (2 - -5) * (torch.tanh(log_std) + 1)
        normal = torch.distributions.Normal(mean, log_std.exp())
        x_t = normal.rsample()
        y_t = torch.tanh(x_t)
        log_prob = (normal.log_prob(x_t) - torch.log(1 - y_t.pow(2) + 1e-6)).sum(1, keepdim=True)
        return y_t, log_prob

    def update():
        idx = torch.randint(0, BUFFER, (batch,))
        o, no = obs[idx], next_obs[idx]
        alpha = log_alpha.exp().item()
        with torch.no_grad():
            na, nlp = policy(no)
            q_next = torch.min(qf1_t(torch.cat([no, na], 1)), qf2_t(torch.cat([no, na], 1))) - alpha * nlp
            target = rew[idx] + (1 - done[idx]) * 0.99 * q_next.view(-1)
        oa = torch.cat([o, act[idx]], 1)
        qf_loss = F.mse_loss(qf1(oa).view(-1), target) + F.mse_loss(qf2(oa).view(-1), target)
        q_opt.zero_grad()
        qf_loss.backward()
        q_opt.step()
        pi, lp = policy(o)
        pa = torch.cat([o, pi], 1)
        actor_loss = ((alpha * lp) - torch.min(qf1(pa), qf2(pa))).mean()
        actor_opt.zero_grad()
        actor_loss.backward()
        actor_opt.step()
        with torch.no_grad():
            _, lp = policy(o)
        alpha_loss = (-log_alpha.exp() * (lp + target_entropy)).mean()
        a_opt.zero_grad()
        alpha_loss.backward()
        a_opt.step()
        with torch.no_grad():
            for net, tgt in ((qf1, qf1_t), (qf2, qf2_t)):
                for p, tp in zip(net.parameters(), tgt.parameters()):
                    tp.data.copy_(0.005 * p.data + 0.995 * tp.data)

    return timed(update, runs)


if __name__ == "__main__":
    kind, a, b, batch, runs = sys.argv[1], *map(int, sys.argv[2:6])
    ms = dqn(a, b, batch, runs) if kind == "dqn" else sac(a, b, batch, runs)
    print(json.dumps({"update_ms": ms}), flush=True)
