#!/usr/bin/env bash
# npm run bench -- gpu on a GPU machine with no network, run from the repository root with the
# build (out/) and node_modules/ carried, plus .gl/*.deb (Debian's libvulkan1 and libglvnd, which
# NVIDIA's Vulkan driver needs: docs/gpu.md) and a Node binary at .device/node.xz.
# The bench's lines go to $OUT/gpu-bench.txt as they are printed, so a run cut short keeps its rows.
# BENCH_GPU_SECONDS and BENCH_GPU_QUICK pass through (bench/gpu.ts); BENCH_GPU_ONLY too, by
# default issue 33's tables and the GRPO step's profile (ppo, small-sampling and placement are in
# docs/gpu.md already).
set -euo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if command -v xz > /dev/null; then xz -dc .device/node.xz > /tmp/node
else python3 -c 'import lzma, shutil; shutil.copyfileobj(lzma.open(".device/node.xz"), open("/tmp/node", "wb"))'; fi
chmod +x /tmp/node
out="${OUT:-.}/gpu-bench.txt"
{ date -u; nvidia-smi -L || true; /tmp/node --version; } 2>&1 | tee "$out"
BENCH_GPU_ONLY="${BENCH_GPU_ONLY:-transformer,profile,passes,lora,sampling}" PYTHONUNBUFFERED=1 /tmp/node out/bench/index.js gpu 2>&1 | tee -a "$out"
