# rlx's Python env worker: makes `copies` copies of a Gymnasium env and serves reset/step to the
# trainer (runtime/envs/python/python-env.ts) over two pipes, in fixed-size little-endian frames.
#
#   python3 worker.py COMMANDS RESULTS CONFIG_JSON
#
# COMMANDS and RESULTS are FIFOs the trainer made; CONFIG_JSON is {"id" (or "file" and "className":
# a Gymnasium Env class in a file), "kwargs", "imports", "maxSteps" (0: the id's own limit)}; the worker starts with one copy and makes more when asked. The first frame on RESULTS is the handshake: u32 length + JSON, either
# {"ok": true, "observation": SPACE, "observation_names": [...], "action": SPACE, "max_steps": N|null,
# "goal"?: {"achieved": [names], "desired": [names], "terminated": bool}, "action_mask"?: "info" | "method"}
# or {"ok": false, "error": "..."}
# (describe()). An observation SPACE is always a box of numbers (a Dict's leaves in order);
# an action SPACE is {"kind": "discrete", "n"}, a box, or {"kind": "multibinary", "n"} (n bits,
# sent as 0/1 numbers); an unbounded side of a box is null. With "action_mask" (a Discrete env that
# gives info["action_mask"] at reset, or has sb3-contrib's action_masks() method: action_mask_source())
# every observation below (obs[obs_dim]) is followed by its mask, one number per action. Then, per
# command (a u8 opcode, then its numbers as float64):
#   b"R" copy seed      reset copy `copy` (seed < 0: no seed)   -> obs[obs_dim]
#   b"S" n (copy actions[action_dim]) * n   step n copies        -> per copy: obs, reward, flags
#   b"A" n (copy actions[action_dim]) * n   step n copies, then reset (unseeded) each copy whose
#                       episode ended                           -> the same, then the new obs of each
#                                                                  ended copy, in order
#   b"M"                make one more copy                      -> u32 length + JSON error, or 0
#   b"F" copy           copy `copy`'s env.render() (render_mode "rgb_array")
#                       -> u32 height, width, channels, then height*width*channels bytes;
#                          or 0, 0, 0 then u32 length + JSON error
#   b"G" n achieved[n*w] desired[n*w]   a goal env's compute_reward for n pairs of goals of w
#                       numbers (w: the handshake's goal)        -> rewards[n] (then terminated[n]
#                       as 0/1 when the handshake's goal has "terminated": true)
# flags: 1 terminated, 2 truncated, 4 info["is_success"], 8 an ended episode's info["episode"]["r"] (Gymnasium's
# RecordEpisodeStatistics: the return before a NormalizeReward outside it rescales the rewards) follows: one
# number per copy with flag 8, after all the copies' records and before the reset observations. "A" is the vector env's step (Gymnasium 0.29's same-step
# autoreset, one round trip for the step and the resets): the observation that ended an episode
# still reaches the trainer, before the new episode's first. "S" never resets. End of COMMANDS
# (the trainer exited, even killed) ends the worker, so no worker outlives its trainer.
#
# With {"rewards": [{"file", "function"}, ...]} in CONFIG_JSON the worker serves Python reward
# functions instead (serve_rewards; no gymnasium needed), for a text task's python("...") terms.
#
# With {"text": {"file", "className", "info": [names]}} in CONFIG_JSON the worker serves a Python
# text env instead (serve_text; no numpy or gymnasium needed), for a python_text("...") env: a
# class with reset(seed=None, options=None) -> (observation, info), step(action: str) ->
# (observation, reward, terminated, truncated, info) and optionally expert(observation) -> str,
# whose observations are strings or lists of chat messages ({"role", "content"}). Its frames are
# JSON (text steps are few beside a model's sampling): b"T" + u32 length + JSON request ->
# u32 length + JSON answer (text_answer()).
import json
import math
import os
import struct
import sys
import traceback


class Refusal(ValueError):
    """rlx refuses the env (a space it does not take): the message says all, without a traceback."""


def send_json(out, value):
    # default=repr: a Dict's keys in the handshake's 'layout' may be any hashable (the trainer ignores it).
    data = json.dumps(value, default=repr).encode()
    out.write(struct.pack('<I', len(data)) + data)


def bounds(values, np):
    # JSON has no Infinity: an unbounded side goes as null (python-env.ts reads it back as +-Infinity).
    return [float(v) if np.isfinite(v) else None for v in np.asarray(values, dtype=np.float64).reshape(-1)]


def space_name(space):
    shown, name = str(space), type(space).__name__
    return shown if shown.startswith(name) else f'{name} ({shown})'


