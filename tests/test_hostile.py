"""Hostile submissions: each must get the right verdict, leave no process behind,
and leave the harness (and the worker pool) working."""

from __future__ import annotations

import os
import socket
import textwrap
import threading

import pytest

from capabench.judge import judge
from conftest import requires_bwrap, sandbox_uid_processes

pytestmark = requires_bwrap

TESTS = "def check(candidate):\n    assert candidate(2) == 4\n"
GOOD = "def f(x):\n    return x * 2\n"


def run(pool, code, tests=TESTS, timeout_s=3.0):
    verdict = judge(textwrap.dedent(code), tests, "f", pool=pool, timeout_s=timeout_s)
    assert pool.leftover_processes() == [], "processes left in the sandbox"
    assert sandbox_uid_processes() == [], "processes left on the host"
    assert judge(GOOD, TESTS, "f", pool=pool).passed, "the harness no longer works"
    return verdict


def test_fork_bomb(pool):
    v = run(pool, "import os\nwhile True:\n    os.fork()\n")
    assert v.status in ("resource_limit", "timeout"), v
    v = run(
        pool,
        "import os\ndef f(x):\n    while True:\n        try:\n            os.fork()\n        except OSError:\n            pass\n",
    )
    assert v.status == "timeout", v


def test_memory_bomb(pool):
    v = run(pool, "x = bytearray(10 ** 11)\n")
    assert v.status == "resource_limit" and "MemoryError" in v.detail, v
    v = run(pool, "def f(x):\n    hog = []\n    while True:\n        hog.append(' ' * 10 ** 7)\n")
    assert v.status == "resource_limit" and "memory limit" in v.detail, v


def test_infinite_loop_and_sleep_forever(pool):
    assert run(pool, "def f(x):\n    while True:\n        pass\n", timeout_s=1).status == "timeout"
    assert run(pool, "import time\ntime.sleep(10 ** 6)\n", timeout_s=1).status == "timeout"
    v = run(
        pool,
        "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ndef f(x):\n    time.sleep(10 ** 6)\n",
        timeout_s=1,
    )
    assert v.status == "timeout"


def test_unbounded_output(pool):
    v = run(pool, "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n")
    assert v.status == "resource_limit", v
    assert len(v.stdout) < 10_000
    v = run(pool, "def f(x):\n    while True:\n        print('spam' * 1000)\n", timeout_s=1)
    assert v.status == "timeout", v  # per-call capture is capped in memory; the clock ends it


def test_exit_before_tests(pool):
    for code in ("import sys\nsys.exit(0)\n", "import os\nos._exit(0)\n", "raise SystemExit(0)\n"):
        assert run(pool, code).status == "error"
    v = run(pool, "print('all tests passed')\nprint('OK')\nimport os\nos._exit(0)\n" + GOOD)
    assert v.status == "error" and "before the tests completed" in v.detail
    v = run(pool, GOOD + "import os\n_f = f\ndef f(x):\n    os._exit(0)\n")
    assert v.status == "error" and "exited with status 0 before the tests completed" in v.detail


def test_exit_inside_a_call_is_not_a_pass(pool):
    v = run(pool, "import sys\ndef f(x):\n    sys.exit(0)\n")
    assert v.status == "error" and "SystemExit" in v.detail


def test_monkeypatching_builtins_and_check(pool):
    tests = "def check(candidate):\n    assert abs(candidate(2) - 4) < 1e-9\n    assert isinstance(candidate(2), int)\n"
    v = run(
        pool,
        "import builtins\nbuiltins.abs = lambda x: 0\nbuiltins.isinstance = lambda *a: True\ndef f(x):\n    return 'nope'\n",
        tests,
    )
    assert v.status == "failed", v
    v = run(pool, "def check(candidate):\n    pass\ndef f(x):\n    return 0\n")
    assert v.status == "failed", v
    v = run(
        pool,
        "import builtins\nbuiltins.AssertionError = type('X', (Exception,), {})\ndef f(x):\n    return 0\n",
    )
    assert v.status == "failed", v


def test_object_that_equals_everything(pool):
    code = "class Any:\n    def __eq__(self, other):\n        return True\n    __hash__ = object.__hash__\ndef f(x):\n    return Any()\n"
    v = run(pool, code)
    assert v.status == "failed" and "only built-in values can be checked" in v.detail, v
    v = run(
        pool,
        "class I(int):\n    def __eq__(self, o):\n        return True\ndef f(x):\n    return I(0)\n",
    )
    assert v.status == "failed", v


