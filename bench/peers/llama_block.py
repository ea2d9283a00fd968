# A Llama/Qwen2-style causal LM in plain PyTorch (eager), the reference for bench/pretrained.ts:
# embedding, RMSNorm, rotary positions, grouped-query attention with a key/value cache, SwiGLU,
# a tied head; LoRA on q/k/v/o for the LoRA case. Random weights; the cost does not depend on them.
#   python3 llama_block.py CASE THREADS RUNS LAYERS WIDTH HEADS KV_HEADS HEAD_DIM MLP VOCAB BATCH PROMPT NEW_TOKENS [DEVICE [MICRO CHECKPOINT]]
# MICRO (training cases): rows per forward/backward, their gradients summed before the one Adam
# step (0: the whole batch at once); CHECKPOINT 1: every block recomputed in the backward
# (torch.utils.checkpoint), as rlx's micro_batch and gradient_checkpointing (bench/lm-scale.ts).
# DEVICE: cpu (default), cuda, or auto (cuda where torch has it, else cpu); on cuda, fp32 with TF32
# off, and each run synchronises before its time is taken. {"ready": ...} says which device ran.
# CASE: sample | lora | full. Builds the model, runs the case once (warm-up), prints {"ready": true},
# then runs it once per line read on stdin, printing {"ms": milliseconds} after each: the bench
# interleaves these runs with its own. RUNS is unused by that protocol but kept for running by hand
# (with no stdin: `< /dev/null` runs RUNS times and prints {"ms": [...]}).
import json, math, sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint

case, threads, runs, L, C, H, KV, D, M, V, B, T, NEW = sys.argv[1], *map(int, sys.argv[2:14])
DEVICE = sys.argv[14] if len(sys.argv) > 14 else "cpu"
MICRO = int(sys.argv[15]) if len(sys.argv) > 15 else 0
CHECKPOINT = len(sys.argv) > 16 and sys.argv[16] == "1"
if DEVICE == "auto":
    DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
if DEVICE == "cuda":
    torch.backends.cuda.matmul.allow_tf32 = False  # fp32, as rlx computes
    torch.backends.cudnn.allow_tf32 = False
sync = torch.cuda.synchronize if DEVICE == "cuda" else (lambda: None)
torch.set_num_threads(threads)
torch.manual_seed(0)
THETA, EPS, RANK, ALPHA = 1e6, 1e-6, 16, 32


class Linear(nn.Linear):
    def __init__(self, i, o, bias, lora):
        super().__init__(i, o, bias=bias)
        self.lora = lora
        if lora:
            self.a = nn.Parameter(torch.randn(RANK, i) / math.sqrt(i))
            self.b = nn.Parameter(torch.zeros(o, RANK))

    def forward(self, x):
        y = super().forward(x)
        return y + (ALPHA / RANK) * F.linear(F.linear(x, self.a), self.b) if self.lora else y


class RMSNorm(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS))


def rotate(x, cos, sin):
    x1, x2 = x[..., : D // 2], x[..., D // 2 :]
    return x * cos + torch.cat((-x2, x1), -1) * sin


class Block(nn.Module):
    def __init__(self, lora):
        super().__init__()
        self.n1, self.n2 = RMSNorm(C), RMSNorm(C)
        self.q, self.k, self.v = Linear(C, H * D, True, lora), Linear(C, KV * D, True, lora), Linear(C, KV * D, True, lora)
        self.o = Linear(H * D, C, False, lora)
        self.gate, self.up, self.down = Linear(C, M, False, False), Linear(C, M, False, False), Linear(M, C, False, False)

    def forward(self, x, cos, sin, cache):
        b, t, _ = x.shape
        h = self.n1(x)
        q = rotate(self.q(h).view(b, t, H, D).transpose(1, 2), cos, sin)
        k = rotate(self.k(h).view(b, t, KV, D).transpose(1, 2), cos, sin)
        v = self.v(h).view(b, t, KV, D).transpose(1, 2)
        if cache is not None:
            if cache[0] is not None:
                k, v = torch.cat((cache[0], k), 2), torch.cat((cache[1], v), 2)
            cache[0], cache[1] = k, v
        s = k.shape[2]
        k, v = k.repeat_interleave(H // KV, 1), v.repeat_interleave(H // KV, 1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(D)
        if t > 1:
            scores = scores + torch.full((t, s), float("-inf"), device=x.device).triu(s - t + 1)
        a = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, H * D)
        x = x + self.o(a)
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Model(nn.Module):
    def __init__(self, lora):
        super().__init__()
        self.embed = nn.Embedding(V, C)
        self.blocks = nn.ModuleList(Block(lora) for _ in range(L))
        self.norm = RMSNorm(C)
        self.register_buffer("inv", 1.0 / THETA ** (torch.arange(0, D, 2).float() / D), persistent=False)

    def forward(self, tokens, start=0, caches=None, last_only=False):
        t = tokens.shape[1]
        angles = torch.outer(torch.arange(start, start + t, device=tokens.device).float(), self.inv)
        angles = torch.cat((angles, angles), -1)
        cos, sin = angles.cos(), angles.sin()
        x = self.embed(tokens)
        for i, block in enumerate(self.blocks):
            if CHECKPOINT and caches is None and torch.is_grad_enabled():
                x = torch.utils.checkpoint.checkpoint(block, x, cos, sin, None, use_reentrant=False)
            else:
                x = block(x, cos, sin, caches[i] if caches is not None else None)
        if last_only:
            x = x[:, -1:]
        return F.linear(self.norm(x), self.embed.weight)  # tied head (x @ E^T without copying E^T)


def serve(fn):
    fn()  # warm-up
    sync()
    print(json.dumps({"ready": True, "device": DEVICE}), flush=True)
    timings = []
    for line in sys.stdin:
        if not line.strip():
            break
        t0 = time.perf_counter()
        fn()
        sync()
        timings.append((time.perf_counter() - t0) * 1000)
        print(json.dumps({"ms": timings[-1]}), flush=True)
    if not timings:  # run by hand
        for _ in range(runs):
            t0 = time.perf_counter()
            fn()
            sync()
            timings.append((time.perf_counter() - t0) * 1000)
        print(json.dumps({"ms": timings}), flush=True)


model = Model(lora=case == "lora").to(DEVICE)
if case == "sample":
    model.eval()
    prompt = torch.randint(0, V, (B, T), device=DEVICE)

    @torch.no_grad()
    def sample():
        caches = [[None, None] for _ in range(L)]
        logits = model(prompt, 0, caches, last_only=True)
        for i in range(NEW - 1):  # the last token needs no forward pass
            token = logits[:, -1].argmax(-1, keepdim=True)
            logits = model(token, T + i, caches, last_only=True)

    serve(sample)
else:
    if case == "lora":
        for name, p in model.named_parameters():
            p.requires_grad_(name.endswith(".a") or name.endswith(".b"))
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=1e-5)
    tokens = torch.randint(0, V, (B, T), device=DEVICE)
    targets = torch.randint(0, V, (B, T), device=DEVICE)

    def step():
        opt.zero_grad(set_to_none=True)
        rows = MICRO or B
        for r in range(0, B, rows):
            # Summed over the micro-batch's tokens, divided by the whole batch's: the batch's mean.
            part = F.cross_entropy(model(tokens[r : r + rows]).reshape(-1, V), targets[r : r + rows].reshape(-1), reduction="sum") / (B * T)
            part.backward()
        opt.step()

    serve(step)