def observation_parts(space, np, path=()):
    """The observation's numbers in order, as (key path, space, numbers, low, high) per leaf.

    A Dict is walked in its own order, the order gymnasium.spaces.flatten concatenates it in
    (Gymnasium 0.29 sorts the keys of a plain dict and keeps an OrderedDict's order); Box (any
    numeric dtype), Discrete, MultiBinary and MultiDiscrete leaves are numbers as they are
    (Discrete: its one number, not flatten's one-hot).
    """
    name = type(space).__name__
    if name == 'Dict':
        parts = []
        for key, sub in space.spaces.items():
            parts.extend(observation_parts(sub, np, path + (key,)))
        return parts
    if name == 'Box':
        if not np.issubdtype(space.dtype, np.number) and space.dtype != np.bool_:
            raise Refusal(f'the observation space {space_name(space)} has dtype {space.dtype}; rlx takes Box observations of numbers')
        size = int(np.prod(space.shape))
        return [(path, space, size, space.low, space.high)]
    if name == 'Discrete':
        start = int(space.start)
        return [(path, space, 1, [start], [start + int(space.n) - 1])]
    if name == 'MultiBinary':
        size = int(np.prod(space.shape))
        return [(path, space, size, np.zeros(size), np.ones(size))]
    if name == 'MultiDiscrete':
        start = np.asarray(getattr(space, 'start', np.zeros_like(space.nvec)))
        return [(path, space, int(np.prod(space.shape)), start, start + np.asarray(space.nvec) - 1)]
    where = f"'s key {'.'.join(map(str, path))!r}" if path else ''
    raise Refusal(f'the observation space{where} is {space_name(space)}; rlx takes Box, Discrete, MultiBinary and MultiDiscrete observations, and Dict spaces of them')


def observation_space_of(space, np):
    """An observation space as rlx sees it: a Box of its numbers (a Box keeps its shape)."""
    parts = observation_parts(space, np)
    if type(space).__name__ == 'Box':
        return {'kind': 'box', 'shape': [int(d) for d in space.shape], 'low': bounds(space.low, np), 'high': bounds(space.high, np)}
    size = sum(part[2] for part in parts)
    low = np.concatenate([np.broadcast_to(np.asarray(p[3], dtype=np.float64).reshape(-1), (p[2],)) for p in parts]) if parts else np.zeros(0)
    high = np.concatenate([np.broadcast_to(np.asarray(p[4], dtype=np.float64).reshape(-1), (p[2],)) for p in parts]) if parts else np.zeros(0)
    return {'kind': 'box', 'shape': [size], 'low': bounds(low, np), 'high': bounds(high, np)}


def observation_names(space, np):
    """Names of the observation's numbers (`obs.NAME` in reward terms), in order.

    Outside a Dict: x0, x1, ... For a Dict, from its keys: a key whose space holds one number is
    named by the key, one with more by key_0, key_1, ... (in C order); keys of nested Dicts are
    joined by '_', and characters other than letters, digits and '_' become '_'. Names that would
    clash (a key `a` of two numbers beside a key `a_0`) fall back to x0, x1, ... for the whole
    observation.
    """
    parts = observation_parts(space, np)
    positional = [f'x{k}' for k in range(sum(part[2] for part in parts))]
    if type(space).__name__ != 'Dict':
        return positional
    names = []
    for path, _leaf, count, _low, _high in parts:
        base = '_'.join(identifier(str(key)) for key in path)
        names.extend([base] if count == 1 else [f'{base}_{k}' for k in range(count)])
    # A key of thousands of characters makes no name to write in a reward term: positions instead.
    readable = all(len(n) <= MAX_NAME_LENGTH for n in names)
    return names if readable and len(set(names)) == len(names) else positional


# The longest observation name taken from a Dict's keys.
MAX_NAME_LENGTH = 100


def identifier(key):
    name = ''.join(c if (c.isascii() and c.isalnum()) or c == '_' else '_' for c in key) or '_'
    return '_' + name if name[0].isdigit() else name


def action_space_of(space, np):
    """An action space rlx's policies can act in, or a Refusal naming it and what rlx takes."""
    name = type(space).__name__
    takes = 'rlx takes Discrete actions, Box actions of float32/float64 and MultiBinary actions'
    if name == 'Discrete':
        return {'kind': 'discrete', 'n': int(space.n)}  # rlx's action k is start + k (converters)
    if name == 'MultiBinary':
        # n bits, flattened in C order; converters() gives step() them in the space's shape.
        return {'kind': 'multibinary', 'n': int(np.prod(space.shape))}
    if name == 'Box':
        if space.dtype not in (np.float32, np.float64):
            raise Refusal(f'the action space {space_name(space)} has dtype {space.dtype}; {takes}')
        return {'kind': 'box', 'shape': [int(d) for d in space.shape], 'low': bounds(space.low, np), 'high': bounds(space.high, np)}
    if name == 'MultiDiscrete':
        # A policy for these would need one categorical head per element; rlx's have one.
        raise Refusal(f'the action space is {space_name(space)}; {takes} (a policy over MultiDiscrete actions needs a categorical head per element, '
                      f'which rlx does not have): wrap the env so that it takes one Discrete action, bits or a float Box')
    raise Refusal(f'the action space is {space_name(space)}; {takes}')