def test_hidden_tests_are_not_in_the_submissions_memory(pool):
    tests = "SECRET_MARKER = 'zq' + 'x7'\ndef check(candidate):\n    assert candidate(2) == 'zqx7-expected-answer'\n"
    code = """
    import gc
    def f(x):
        for obj in gc.get_objects():
            if isinstance(obj, (str, bytes)) and ('zqx7' in str(obj)):
                return 'zqx7-expected-answer'
        return 'not found'
    """
    v = run(pool, code, tests)
    assert v.status == "failed" and "'not found'" in v.detail, v


def test_network_is_unreachable(pool):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    code = f"""
    import socket
    def f(x):
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=1).close()
            return 'connected'
        except OSError as e:
            return 'blocked'
    """
    v = run(pool, code, "def check(candidate):\n    assert candidate(1) == 'connected'\n")
    assert v.status == "failed" and "'blocked'" in v.detail, v
    with pytest.raises(OSError):
        listener.accept()
    listener.close()


def test_writes_outside_the_work_dir_are_contained(pool, tmp_path):
    target = tmp_path / "escaped.txt"
    code = f"""
    import os
    def f(x):
        results = []
        for path in ({str(target)!r}, '/etc/capabench-escape', '/usr/capabench-escape', '/tmp/here.txt', 'local.txt', '/dev/shm/x', '/run/capa/logs/x', '/proc/x'):
            try:
                with open(path, 'w') as fh:
                    fh.write('x')
                results.append('w')
            except OSError:
                results.append('-')
        return ''.join(results)
    """
    v = run(pool, code, "def check(candidate):\n    assert candidate(1) == 'nothing'\n")
    assert v.case is not None and v.case.got == "'---ww---'", v  # only its private tmp and work dir
    assert not target.exists()
    assert not os.path.exists("/etc/capabench-escape") and not os.path.exists(
        "/usr/capabench-escape"
    )


def test_private_tmp_does_not_persist_between_jobs(pool):
    write = "def f(x):\n    open('/tmp/planted', 'w').write('x')\n    return x * 2\n"
    assert run(pool, write).passed
    read = "import os\ndef f(x):\n    return 'planted' if os.path.exists('/tmp/planted') or os.path.exists('planted') else x * 2\n"
    for _ in range(pool.size * 2):  # whichever worker gets it
        assert run(pool, read).passed


def test_signalling_the_parent_and_everyone(pool):
    harness = os.getpid()
    code = f"""
    import os, signal
    for target in (os.getppid(), 1, {harness}, -1, 0):
        for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP):
            try:
                os.kill(target, sig)
            except OSError:
                pass
    def f(x):
        return x * 2
    """
    v = run(pool, code)
    assert v.status in ("passed", "error"), v  # it may take itself down with -1/0; nothing else
    assert os.getpid() == harness


def test_children_left_running_after_exit(pool):
    code = """
    import os, time
    def f(x):
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(1000)
            os._exit(0)
        return x * 2
    """
    v = run(pool, code)
    assert v.passed, v  # correct answers, and the daemon it left is gone (checked in run)


def test_parent_environment_is_out_of_reach(pool, monkeypatch):
    monkeypatch.setenv("CAPABENCH_TEST_SECRET", "s3cret-value")
    code = """
    import os
    def f(x):
        seen = repr(dict(os.environ))
        for pid in ['self', '1', str(os.getppid())] + os.listdir('/proc'):
            try:
                seen += open(f'/proc/{pid}/environ', 'rb').read().decode('latin-1')
            except OSError:
                pass
        return 'LEAK' if 's3cret' in seen else 'clean'
    """
    # The secret is set after the pool's workers started; a fresh pool must not pass it either.
    from capabench.judge import SandboxPool

    fresh = SandboxPool(1)
    try:
        v = run(fresh, code, "def check(candidate):\n    assert candidate(1) == 'LEAK'\n")
        assert v.status == "failed" and "'clean'" in v.detail, v
    finally:
        fresh.close()


def test_concurrent_hostile_and_honest_jobs(pool):
    verdicts = {}

    def go(name, code, **kw):
        verdicts[name] = judge(code, TESTS, "f", pool=pool, **kw)

    threads = [
        threading.Thread(
            target=go,
            args=("bomb", "import os\nwhile True:\n    os.fork()\n"),
            kwargs={"timeout_s": 2},
        ),
        threading.Thread(target=go, args=("good", GOOD)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert verdicts["good"].passed
    assert pool.leftover_processes() == []
