"""An agent CLI run under its session's budget: stopped, with everything it started, at the
wall-time deadline or as soon as a line it writes to stderr says it went over (a CLI that
logs each model request can be stopped before the reply beyond the turn budget)."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

Stop = Callable[[str], bool]  # sees (and keeps) each stderr line; True stops the process


class Finished(NamedTuple):
    returncode: int | None  # None: stopped
    stdout: str
    stopped: str  # "", "time_limit" or "step_limit"


def supervise(
    argv: list[str], *, cwd: Path, env: dict[str, str], deadline: float, on_stderr: Stop
) -> Finished:
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    stopped = ""
    lock = threading.Lock()

    def stop(reason: str) -> None:
        nonlocal stopped
        with lock:
            if not stopped:
                stopped = reason
                try:  # its own session: the CLI and every child in its group
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    out: list[bytes] = []

    def read_stdout() -> None:
        assert proc.stdout is not None
        out.extend(iter(lambda: proc.stdout.read(65536), b""))

    def read_stderr() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            if on_stderr(raw.decode(errors="replace").rstrip("\n")):
                stop("step_limit")  # at once, from here: before the request is answered

    readers = [threading.Thread(target=f, daemon=True) for f in (read_stdout, read_stderr)]
    for t in readers:
        t.start()
    while proc.poll() is None:
        left = deadline - time.monotonic()
        if left <= 0:
            stop("time_limit")
            break
        try:
            proc.wait(timeout=min(left, 0.5))
        except subprocess.TimeoutExpired:
            pass
    proc.wait()
    for t in readers:
        t.join(timeout=10)  # a grandchild outside the group may hold a pipe open
    return Finished(
        None if stopped else proc.returncode, b"".join(out).decode(errors="replace"), stopped
    )