# The most numbers a space may hold (an observation, a Box or MultiBinary action): 2^20, an image
# of 591 x 591 x 3. More is no env a policy here trains on, and its bounds and names alone would
# be a handshake of gigabytes (a Box of 10^9 numbers took 4.3 GB to describe).
MAX_SPACE_NUMBERS = 1 << 20
# The most choices of a Discrete action: a policy's head has one output per choice.
MAX_DISCRETE_ACTIONS = 1 << 16


def shape_numbers(shape):
    """How many numbers a shape holds, in Python's integers (np.prod overflows past 2^63)."""
    count = 1
    for d in shape:
        count *= int(d)
    return count


def check_space_size(space, np, role):
    """A Refusal, with its size, for a space that holds no numbers or absurdly many; before
    anything is built from it (bounds, names, buffers)."""
    name = type(space).__name__
    if role == 'action' and name == 'Discrete':
        n = int(space.n)
        if n < 1 or n > MAX_DISCRETE_ACTIONS:
            raise Refusal(f'the action space {space_name(space)} has {n:,} actions; rlx takes Discrete actions of 1 to {MAX_DISCRETE_ACTIONS:,} choices '
                          '(a policy has one output per choice): wrap the env so that it takes fewer')
        return
    if name == 'Dict':
        counts = [shape_numbers(getattr(sub, 'shape', None) or ()) for sub in leaves(space)]
        total = sum(counts)
    elif name in ('Box', 'MultiBinary', 'MultiDiscrete'):
        total = shape_numbers(space.shape)
    else:
        return  # Discrete observations are one number; other spaces are refused by space_of()
    if total == 0:
        shape = f' (shape {tuple(int(d) for d in space.shape)})' if name != 'Dict' else ''
        raise Refusal(f'the {role} space {space_name(space)} holds no numbers{shape}; rlx takes {role} spaces of at least one number')
    if total > MAX_SPACE_NUMBERS:
        raise Refusal(f'the {role} space {space_name(space)} holds {total:,} numbers; rlx takes {role} spaces of at most {MAX_SPACE_NUMBERS:,} '
                      '(an image of 591 x 591 x 3): downscale or crop it with a Gymnasium wrapper')


def leaves(space):
    """The non-Dict spaces inside a Dict, in its order."""
    for sub in space.spaces.values():
        if type(sub).__name__ == 'Dict':
            yield from leaves(sub)
        else:
            yield sub


def space_of(space, np, role):
    """The handshake's description of a space in its role ('observation' or 'action'), or a Refusal naming it."""
    check_space_size(space, np, role)
    return observation_space_of(space, np) if role == 'observation' else action_space_of(space, np)


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


# The protocol's descriptors are moved up to here and above, out of the low numbers an env's own
# files and sockets get (and that an env may write to, thinking them its own: a stray write into
# the results pipe would be read as a frame, "observation x0 is Infinity").
PROTOCOL_FD_MIN = 512


def hide_descriptor(fd):
    """A copy of `fd` at PROTOCOL_FD_MIN or above (not inherited by the env's subprocesses); `fd` is closed."""
    import fcntl
    try:
        high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, PROTOCOL_FD_MIN)
    except OSError:  # a descriptor limit below PROTOCOL_FD_MIN: the next free one
        high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    os.close(fd)
    return high


def quiet_stdout():
    """What the env prints (print(), os.write(1, ...), a C library's printf) goes to stderr, the
    worker's log: stdout is never a channel an env can write into. Returns the old stdout, moved
    out of the env's way, for the probe's answer."""
    sys.stdout.flush()
    answer = os.fdopen(hide_descriptor(os.dup(1)), 'w')
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return answer


def open_protocol(commands_path, results_path):
    """The command and result pipes, opened, moved to high descriptors, and their names removed:
    once both ends are open the trainer needs no name, and an env cannot open them by path (the
    paths are also taken out of sys.argv)."""
    commands_fd = hide_descriptor(os.open(commands_path, os.O_RDONLY))
    results_fd = hide_descriptor(os.open(results_path, os.O_WRONLY))
    for name in (commands_path, results_path):
        try:
            os.unlink(name)
        except OSError:
            pass
    del sys.argv[1:3]
    return open(commands_fd, 'rb', buffering=0), open(results_fd, 'wb', buffering=0)


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


def load_module(file, prefix):
    """The Python file `file` as a module, loaded once per worker under a name of its own (`prefix`
    and a hash of its path), with the file's folder on sys.path so that its own imports work.
    Returns the module and that name (its definitions' __module__)."""
    import hashlib
    import importlib.util
    folder = os.path.dirname(os.path.abspath(file))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = prefix + hashlib.sha1(os.path.abspath(file).encode()).hexdigest()[:12]
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
    return module, name


loaded_classes = {}


def load_class(file, class_name):
    """The class `class_name` of the Python file `file`, loaded once per worker under a module name
    of its own, with the file's folder on sys.path so that its own imports work."""
    key = (file, class_name)
    if key in loaded_classes:
        return loaded_classes[key]
    module, name = load_module(file, 'rlx_env_')
    env_class = getattr(module, class_name, None)
    if not isinstance(env_class, type):
        defined = sorted(n for n, v in vars(module).items() if isinstance(v, type) and getattr(v, '__module__', '') == name)
        raise AttributeError(f'{file} defines no class {class_name}' + (f' (its classes: {", ".join(defined)})' if defined else ''))
    loaded_classes[key] = env_class
    return env_class


