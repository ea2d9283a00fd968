# rlx's Python env worker: makes `copies` copies of a Gymnasium env and serves reset/step to the
# trainer (runtime/envs/python/python-env.ts) over two pipes, in fixed-size little-endian frames.
#
#   python3 worker.py COMMANDS RESULTS CONFIG_JSON
#
# COMMANDS and RESULTS are FIFOs the trainer made; CONFIG_JSON is {"id", "kwargs", "imports",
# "max_steps" (0: the id's own limit)}; the worker starts with one copy and makes more when asked. The first frame on RESULTS is the handshake: u32 length + JSON, either
# {"ok": true, "observation": SPACE, "action": SPACE, "max_steps": N|null} or {"ok": false, "error": "..."}. Then, per
# command (a u8 opcode, then its numbers as float64):
#   b"R" copy seed      reset copy `copy` (seed < 0: no seed)   -> obs[obs_dim]
#   b"S" n (copy actions[action_dim]) * n   step n copies        -> per copy: obs, reward, flags
#   b"A" n (copy actions[action_dim]) * n   step n copies, then reset (unseeded) each copy whose
#                       episode ended                           -> the same, then the new obs of each
#                                                                  ended copy, in order
#   b"M"                make one more copy                      -> u32 length + JSON error, or 0
# flags: 1 terminated, 2 truncated. "A" is the vector env's step (Gymnasium 0.29's same-step
# autoreset, one round trip for the step and the resets): the observation that ended an episode
# still reaches the trainer, before the new episode's first. "S" never resets. End of COMMANDS
# (the trainer exited, even killed) ends the worker, so no worker outlives its trainer.
import json
import os
import struct
import sys
import traceback


def send_json(out, value):
    data = json.dumps(value).encode()
    out.write(struct.pack('<I', len(data)) + data)


def space_of(space, np, role):
    name = type(space).__name__
    if name == 'Discrete':
        if int(space.start) != 0:
            raise ValueError(f'the {role} space {space} starts at {int(space.start)}; rlx takes Discrete spaces that start at 0')
        return {'kind': 'discrete', 'n': int(space.n)}
    if name == 'Box':
        if space.dtype not in (np.float32, np.float64):
            raise ValueError(f'the {role} space {space} has dtype {space.dtype}; rlx takes Box spaces of float32 or float64')
        return {'kind': 'box', 'shape': [int(d) for d in space.shape],
                'low': [float(v) for v in space.low.reshape(-1)], 'high': [float(v) for v in space.high.reshape(-1)]}
    raise ValueError(f'the {role} space is {name} ({space}); rlx takes Box (float32/float64) and Discrete spaces')


def read_exact(source, size):
    data = source.read(size)
    if data is None or len(data) < size:
        sys.exit(0)  # the trainer closed its end: stop
    return data


class CommandReader:
    """The command pipe with read(size) as a file has it, one system call per command: the
    trainer writes each command whole and waits for its answer before it sends the next, so one
    read takes all of it (the rest of a larger one is read as needed)."""

    def __init__(self, source):
        self.fd = source.fileno()
        self.pending = b''

    def read(self, size):
        data = self.pending
        while len(data) < size:
            more = os.read(self.fd, max(size - len(data), 65536))
            if not more:
                return data  # the trainer closed its end
            data += more
        self.pending = data[size:]
        return data[:size]


def die_with_parent():
    # Linux: the kernel kills this worker when the trainer dies, even inside a step that hangs.
    try:
        import ctypes
        import signal
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def make_env(config, gymnasium):
    """One copy of the env the config names (the trainer's gymnasium(...) declaration)."""
    kwargs = dict(config.get('kwargs', {}))
    if config.get('max_steps'):
        kwargs['max_episode_steps'] = int(config['max_steps'])
    return gymnasium.make(config['id'], **kwargs)


def describe(env, np):
    """The handshake's description of the env: its spaces and its episode limit."""
    return {'ok': True,
            'observation': space_of(env.observation_space, np, 'observation'),
            'action': space_of(env.action_space, np, 'action'),
            'max_steps': getattr(env.spec, 'max_episode_steps', None)}


