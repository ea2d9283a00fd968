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
#   b"M"                make one more copy                      -> u32 length + JSON error, or 0
# flags: 1 terminated, 2 truncated. The worker never resets a copy on its own: the trainer's
# vector env resets a copy whose episode ended (Gymnasium 0.29's same-step autoreset), so the
# observation that ended an episode still reaches it. End of COMMANDS (the trainer exited, even
# killed) ends the worker, so no worker outlives its trainer.
import json
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


def die_with_parent():
    # Linux: the kernel kills this worker when the trainer dies, even inside a step that hangs.
    import signal
    try:
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass
    # Ctrl-C in a terminal signals the whole process group: the trainer stops the run cleanly
    # (a final checkpoint) and then ends its workers; a worker dying of KeyboardInterrupt first
    # would fail the run instead.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


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


def shown(value):
    """A value as a message quotes it: short, with its type."""
    text = repr(value)
    return f'{text[:60]}...' if len(text) > 60 else text


def wrong_step_result(result):
    """Raises the ValueError that says why step()'s `result` is not Gymnasium's 5 values."""
    count = f'{len(result)} values' if isinstance(result, (tuple, list)) else shown(result)
    old_api = ' (the old Gym API returned 4, with one `done`)' if isinstance(result, (tuple, list)) and len(result) == 4 else ''
    raise ValueError(f'step() returned {count}; Gymnasium\'s step() returns 5: (observation, reward, terminated, truncated, info){old_api}') from None


def reset_result(result):
    """The observation of what reset() returned; ValueError naming what is wrong."""
    if type(result) is not tuple or len(result) != 2:
        raise ValueError(f'reset() returned {shown(result)}; Gymnasium\'s reset() returns 2 values: (observation, info)')
    return result[0]


def wrong_reward(reward):
    """Raises the ValueError that says why step()'s reward is not one number."""
    raise ValueError(f'step() returned the reward {shown(reward)} ({type(reward).__name__}); a reward is one number') from None


def not_numbers(values, obs_dim):
    """Which value of a step's answer (per copy: obs_dim observation numbers, reward, flags) is not a number."""
    record = obs_dim + 2
    for i, value in enumerate(values):
        try:
            float(value)
        except (TypeError, ValueError):
            where = i % record
            return f'step() returned an observation whose element {where} is {shown(value)} ({type(value).__name__}); the observation space holds numbers'
    return 'step() returned values that are not numbers'


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

    def step_into(env, row, values):
        result = env.step(action_of(row))
        try:  # free when nothing is wrong: the checks run only when Python raises
            obs, reward, terminated, truncated, _info = result
        except (TypeError, ValueError):
            wrong_step_result(result)
        numbers = observation_numbers(obs)
        if len(numbers) != obs_dim:
            raise ValueError(f'step() returned an observation of shape {np.shape(obs)}; the observation space has {obs_dim} numbers')
        values.extend(numbers)
        try:
            values.append(float(reward))
        except (TypeError, ValueError):
            wrong_reward(reward)
        values.append((1 if terminated else 0) + (2 if truncated else 0))

    while True:
        op = read_exact(commands, 1)
        if op == b'S':
            count = int(struct.unpack('<d', read_exact(commands, 8))[0])
            rows = struct.unpack(f'<{count * row_width}d', read_exact(commands, 8 * count * row_width))
            values = []
            for i in range(count):
                row = rows[i * row_width:(i + 1) * row_width]
                step_into(envs[int(row[0])], row, values)
            try:
                frame = struct.pack(f'<{len(values)}d', *values)
            except (struct.error, TypeError):
                raise ValueError(not_numbers(values, obs_dim)) from None
            results.write(frame)
        elif op == b'M':
            try:
                envs.append(make_env(config, gymnasium))
                results.write(struct.pack('<I', 0))
            except BaseException:
                send_json(results, failure())
        elif op == b'R':
            copy, seed = np.frombuffer(read_exact(commands, 16), dtype='<f8')
            obs = reset_result(envs[int(copy)].reset(seed=int(seed) if seed >= 0 else None))
            numbers = observation_numbers(obs)
            if len(numbers) != obs_dim:
                raise ValueError(f'reset() returned an observation of shape {np.shape(obs)}; the observation space has {obs_dim} numbers')
            results.write(struct.pack(f'<{obs_dim}d', *numbers))
        else:
            raise ValueError(f'unknown command {op!r}')


if __name__ == '__main__':
    main()