def describe(env, np):
    """The handshake's description of the env: its spaces, the names of its observation's numbers,
    its episode limit, and for a goal env where its goals are; 'layout' is for converters()."""
    space = env.observation_space
    description = {'ok': True,
                   'observation': space_of(space, np, 'observation'),
                   'observation_names': observation_names(space, np),
                   'action': space_of(env.action_space, np, 'action'),
                   'max_steps': getattr(env.spec, 'max_episode_steps', None),
                   # "rgb_array": the trainer asks for a frame per recorded step (render_frame).
                   'render_mode': getattr(env, 'render_mode', None),
                   'layout': {'observation_keys': [list(part[0]) for part in observation_parts(space, np)] if type(space).__name__ == 'Dict' else None,
                              'action_start': int(env.action_space.start) if type(env.action_space).__name__ == 'Discrete' else 0,
                              'action_shape': [int(d) for d in env.action_space.shape] if type(env.action_space).__name__ == 'MultiBinary' else None}}
    masks = action_mask_source(env)
    if masks is not None:
        description['action_mask'] = masks
    goal = goal_of(env, description['observation_names'], np)
    if goal is not None:
        description['goal'] = goal
    image = image_of(space, np)
    if image is not None:
        description['image'] = image
    return description


def action_mask_source(env):
    """How a Discrete env says which actions are legal: 'info' (info["action_mask"], sb3-contrib's
    MaskablePPO convention and PettingZoo's), 'method' (an action_masks() method of the env), or None.
    Learning 'info' takes one reset(): the trainer seeds its own resets afterwards."""
    if type(env.action_space).__name__ != 'Discrete':
        return None
    if callable(getattr(env.unwrapped, 'action_masks', None)):
        return 'method'
    result = env.reset()
    info = result[1] if type(result) is tuple and len(result) == 2 else None
    return 'info' if isinstance(info, dict) and info.get('action_mask') is not None else None


def mask_numbers(env, info, source, n, np, where):
    """The action mask of the observation just returned, as n numbers (the trainer checks that
    they are 0/1 and allow an action); ValueError naming `where` when the env gives none or one
    of another length."""
    mask = info.get('action_mask') if isinstance(info, dict) else None
    if mask is None and source == 'method':
        mask = env.unwrapped.action_masks()
    if mask is None:
        raise ValueError(f"{where} returned an info without 'action_mask'; an env that gives action masks gives one at every reset() and step()")
    values = np.asarray(mask).reshape(-1)
    if values.size != n:
        raise ValueError(f'the action mask from {where} has {values.size} values, but the action space has {n} actions; give one 0/1 per action')
    try:
        return values.astype(np.float64).tolist()
    except (TypeError, ValueError):
        raise ValueError(f'the action mask from {where} holds {shown(mask)}, not numbers; give one 0/1 (or True/False) per action') from None


def episode_return(info):
    """info["episode"]["r"] as one finite number (Gymnasium 0.29 gives an array of one, 1.0 a
    float), or None where the info has none."""
    episode = info.get('episode')
    if not isinstance(episode, dict) or 'r' not in episode:
        return None
    r = episode['r']
    try:
        values = [float(v) for v in (r.reshape(-1).tolist() if hasattr(r, 'reshape') else [r])]
    except (TypeError, ValueError):
        return None
    return values[0] if len(values) == 1 and math.isfinite(values[0]) else None


def image_of(space, np):
    """The first Box of uint8 pixels in the observation (SB3's test: uint8, 2 or 3 dimensions),
    as {'key': its Dict key path or None, 'shape': [...]}; None without one. rlx flattens such a
    Box into its MLP, unscaled, so the checker warns (no CNN encoder yet)."""
    for path, leaf, _count, _low, _high in observation_parts(space, np):
        if type(leaf).__name__ == 'Box' and leaf.dtype == np.uint8 and len(leaf.shape) in (2, 3):
            return {'key': '.'.join(map(str, path)) if path else None, 'shape': [int(d) for d in leaf.shape]}
    return None


def converters(description, np):
    """observation_numbers(obs) -> list of numbers, and action_of(row) -> what step() takes (row[0] is the copy)."""
    observation, action = description['observation'], description['action']
    layout = description.get('layout') or {}
    keys = layout.get('observation_keys')
    discrete = action['kind'] == 'discrete'
    action_start = int(layout.get('action_start', 0))
    bits = action['kind'] == 'multibinary'
    action_shape = tuple(layout.get('action_shape') or ()) if bits else tuple(action.get('shape', ()))
    # The hot path works on Python lists (tolist, struct): cheaper than numpy calls per copy.
    flat = keys is None and len(observation['shape']) == 1

    def numbers(value):
        return np.asarray(value, dtype=np.float64).reshape(-1).tolist()

    def observation_numbers(obs):
        return obs.tolist() if flat and type(obs) is np.ndarray else numbers(obs)

    def dict_numbers(obs):
        # A Dict observation: its leaves in the space's order (observation_parts).
        values = []
        for path in keys:
            value = obs
            for key in path:
                value = value[key]
            values.extend(numbers(value))
        return values

    def action_of(row):
        if discrete:
            return action_start + int(row[1])
        # MultiBinary's own dtype is int8; the trainer's bits come as 0.0/1.0.
        return np.asarray(row[1:], dtype=np.int8 if bits else np.float32).reshape(action_shape)

    return (dict_numbers if keys is not None else observation_numbers), action_of


