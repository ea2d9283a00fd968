# rlx's Python env worker: makes `copies` copies of a Gymnasium env and serves reset/step to the
# trainer (runtime/envs/python/python-env.ts) over two pipes, in fixed-size little-endian frames.
#
#   python3 worker.py COMMANDS RESULTS CONFIG_JSON
#
# COMMANDS and RESULTS are FIFOs the trainer made; CONFIG_JSON is {"id" (or "file" and "className":
# a Gymnasium Env class in a file), "kwargs", "imports", "maxSteps" (0: the id's own limit)}; the worker starts with one copy and makes more when asked. The first frame on RESULTS is the handshake: u32 length + JSON, either
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
    try:
        import ctypes
        import signal
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def make_env(config, gymnasium):
    """One copy of the env the config names: a registered id (gymnasium(...)), or a class in a file
    (python("./file.py:Class")), made by gymnasium.make from a spec whose entry point is the class,
    so it is wrapped as a registered env is (PassiveEnvChecker, OrderEnforcing, TimeLimit for
    maxSteps) and env.spec reports its limit."""
    kwargs = dict(config.get('kwargs') or {})
    max_steps = int(config.get('maxSteps') or 0)
    if config.get('file'):
        env_class = load_class(config['file'], config['className'])
        spec = gymnasium.envs.registration.EnvSpec(id=f"rlx/{config['className']}", entry_point=env_class,
                                                   max_episode_steps=max_steps or None)
        return gymnasium.make(spec, **kwargs)
    if max_steps:
        kwargs['max_episode_steps'] = max_steps
    return gymnasium.make(config['id'], **kwargs)


loaded_classes = {}


def load_class(file, class_name):
    """The class `class_name` of the Python file `file`, loaded once per worker under a module name
    of its own, with the file's folder on sys.path so that its own imports work."""
    key = (file, class_name)
    if key in loaded_classes:
        return loaded_classes[key]
    import hashlib
    import importlib.util
    import os
    folder = os.path.dirname(os.path.abspath(file))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = 'rlx_env_' + hashlib.sha1(os.path.abspath(file).encode()).hexdigest()[:12]
    module = sys.modules.get(name)
    if module is None:
        if not os.path.isfile(file):
            raise FileNotFoundError(f'{file} is not a file; python("...") paths are relative to the .rlx file')
        spec = importlib.util.spec_from_file_location(name, file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    env_class = getattr(module, class_name, None)
    if not isinstance(env_class, type):
        defined = sorted(n for n, v in vars(module).items() if isinstance(v, type) and getattr(v, '__module__', '') == name)
        raise AttributeError(f'{file} defines no class {class_name}' + (f' (its classes: {", ".join(defined)})' if defined else ''))
    loaded_classes[key] = env_class
    return env_class


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

    def step_into(env, row, values):
        obs, reward, terminated, truncated, _info = env.step(action_of(row))
        numbers = observation_numbers(obs)
        if len(numbers) != obs_dim:
            raise ValueError(f'step() returned an observation of shape {np.shape(obs)}; the observation space has {obs_dim} numbers')
        values.extend(numbers)
        values.append(float(reward))
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
            results.write(struct.pack(f'<{len(values)}d', *values))
        elif op == b'M':
            try:
                envs.append(make_env(config, gymnasium))
                results.write(struct.pack('<I', 0))
            except BaseException:
                send_json(results, failure())
        elif op == b'R':
            copy, seed = np.frombuffer(read_exact(commands, 16), dtype='<f8')
            obs, _info = envs[int(copy)].reset(seed=int(seed) if seed >= 0 else None)
            numbers = observation_numbers(obs)
            if len(numbers) != obs_dim:
                raise ValueError(f'reset() returned an observation of shape {np.shape(obs)}; the observation space has {obs_dim} numbers')
            results.write(struct.pack(f'<{obs_dim}d', *numbers))
        else:
            raise ValueError(f'unknown command {op!r}')


if __name__ == '__main__':
    main()
