"""The transformer of examples/addition-grpo.rlx in PyTorch (eager, fp32), as nanoGPT writes it:
token + learned position embeddings, pre-LayerNorm blocks with causal multi-head self-attention
and a GELU MLP, a final LayerNorm and an LM head. bench/text.ts runs it beside rlx's model and
prints the ratio of tokens per second:

- sampling: `rows` prompts of `width` tokens, then `slots` new tokens each, one position at a
  time with a key/value cache (what rlx's sampler does), temperature 1;
- training: forward, backward and an Adam step on `rows` rows of `width + slots - 1` tokens.

Usage: python3 text_gpt.py LAYERS WIDTH HEADS CONTEXT VOCAB ROWS PROMPT_WIDTH SLOTS RUNS [DEVICE [CASES]]
DEVICE: cpu (default), cuda, or auto (cuda where torch has it, else cpu); on cuda, fp32 with TF32
off, and each timing synchronises. CASES: both (default) or train (bench/gpu.ts times training only).
Prints one JSON line: {"sample_ms": median or null, "train_ms": median, "threads": n, "device": "..."}.
"""
import json
import math
import statistics
import sys
import time

import peer_setup  # noqa: F401  (thread settings from PEER_TORCH_THREADS)
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.ln2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def attend(self, x, past=None):
        B, T, C = x.shape
        H, D = self.heads, C // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, H, D).transpose(1, 2) for t in (q, k, v))
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        # A cached step attends to every earlier position; a full sequence is causal. (Written out:
        # Debian's torch 1.13 has no scaled_dot_product_attention.)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(D)
        if past is None:
            att = att.masked_fill(torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1), float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(B, T, C)), (k, v)

    def forward(self, x, past=None):
        a, present = self.attend(x, past)
        x = x + a
        x = x + self.down(F.gelu(self.up(self.ln2(x))))
        return x, present


class GPT(nn.Module):
    def __init__(self, layers, width, heads, context, vocab):
        super().__init__()
        self.tok = nn.Embedding(vocab, width)
        self.pos = nn.Embedding(context, width)
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab)

    def forward(self, tokens, start=0, past=None):
        T = tokens.shape[1]
        x = self.tok(tokens) + self.pos(torch.arange(start, start + T, device=tokens.device))
        presents = []
        for i, block in enumerate(self.blocks):
            x, present = block(x, None if past is None else past[i])
            presents.append(present)
        return self.head(self.ln(x)), presents


def median_ms(fn, runs, sync=lambda: None):
    for _ in range(2):
        fn()
    sync()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main():
    layers, width, heads, context, vocab, rows, prompt_width, slots, runs = map(int, sys.argv[1:10])
    device = sys.argv[10] if len(sys.argv) > 10 else "cpu"
    cases = sys.argv[11] if len(sys.argv) > 11 else "both"
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    if device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False  # fp32, as rlx computes
        torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(1)
    model = GPT(layers, width, heads, context, vocab).to(device)
    prompts = torch.randint(3, vocab, (rows, prompt_width), device=device)

    @torch.no_grad()
    def sample():
        # Positions one at a time, prompt included, as rlx's lockstep decoder feeds them.
        past = [(torch.zeros(rows, heads, 0, width // heads, device=device), torch.zeros(rows, heads, 0, width // heads, device=device)) for _ in range(layers)]
        token = prompts[:, :1]
        for t in range(prompt_width + slots - 1):
            logits, past = model(token, start=t, past=past)
            if t + 1 < prompt_width:
                token = prompts[:, t + 1 : t + 2]
            else:
                token = torch.multinomial(F.softmax(logits[:, -1], dim=-1), 1)

    T = prompt_width + slots - 1
    tokens = torch.randint(3, vocab, (rows, T), device=device)
    targets = torch.randint(3, vocab, (rows, T), device=device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)

    def train():
        logits, _ = model(tokens)
        loss = F.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    sample_ms = median_ms(sample, runs, sync) if cases == "both" else None
    train_ms = median_ms(train, runs, sync)
    print(json.dumps({"sample_ms": sample_ms, "train_ms": train_ms, "threads": torch.get_num_threads(), "device": device}), flush=True)


if __name__ == "__main__":
    main()