GOAL_KEYS = ('achieved_goal', 'desired_goal')


def goal_of(env, names, np):
    """Where a goal env's goals are, by observation name, or None for other envs.

    A goal env (Gymnasium-Robotics' GoalEnv) has a Dict observation with `achieved_goal` and
    `desired_goal` (and usually `observation`), and its env.unwrapped has compute_reward(achieved,
    desired, info); compute_terminated(achieved, desired, info) too where reaching a goal ends
    an episode.
    """
    space = env.observation_space
    if type(space).__name__ != 'Dict' or not all(key in space.spaces for key in GOAL_KEYS):
        return None
    unwrapped = env.unwrapped
    if not callable(getattr(unwrapped, 'compute_reward', None)):
        return None
    at, spans = 0, {}
    for path, _leaf, count, _low, _high in observation_parts(space, np):
        if path[0] in GOAL_KEYS:
            spans.setdefault(path[0], [at, at])[1] = at + count
        at += count
    (a0, a1), (d0, d1) = spans['achieved_goal'], spans['desired_goal']
    if a1 - a0 != d1 - d0:
        counted = [f'{n} number{"" if n == 1 else "s"}' for n in (a1 - a0, d1 - d0)]
        raise Refusal(f'the observation space\'s achieved_goal holds {counted[0]} and its desired_goal {counted[1]}; '
                      'a goal env compares them number by number, so they must have the same shape')
    for key in GOAL_KEYS:
        if type(space.spaces[key]).__name__ == 'Dict':
            raise Refusal(f'the observation space\'s {key} is a Dict; rlx takes goals that are one Box, Discrete, MultiBinary or MultiDiscrete space')
    return {'achieved': names[a0:a1], 'desired': names[d0:d1],
            'terminated': callable(getattr(unwrapped, 'compute_terminated', None))}


def goal_outcomes(env, np):
    """outcomes(goals, count) -> (rewards, terminated or None) for `count` pairs: `goals` holds the
    achieved goals' rows, then the desired goals' rows (float64). One call of the env's
    compute_reward (and compute_terminated) on the whole batch, as Stable-Baselines3's
    HerReplayBuffer calls it (a leading batch dimension, one empty info per row); an env whose
    function is not vectorised (it answers one value for a batch, or raises) is called per row."""
    unwrapped = env.unwrapped
    spaces = env.observation_space.spaces
    achieved_space, desired_space = spaces['achieved_goal'], spaces['desired_goal']
    reward = unwrapped.compute_reward
    terminated = getattr(unwrapped, 'compute_terminated', None)

    def rows(values, space, count):
        return np.asarray(values).reshape((count,) + tuple(space.shape or ())).astype(space.dtype)

    per_row = set()  # the functions found not vectorised: called per row from then on

    def batched(function, achieved, desired, count):
        if function not in per_row:
            try:
                value = np.asarray(function(achieved, desired, [{} for _ in range(count)]), dtype=np.float64)
                if value.size == count:
                    return value.reshape(count)
            except Exception:
                pass
            if count > 1:
                per_row.add(function)
        return np.array([float(function(achieved[i], desired[i], {})) for i in range(count)], dtype=np.float64)

    def outcomes(goals, count):
        half = goals.size // 2
        achieved, desired = rows(goals[:half], achieved_space, count), rows(goals[half:], desired_space, count)
        rewards = batched(reward, achieved, desired, count)
        ends = batched(terminated, achieved, desired, count) if callable(terminated) else None
        return rewards, ends

    return outcomes


def render_frame(env, np):
    """env.render() of an env made with render_mode "rgb_array": u32 height, width, channels, then the uint8 pixels row by row."""
    frame = env.render()
    if frame is None:
        raise ValueError(f'render() returned None (render_mode {getattr(env, "render_mode", None)!r}); rlx records frames of envs made with render_mode "rgb_array"')
    pixels = np.asarray(frame)
    if pixels.dtype != np.uint8:
        raise ValueError(f'render() returned pixels of dtype {pixels.dtype}; rlx takes uint8 frames')
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    if pixels.ndim != 3 or pixels.shape[2] not in (1, 3, 4) or pixels.shape[0] == 0 or pixels.shape[1] == 0:
        raise ValueError(f'render() returned an array of shape {pixels.shape}; rlx takes (height, width, 3) frames, or 1 or 4 channels')
    height, width, channels = pixels.shape
    return struct.pack('<III', height, width, channels) + np.ascontiguousarray(pixels).tobytes()


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
    """The observation and info of what reset() returned; ValueError naming what is wrong."""
    if type(result) is not tuple or len(result) != 2:
        raise ValueError(f'reset() returned {shown(result)}; Gymnasium\'s reset() returns 2 values: (observation, info)')
    return result


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
    if space['kind'] == 'discrete':
        return 1
    return space['n'] if space['kind'] == 'multibinary' else int(np.prod(space['shape']))


