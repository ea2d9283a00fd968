# The code verifier's sandbox: runs completions' code against their rows' tests, each case in a
# process of its own, and prints what fraction of each case's tests passed.
#
#   python3 sandbox.py pool   < {"cases": [{"code": "...", "tests": ["assert f(1) == 2", ...]}],
#                                "limits": {"seconds": 5, "memory_mb": 512, "output_kb": 64}}
#   -> {"results": [{"passed": 2, "total": 3, "status": "ok" | "error" | "timeout" | "memory"
#                     | "crashed" | "output" | "no-tests", "detail": "..."}], "network": ...}
#
# A case runs as `python3 -I sandbox.py case` in a throwaway directory, in a session of its own
# (so a fork bomb's children die with it), under resource limits (address space, CPU seconds,
# file size, open files), in a network namespace of its own where `unshare -rn` works (else with
# sockets refused by the audit hook below), with the environment emptied. Inside, an audit hook
# refuses what a test harness never needs: new processes (fork, exec, subprocess, os.system),
# sockets, signals to others, ctypes, and writes, renames or deletes outside its directory.
# Limits that cannot be had: code running in this process can read the harness's own state, so
# a completion written to forge the result (rather than solve the task) is not prevented; the
# hook and the limits contain what it can do to the machine, not to the reward.
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

RESULT_FD_ENV = 'RLX_SANDBOX_RESULT_FD'


def main():
    if len(sys.argv) > 1 and sys.argv[1] == 'case':
        run_case()
    elif len(sys.argv) > 1 and sys.argv[1] == 'pool':
        run_pool()
    else:
        sys.stderr.write('usage: sandbox.py pool|case\n')
        sys.exit(2)


# ---- the pool: one child per case, several at once -----------------------------------------

def run_pool():
    request = json.load(sys.stdin)
    limits = request.get('limits', {})
    cases = request['cases']
    isolate = network_namespace_works()
    workers = max(1, min(int(request.get('parallel', os.cpu_count() or 1)), 32))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda case: run_child(case, limits, isolate), cases))
    json.dump({'results': results, 'network': 'namespace' if isolate else 'audit-hook'}, sys.stdout)


def network_namespace_works():
    if shutil.which('unshare') is None:
        return False
    try:
        return subprocess.run(['unshare', '-rn', 'true'], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=5).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def run_child(case, limits, isolate):
    tests = case.get('tests') or []
    if not tests:
        return {'passed': 0, 'total': 0, 'status': 'no-tests', 'detail': 'the row gives no tests'}
    seconds = float(limits.get('seconds', 5))
    memory = int(limits.get('memory_mb', 512)) * 2**20
    output = int(limits.get('output_kb', 64)) * 1024
    workdir = tempfile.mkdtemp(prefix='rlx-code-')
    read_end, write_end = os.pipe()
    try:
        command = [sys.executable, '-I', os.path.abspath(__file__), 'case']
        if isolate:
            command = ['unshare', '-rn'] + command
        # The child's output goes to a file capped by RLIMIT_FSIZE: endless printing ends it.
        with open(os.path.join(workdir, '.output'), 'wb') as out:
            def limit():
                os.setsid()
                resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
                cpu = int(seconds) + 1
                resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
                resource.setrlimit(resource.RLIMIT_FSIZE, (output, output))
                resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
                resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            child = subprocess.Popen(command, cwd=workdir, stdin=subprocess.PIPE, stdout=out, stderr=out,
                                     env={'PATH': '/usr/bin:/bin', RESULT_FD_ENV: str(write_end), 'PYTHONHASHSEED': '0'},
                                     preexec_fn=limit, pass_fds=(write_end,), close_fds=True)
            os.close(write_end)
            write_end = -1
            started = time.monotonic()
            try:
                child.stdin.write(json.dumps({'code': case.get('code', ''), 'tests': tests, 'seconds': seconds}).encode('utf-8'))
                child.stdin.close()
            except BrokenPipeError:
                pass
            timed_out = False
            try:
                child.wait(timeout=seconds + 2)
            except subprocess.TimeoutExpired:
                timed_out = True
            # Whatever it left running (its session) ends with it.
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            if timed_out:
                child.wait()
            elapsed = time.monotonic() - started
        said = read_bounded(read_end, 65536)
        return verdict(said, child.returncode, timed_out, elapsed, len(tests))
    finally:
        if write_end >= 0:
            os.close(write_end)
        os.close(read_end)
        shutil.rmtree(workdir, ignore_errors=True)


def read_bounded(fd, limit):
    os.set_blocking(fd, False)
    chunks, size = [], 0
    while size < limit:
        try:
            chunk = os.read(fd, limit - size)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b''.join(chunks)


