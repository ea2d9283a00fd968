# Gymnasium's own SyncVectorEnv stepping N copies of an env in-process, for bench/python-env.ts:
# the floor the Python env bridge is measured against. Prints one line: steps/s (copies x vector steps).
#   python3 sync_vector_env.py ENV_ID COPIES SECONDS
import sys
import time

import gymnasium
import numpy as np

env_id, copies, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
vec = gymnasium.vector.SyncVectorEnv([lambda: gymnasium.make(env_id) for _ in range(copies)])
vec.reset(seed=1)
actions = np.zeros(copies, dtype=np.int64)


def run(until):
    steps = 0
    while time.perf_counter() < until:
        for i in range(100):
            actions[:] = (np.arange(copies) + steps) & 1
            vec.step(actions)
            steps += copies
    return steps


run(time.perf_counter() + 0.2)
start = time.perf_counter()
steps = run(start + seconds)
print(steps / (time.perf_counter() - start))