def failure():
    if isinstance(sys.exc_info()[1], Refusal):
        # 'refused': a space rlx does not take, not a failure to make the env (rlx check: an error).
        return {'ok': False, 'error': str(sys.exc_info()[1]), 'refused': True}
    lines = traceback.format_exc().rstrip().splitlines()
    return {'ok': False, 'error': '\n'.join(lines[-6:])}


def probe(config):
    """`worker.py --probe CONFIG_JSON`: the handshake's JSON on stdout, then exit. rlx check and
    the editor learn an env's spaces this way (runtime/envs/python/probe.ts); no pipes, no copies kept."""
    out = quiet_stdout()  # what imports and the env print must not mix with the answer
    try:
        import importlib
        import numpy as np
        import gymnasium
        for name in config.get('imports', []):
            importlib.import_module(name)
        env = make_env(config, gymnasium)
        description = describe(env, np)
        env.close()
    except BaseException:
        description = failure()
    out.write(json.dumps(description) + '\n')
    out.flush()


def load_function(file, function_name):
    """The function `function_name` of the Python file `file` (a reward function), loaded as
    load_class loads an env's class: once, under a module name of its own, its folder on sys.path."""
    module, name = load_module(file, 'rlx_reward_')
    function = getattr(module, function_name, None)
    if not callable(function) or isinstance(function, type):
        defined = sorted(n for n, v in vars(module).items() if callable(v) and not isinstance(v, type) and getattr(v, '__module__', '') == name)
        raise Refusal(f'{os.path.basename(file)} defines no function {function_name}' + (f' (its functions: {", ".join(defined)})' if defined else ''))
    return function


def reward_values(values):
    """What a reward function returned, as JSON the trainer checks (python-rewards.ts): a list of
    numbers and None, a non-finite number as {"nonfinite": "nan"}, anything else as {"type": name};
    {"returned": name} when the whole is not a list (a bare number broadcast to all is refused)."""
    if hasattr(values, 'tolist') and not isinstance(values, (list, tuple)):
        values = values.tolist()  # numpy arrays, torch tensors
    if not isinstance(values, (list, tuple)):
        return {'returned': type(values).__name__}
    out = []
    for value in values:
        if value is None:
            out.append(None)
            continue
        if hasattr(value, 'item') and not isinstance(value, (int, float)):
            try:
                value = value.item()  # a numpy or torch scalar
            except (TypeError, ValueError):
                pass
        if isinstance(value, (int, float)):
            try:
                number = float(value)
            except OverflowError:
                out.append({'type': 'int too large for a float'})
                continue
            out.append(number if math.isfinite(number) else {'nonfinite': repr(number)})
        else:
            out.append({'type': type(value).__name__})
    return out


def serve_rewards(commands, results, config):
    """A reward worker: loads the reward functions, answers {"ok": true} (or the failure), then per
    b"W" + u32 length + JSON {"function", "prompts", "completions", "completion_ids", "columns"}
    calls that function with TRL's arguments and answers u32 length + JSON {"ok": true, "values"}
    or the failure's traceback."""
    try:
        functions = [load_function(f['file'], f['function']) for f in config['rewards']]
    except BaseException:
        send_json(results, failure())
        return
    send_json(results, {'ok': True})
    commands = CommandReader(commands)
    while True:
        op = read_exact(commands, 1)
        if op != b'W':
            raise ValueError(f'unknown command {op!r}')
        (length,) = struct.unpack('<I', read_exact(commands, 4))
        request = json.loads(read_exact(commands, length).decode('utf-8'))
        try:
            function = functions[request['function']]
            values = function(prompts=request['prompts'], completions=request['completions'],
                              completion_ids=request['completion_ids'], **request['columns'])
            answer = {'ok': True, 'values': reward_values(values)}
        except BaseException:
            answer = failure()
        send_json(results, answer)


# The methods a Python text env must have, and the one it may have (demonstrations for SFT).
TEXT_METHODS = ('reset', 'step')
TEXT_EXPERT = 'expert'
# The chat roles an env's message may take: the agent is the assistant, so the env never writes as it
# (a tool's role is for the tools to come, which will say how a tool's answer reaches the model).
TEXT_ROLES = ('system', 'user')


class WrongValue(ValueError):
    """A text env's method returned a value of the wrong type: the message says what and what it should be."""