def verdict(said, code, timed_out, elapsed, total):
    try:
        result = json.loads(said.decode('utf-8')) if said else None
    except (UnicodeDecodeError, ValueError):
        result = None
    passed = result.get('passed', 0) if isinstance(result, dict) and isinstance(result.get('passed'), int) else 0
    passed = max(0, min(passed, total))
    if isinstance(result, dict) and result.get('done') is True:
        status = 'error' if result.get('error') else 'ok'
        return {'passed': passed, 'total': total, 'status': status, 'detail': str(result.get('detail', ''))[:200]}
    # It ended before the harness finished: say why, keeping the tests it had passed by then.
    if timed_out or code == -signal.SIGXCPU or (isinstance(result, dict) and result.get('timeout')):
        status, detail = 'timeout', f'ran past its time limit ({elapsed:.1f} s)'
    elif code == -signal.SIGXFSZ:
        status, detail = 'output', 'wrote past its output limit'
    elif isinstance(result, dict) and result.get('memory'):
        status, detail = 'memory', 'ran out of its memory limit'
    else:
        status, detail = 'crashed', f'ended before its tests finished (exit status {code})'
    return {'passed': passed, 'total': total, 'status': status, 'detail': detail}


# ---- one case, in its own process ----------------------------------------------------------

def run_case():
    result_fd = int(os.environ.pop(RESULT_FD_ENV))
    request = json.loads(sys.stdin.read())
    sys.stdin.close()
    home = os.getcwd()
    progress = {'passed': 0, 'done': False}

    def report():
        try:
            os.write(result_fd, json.dumps(progress).encode('utf-8'))
        except OSError:
            pass

    seconds = float(request.get('seconds', 5))
    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    sys.addaudithook(make_guard(home))
    sys.stdout = sys.stderr = BoundedText(64 * 1024)
    scope = {'__name__': '__main__'}
    try:
        exec(compile(request.get('code', ''), 'completion.py', 'exec'), scope)
        for test in request['tests']:
            try:
                exec(compile(test, 'test.py', 'exec'), scope)
                progress['passed'] += 1
            except (TimeoutError, MemoryError):
                raise
            except BaseException:
                # A failed assertion, an error, or a SystemExit: this test did not pass.
                pass
        progress['done'] = True
        progress['detail'] = ''
    except TimeoutError:
        progress['timeout'] = True
    except MemoryError:
        progress['memory'] = True
    except BaseException as err:
        # The code itself did not run (a syntax error, an exception at its top level): no test passes.
        progress['done'] = True
        progress['error'] = True
        progress['passed'] = 0
        progress['detail'] = f'{type(err).__name__}: {err}'[:200]
    signal.setitimer(signal.ITIMER_REAL, 0)
    report()
    os._exit(0)


def on_alarm(*_):
    raise TimeoutError('time limit')


class BoundedText:
    """sys.stdout and sys.stderr for the code: keeps the first `limit` characters, drops the rest."""

    def __init__(self, limit):
        self.limit, self.size = limit, 0

    def write(self, text):
        self.size += len(text)
        return len(text)

    def flush(self):
        pass


REFUSED_EVENTS = {
    'os.fork', 'os.forkpty', 'os.exec', 'os.posix_spawn', 'os.spawn', 'os.system', 'os.kill', 'os.killpg',
    'subprocess.Popen', 'pty.spawn', 'socket.connect', 'socket.bind', 'socket.sendto', 'socket.sendmsg',
    'socket.getaddrinfo', 'socket.__new__', 'ctypes.dlopen', 'ctypes.dlsym', 'ctypes.cdata',
    'os.chdir', 'os.chroot', 'os.setuid', 'os.putenv', 'os.unsetenv', 'sys.addaudithook', 'resource.setrlimit',
}
PATH_EVENTS = {'os.remove', 'os.rmdir', 'os.rename', 'os.mkdir', 'os.symlink', 'os.link', 'os.truncate', 'os.chmod',
               'os.chown', 'os.utime', 'shutil.rmtree', 'shutil.move', 'shutil.copyfile'}


def make_guard(home):
    home = os.path.realpath(home)

    def inside(target):
        if isinstance(target, int):
            return True
        try:
            full = os.path.realpath(os.fsdecode(target))
        except (TypeError, ValueError):
            return False
        return full == home or full.startswith(home + os.sep)

    def guard(event, args):
        if event in REFUSED_EVENTS:
            raise PermissionError(f'the code sandbox refuses {event}')
        if event == 'open' and len(args) >= 2:
            path, mode = args[0], args[1]
            writes = isinstance(mode, str) and any(c in mode for c in 'wax+')
            if isinstance(mode, int):
                writes = bool(mode & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND))
            if writes and not inside(path):
                raise PermissionError(f'the code sandbox refuses writing outside its folder: {path!r}')
        elif event in PATH_EVENTS:
            for target in args[:2]:
                if isinstance(target, (str, bytes, os.PathLike)) and not inside(target):
                    raise PermissionError(f'the code sandbox refuses {event} outside its folder: {target!r}')

    return guard


if __name__ == '__main__':
    main()