def converters(description, np):
    """observation_numbers(obs) -> list of floats, and action_of(row) -> what step() takes (row[0] is the copy)."""
    observation, action = description['observation'], description['action']
    discrete = action['kind'] == 'discrete'
    action_shape = tuple(action.get('shape', ()))
    # The hot path works on Python lists (tolist, struct): cheaper than numpy calls per copy.
    flat = observation['kind'] == 'box' and len(observation['shape']) == 1

    def observation_numbers(obs):
        return obs.tolist() if flat and type(obs) is np.ndarray else np.asarray(obs, dtype=np.float64).reshape(-1).tolist()

    def action_of(row):
        return int(row[1]) if discrete else np.asarray(row[1:], dtype=np.float32).reshape(action_shape)

    return observation_numbers, action_of


def space_size(space, np):
    return 1 if space['kind'] == 'discrete' else int(np.prod(space['shape']))


def failure():
    lines = traceback.format_exc().rstrip().splitlines()
    return {'ok': False, 'error': '\n'.join(lines[-6:])}


def main():
    die_with_parent()
    commands = open(sys.argv[1], 'rb', buffering=0)
    results = open(sys.argv[2], 'wb', buffering=0)
    config = json.loads(sys.argv[3])
    try:
        import importlib
        import numpy as np
        import gymnasium
        for name in config.get('imports', []):
            importlib.import_module(name)
        envs = [make_env(config, gymnasium)]
        description = describe(envs[0], np)
    except BaseException:
        send_json(results, failure())
        return
    send_json(results, description)
    serve(commands, results, envs, config, gymnasium, description, np)


def serve(commands, results, envs, config, gymnasium, description, np):
    """Answers the trainer's commands until it closes its end."""
    observation_numbers, action_of = converters(description, np)
    action_dim = space_size(description['action'], np)
    obs_dim = space_size(description['observation'], np)
    row_width = 1 + action_dim
    commands = CommandReader(commands)
    results_fd = results.fileno()
    one_number = struct.Struct('<d')
    packers = {}

    def packer(count):
        # Precompiled per frame size: a run uses few (its copies per worker, and how many of them reset).
        found = packers.get(count)
        if found is None:
            found = packers[count] = struct.Struct(f'<{count}d')
        return found

    def write(data):
        view = memoryview(data)
        while view:
            view = view[os.write(results_fd, view):]

    def step_into(env, row, values):
        obs, reward, terminated, truncated, _info = env.step(action_of(row))
        numbers = observation_numbers(obs)
        if len(numbers) != obs_dim:
            raise ValueError(f'step() returned an observation of shape {np.shape(obs)}; the observation space has {obs_dim} numbers')
        values.extend(numbers)
        values.append(float(reward))
        flags = (1 if terminated else 0) + (2 if truncated else 0)
        values.append(flags)
        return flags

    def reset_numbers(env, seed):
        obs, _info = env.reset(seed=seed)
        numbers = observation_numbers(obs)
        if len(numbers) != obs_dim:
            raise ValueError(f'reset() returned an observation of shape {np.shape(obs)}; the observation space has {obs_dim} numbers')
        return numbers

    while True:
        op = read_exact(commands, 1)
        if op == b'S' or op == b'A':
            count = int(one_number.unpack(read_exact(commands, 8))[0])
            width = count * row_width
            rows = packer(width).unpack(read_exact(commands, 8 * width))
            values = []
            ended = []
            for i in range(count):
                row = rows[i * row_width:(i + 1) * row_width]
                env = envs[int(row[0])]
                if step_into(env, row, values):
                    ended.append(env)
            if op == b'A':
                for env in ended:
                    values.extend(reset_numbers(env, None))
            write(packer(len(values)).pack(*values))
        elif op == b'M':
            try:
                envs.append(make_env(config, gymnasium))
                write(struct.pack('<I', 0))
            except BaseException:
                send_json(results, failure())
        elif op == b'R':
            copy, seed = struct.unpack('<2d', read_exact(commands, 16))
            write(packer(obs_dim).pack(*reset_numbers(envs[int(copy)], int(seed) if seed >= 0 else None)))
        else:
            raise ValueError(f'unknown command {op!r}')


if __name__ == '__main__':
    main()