def text_class(config):
    """The text env's class, checked for its methods (a Refusal naming what is missing)."""
    text = config['text']
    env_class = load_class(text['file'], text['className'])
    missing = [m for m in TEXT_METHODS if not callable(getattr(env_class, m, None))]
    if missing:
        raise Refusal(f"{text['className']} has no method {' or '.join(missing)}; a Python text env has reset(seed=None, options=None) -> (observation, info) "
                      'and step(action: str) -> (observation, reward, terminated, truncated, info) (docs/agents.md)')
    return env_class


def text_observation(value, method):
    """An observation as the trainer takes it: {"text": str} or {"messages": [{"role", "content"}]}; WrongValue otherwise."""
    if isinstance(value, str):
        return {'text': value}
    if isinstance(value, (list, tuple)) and value:
        messages = []
        for k, message in enumerate(value):
            role = message.get('role') if isinstance(message, dict) else None
            content = message.get('content') if isinstance(message, dict) else None
            if not isinstance(role, str) or not isinstance(content, str):
                raise WrongValue(f'{method} returned a list whose item {k} is {shown(message)}; each message is a dict {{"role": str, "content": str}}')
            if role not in TEXT_ROLES:
                raise WrongValue(f'{method} returned a message of role {role!r}; the env writes as {", ".join(TEXT_ROLES)} (the agent is the assistant)')
            messages.append({'role': role, 'content': content})
        return {'messages': messages}
    raise WrongValue(f'{method} returned the observation {shown(value)} ({type(value).__name__}); an observation is a string or a non-empty list of chat messages {{"role", "content"}}')


def text_number(value):
    """A reward or an info value as one float; None when it is not a number (a bool counts as 0/1)."""
    if hasattr(value, 'item') and not isinstance(value, (int, float)):
        try:
            value = value.item()  # a numpy or torch scalar
        except (TypeError, ValueError):
            return None
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError:
            return None
    return None


def text_info(info, names, method):
    """The info values the declaration names (`info: [...]`), as numbers, and success; WrongValue for one that is missing or not a number."""
    if info is None:
        info = {}
    if not isinstance(info, dict):
        raise WrongValue(f'{method} returned the info {shown(info)} ({type(info).__name__}); info is a dict')
    values = {}
    for name in names:
        if name not in info:
            raise WrongValue(f"{method} returned an info without {name!r}, which the env's `info` setting names; report it on every step")
        number = text_number(info[name])
        if number is None:
            raise WrongValue(f'{method} returned info[{name!r}] = {shown(info[name])} ({type(info[name]).__name__}); info values read by reward terms are numbers or True/False')
        values[name] = number
    success = info.get('success', info.get('is_success'))
    return values, (None if success is None else bool(success))


def text_answer(envs, last, request, env_class, kwargs, names):
    """One request's answer: {"ok": true, ...}, or {"ok": false, "wrong": message} for a value of the
    wrong type, or failure() (the traceback) for what the env raised."""
    op = request['op']
    if op == 'make':
        envs.append(env_class(**kwargs))
        last.append(None)
        return {'ok': True}
    copy = int(request['copy'])
    env = envs[copy]
    if op == 'reset':
        result = env.reset(seed=request.get('seed'))
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise WrongValue(f'reset() returned {shown(result)}; a text env\'s reset() returns 2 values: (observation, info)')
        last[copy] = result[0]
        return {'ok': True, 'observation': text_observation(result[0], 'reset()')}
    if op == 'step':
        result = env.step(request['action'])
        if not isinstance(result, (tuple, list)) or len(result) != 5:
            count = f'{len(result)} values' if isinstance(result, (tuple, list)) else shown(result)
            raise WrongValue(f'step() returned {count}; a text env\'s step() returns 5: (observation, reward, terminated, truncated, info)')
        observation, reward, terminated, truncated, info = result
        number = text_number(reward)
        if number is None:
            raise WrongValue(f'step() returned the reward {shown(reward)} ({type(reward).__name__}); a reward is one number')
        if not math.isfinite(number):
            raise WrongValue(f'step() returned the reward {number!r}; a reward is a finite number')
        values, success = text_info(info, names, 'step()')
        done = bool(terminated) or bool(truncated)
        last[copy] = observation
        answer = {'ok': True, 'reward': number, 'terminated': bool(terminated), 'truncated': bool(truncated), 'info': values}
        if success is not None:
            answer['success'] = success
        # The observation that ends an episode is never shown to the agent: not checked either.
        answer['observation'] = {'text': ''} if done else text_observation(observation, 'step()')
        return answer
    if op == 'expert':
        turn = env.expert(last[copy])
        if not isinstance(turn, str):
            raise WrongValue(f'expert() returned {shown(turn)} ({type(turn).__name__}); the expert returns the next agent turn as a string')
        return {'ok': True, 'turn': turn}
    raise ValueError(f'unknown text request {op!r}')


def serve_text(commands, results, config):
    """A text env worker: loads the class, answers {"ok": true, "expert": bool} (or the failure),
    then per b"T" + u32 length + JSON {"op": "make" | "reset" | "step" | "expert", "copy", "seed", "action"}
    answers u32 length + JSON (text_answer). The last observation of each copy is kept for expert()."""
    try:
        env_class = text_class(config)
    except BaseException:
        send_json(results, failure())
        return
    send_json(results, {'ok': True, 'expert': callable(getattr(env_class, TEXT_EXPERT, None))})
    kwargs = dict(config.get('kwargs') or {})
    names = list(config['text'].get('info') or [])
    envs, last = [], []
    commands = CommandReader(commands)
    while True:
        op = read_exact(commands, 1)
        if op != b'T':
            raise ValueError(f'unknown command {op!r}')
        (length,) = struct.unpack('<I', read_exact(commands, 4))
        request = json.loads(read_exact(commands, length).decode('utf-8'))
        try:
            answer = text_answer(envs, last, request, env_class, kwargs, names)
        except WrongValue as wrong:
            answer = {'ok': False, 'wrong': str(wrong)}
        except BaseException:
            answer = failure()
        send_json(results, answer)


def main():
    die_with_parent()
    if sys.argv[1:2] == ['--probe']:
        probe(json.loads(sys.argv[2]))
        return
    config = json.loads(sys.argv[3])
    commands, results = open_protocol(sys.argv[1], sys.argv[2])
    quiet_stdout()
    if config.get('rewards'):
        serve_rewards(commands, results, config)
        return
    if config.get('text'):
        serve_text(commands, results, config)
        return
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
    goal_width = len(description['goal']['achieved']) if 'goal' in description else 0
    mask_source = description.get('action_mask')
    mask_width = description['action']['n'] if mask_source else 0
    goal_rewards = None
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

    def step_into(env, row, values, returns):
        result = env.step(action_of(row))
        try:  # free when nothing is wrong: the checks run only when Python raises
            obs, reward, terminated, truncated, info = result
        except (TypeError, ValueError):
            wrong_step_result(result)
        numbers = observation_numbers(obs)
        if len(numbers) != obs_dim:
            raise ValueError(f'step() returned an observation of shape {np.shape(obs)}; the observation space has {obs_dim} numbers')
        values.extend(numbers)
        if mask_source:
            values.extend(mask_numbers(env, info, mask_source, mask_width, np, 'step()'))
        try:
            values.append(float(reward))
        except (TypeError, ValueError):
            wrong_reward(reward)
        flags = (1 if terminated else 0) + (2 if truncated else 0)
        if not info or not isinstance(info, dict):  # an empty info costs one test
            values.append(flags)
            return flags
        reported = episode_return(info) if flags else None
        if reported is not None:
            returns.append(reported)
        values.append(flags + (4 if info.get('is_success') else 0) + (8 if reported is not None else 0))
        return flags

    def reset_numbers(env, seed):
        obs, info = reset_result(env.reset(seed=seed))
        numbers = observation_numbers(obs)
        if len(numbers) != obs_dim:
            raise ValueError(f'reset() returned an observation of shape {np.shape(obs)}; the observation space has {obs_dim} numbers')
        if mask_source:
            numbers.extend(mask_numbers(env, info, mask_source, mask_width, np, 'reset()'))
        return numbers

    while True:
        op = read_exact(commands, 1)
        if op == b'S' or op == b'A':
            count = int(one_number.unpack(read_exact(commands, 8))[0])
            width = count * row_width
            rows = packer(width).unpack(read_exact(commands, 8 * width))
            values = []
            ended = []
            returns = []
            for i in range(count):
                row = rows[i * row_width:(i + 1) * row_width]
                env = envs[int(row[0])]
                if step_into(env, row, values, returns):
                    ended.append(env)
            values.extend(returns)
            if op == b'A':
                for env in ended:
                    values.extend(reset_numbers(env, None))
            try:
                frame = packer(len(values)).pack(*values)
            except (struct.error, TypeError):
                raise ValueError(not_numbers(values, obs_dim + mask_width)) from None
            write(frame)
        elif op == b'G':
            count = int(one_number.unpack(read_exact(commands, 8))[0])
            goals = np.frombuffer(read_exact(commands, 16 * count * goal_width), dtype='<f8')
            if goal_rewards is None:
                goal_rewards = goal_outcomes(envs[0], np)
            rewards, ends = goal_rewards(goals, count)
            write(rewards.astype('<f8').tobytes() + (ends.astype('<f8').tobytes() if ends is not None else b''))
        elif op == b'M':
            try:
                envs.append(make_env(config, gymnasium))
                write(struct.pack('<I', 0))
            except BaseException:
                send_json(results, failure())
        elif op == b'F':
            copy = int(struct.unpack('<d', read_exact(commands, 8))[0])
            try:
                results.write(render_frame(envs[copy], np))
            except BaseException:
                results.write(struct.pack('<III', 0, 0, 0))
                send_json(results, failure())
        elif op == b'R':
            copy, seed = struct.unpack('<2d', read_exact(commands, 16))
            write(packer(obs_dim + mask_width).pack(*reset_numbers(envs[int(copy)], int(seed) if seed >= 0 else None)))
        else:
            raise ValueError(f'unknown command {op!r}')


if __name__ == '__main__':
    main()
