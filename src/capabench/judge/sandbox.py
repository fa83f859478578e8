"""Harness side of the sandbox: a pool of zygote workers, each inside bubblewrap.

A worker is one `bwrap ... python zygote.py` process, started once and reused:
per job it forks a checker and a submission process from a clean interpreter that
already lives inside the sandbox, so a job pays neither interpreter nor sandbox
start-up. Without bubblewrap the same zygote runs as a plain child process with
rlimits and process-group cleanup only, and the pool says so once.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import json
import logging
import marshal
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import types
import weakref
from dataclasses import dataclass
from pathlib import Path

from capabench._compat import AST_LOCK, SerializedAstParse
from capabench.judge.capa_inside import checker, wire
from capabench.paths import cache_dir, write_atomically

log = logging.getLogger("capabench.judge")

INSIDE_DIR = Path(__file__).with_name("capa_inside")
SANDBOX_PYTHON = "/run/capa/python"
SANDBOX_LIB = "/run/capa/lib"
SANDBOX_LOGS = "/run/capa/logs"
_HARNESS_GRACE_S = 5.0
_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "HOME": "/tmp"}
_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_DAC_OVERRIDE", "CAP_FOWNER")


@dataclass(frozen=True)
class Limits:
    """Per-job limits, applied to both processes of a job."""

    timeout_s: float = 10.0
    memory_mb: int = 1024
    nproc: int = 64
    fsize_mb: int = 16
    output_cap: int = 8192

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise ValueError(f"timeout_s must be positive, got {self.timeout_s}")


def _base_interpreter() -> tuple[Path, Path]:
    """(installation prefix, interpreter path inside it) of the Python running us, venv resolved."""
    prefix = Path(sys.base_prefix)
    exe = prefix / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    if not exe.exists():
        exe = Path(os.path.realpath(sys.executable))
    return prefix, exe


def _bwrap_argv(uids: list[int] | None) -> list[str]:
    prefix, exe = _base_interpreter()
    argv = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    argv += ["--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    if uids is None:
        argv.append("--unshare-user")
    argv += ["--ro-bind", "/usr", "/usr"]
    for path in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    argv += ["--ro-bind-try", "/etc/localtime", "/etc/localtime"]
    argv += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp"]
    argv += ["--dir", "/run/capa", "--perms", "0700", "--tmpfs", SANDBOX_LOGS]
    argv += ["--ro-bind", str(prefix), SANDBOX_PYTHON]
    argv += ["--ro-bind", str(INSIDE_DIR), f"{SANDBOX_LIB}/capa_inside", "--chdir", "/tmp"]
    if uids is not None:
        argv += ["--cap-drop", "ALL"]
        for cap in _CAPS:
            argv += ["--cap-add", cap]
    if (prefix / "lib").is_dir():
        argv += ["--setenv", "LD_LIBRARY_PATH", f"{SANDBOX_PYTHON}/lib"]
    return [*argv, "--", f"{SANDBOX_PYTHON}/{exe.relative_to(prefix)}"]


_probe_lock = threading.Lock()
_probe_result: tuple[bool, str] | None = None


def bwrap_available() -> tuple[bool, str]:
    """Whether bubblewrap can start our sandbox here, and why not."""
    global _probe_result
    with _probe_lock:
        if _probe_result is None:
            if shutil.which("bwrap") is None:
                _probe_result = (False, "bwrap is not installed")
            else:
                uids = [0, 0] if os.geteuid() == 0 else None
                argv = [*_bwrap_argv(uids), "-S", "-c", "import math"]
                proc = subprocess.run(argv, env=_ENV, capture_output=True, text=True, timeout=30)
                ok = proc.returncode == 0
                _probe_result = (ok, "" if ok else f"bwrap failed: {proc.stderr.strip()[:500]}")
        return _probe_result


class InvalidTests(ValueError):
    """The tests themselves are unusable: a caller's error, never a submission's."""


@functools.lru_cache(maxsize=1024)
def compiled_tests(tests: str) -> bytes:
    """The checker's input: tests compiled here once, with assertion rewriting. Kept on
    disk too: loading them back holds the harness's one interpreter lock far less long than
    compiling them (docs/judge.md)."""
    path = _compiled_path(tests)
    try:
        data = path.read_bytes()
        source, code = marshal.loads(data)
        if source == tests and isinstance(code, types.CodeType):
            return data
    except (OSError, EOFError, ValueError, TypeError):
        pass  # absent or damaged: compile afresh
    try:
        with AST_LOCK:  # parse + rewrite + compile of an AST: see capabench._compat
            data = marshal.dumps((tests, checker.compile_tests(tests)))
    except (SyntaxError, ValueError) as exc:
        raise InvalidTests(f"unusable tests: {exc}") from None
    try:
        write_atomically(path, data)
    except OSError:
        pass  # a read-only cache only costs time
    return data


@functools.cache
def _rewriter_version() -> str:
    return hashlib.sha256(Path(checker.__file__).read_bytes()).hexdigest()[:12]


def _compiled_path(tests: str) -> Path:
    """Keyed by the tests, the bytecode format and the assertion rewriter's source."""
    key = hashlib.sha256(tests.encode()).hexdigest()
    tag = f"{sys.implementation.cache_tag}-{_rewriter_version()}"
    return cache_dir() / "compiled-tests" / tag / key[:2] / f"{key}.marshal"


class WorkerDied(Exception):
    """The sandbox worker stopped answering; the pool replaces it."""


class _Worker:
    """One zygote process and its four pipes."""

    def __init__(self, slot: int, isolated: bool) -> None:
        self.slot = slot
        self.isolated = isolated
        self.proc: subprocess.Popen[bytes] | None = None
        self.private_tmp: str | None = None
        self.stderr_file = tempfile.TemporaryFile()

    def _uids(self) -> list[int] | None:
        if not (self.isolated and os.geteuid() == 0):
            return None
        # A checker uid and a submission uid of their own per worker: the submission
        # can't signal the checker or the zygote, and its process limit is its own.
        base = 200_000 + (os.getpid() % 10_000) * 64 + 2 * self.slot
        return [base, base + 1]

    def start(self) -> None:
        code_r, self.code_w = os.pipe()
        tests_r, self.tests_w = os.pipe()
        uids = self._uids()
        config: dict[str, object] = {"code_fd": code_r, "tests_fd": tests_r, "uids": uids}
        if self.isolated:
            argv = [
                *_bwrap_argv(uids),
                "-S",
                "-s",
                "-P",
                "-B",
                f"{SANDBOX_LIB}/capa_inside/zygote.py",
            ]
            config.update(pidns=True, scratch="/tmp", logs=SANDBOX_LOGS)
        else:
            self.private_tmp = tempfile.mkdtemp(prefix="capabench-judge-")
            lib = Path(self.private_tmp) / "lib"
            shutil.copytree(
                INSIDE_DIR, lib / "capa_inside", ignore=shutil.ignore_patterns("__pycache__")
            )
            for name in ("logs", "scratch"):
                (Path(self.private_tmp) / name).mkdir()
            _, exe = _base_interpreter()
            argv = [str(exe), "-S", "-s", "-P", "-B", str(lib / "capa_inside" / "zygote.py")]
            config.update(
                pidns=False, scratch=f"{self.private_tmp}/scratch", logs=f"{self.private_tmp}/logs"
            )
        self.proc = subprocess.Popen(
            [*argv, json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr_file,
            pass_fds=(code_r, tests_r),
            env=_ENV,
            start_new_session=True,
        )
        os.close(code_r)
        os.close(tests_r)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def request(self, header: dict, frames: list[tuple[str, bytes]], wait_s: float) -> dict:
        if not self.alive:
            self.start()
        assert self.proc is not None and self.proc.stdin and self.proc.stdout
        deadline = time.monotonic() + wait_s
        try:
            wire.send_json(self.proc.stdin.fileno(), header, deadline)
            for pipe, frame in frames:
                wire.send(getattr(self, pipe), frame, deadline)
            reply = wire.recv_json(self.proc.stdout.fileno(), deadline=deadline)
        except (OSError, TimeoutError, wire.WireError) as exc:
            self.stop()
            raise WorkerDied(f"{type(exc).__name__}: {exc}; {self.stderr_tail()}") from None
        if reply is None:
            self.stop()
            raise WorkerDied(f"the sandbox worker exited; {self.stderr_tail()}")
        if reply.get("restart"):
            self.stop()
        return reply

    def run(self, header: dict, code: bytes, tests: bytes) -> dict:
        wait_s = header["timeout_s"] + _HARNESS_GRACE_S
        return self.request(header, [("code_w", code), ("tests_w", tests)], wait_s)

    def ping(self) -> dict:
        return self.request({"op": "ping"}, [], _HARNESS_GRACE_S)

    def stderr_tail(self) -> str:
        self.stderr_file.seek(0, os.SEEK_END)
        size = self.stderr_file.tell()
        self.stderr_file.seek(max(0, size - 2000))
        text = self.stderr_file.read().decode("utf-8", "replace").strip()
        return f"worker stderr: {text}" if text else "no worker stderr"

    def stop(self) -> None:
        if self.proc is not None:
            for stream in (self.proc.stdin, self.proc.stdout):
                try:
                    stream.close()  # type: ignore[union-attr]
                except OSError:
                    pass
            try:
                os.killpg(self.proc.pid, 9)
            except OSError:
                pass
            self.proc.wait()
            self.proc = None
            for fd in (self.code_w, self.tests_w):
                try:
                    os.close(fd)
                except OSError:
                    pass
        if self.private_tmp:
            shutil.rmtree(self.private_tmp, ignore_errors=True)
            self.private_tmp = None


class SandboxPool:
    """Thread-safe pool of sandbox workers; `run` blocks until a worker is free.

    While a pool is open (constructed, or used since its last `close`), `ast.parse` in this
    process holds `capabench._compat.AST_LOCK` on interpreters before 3.13: threads that share
    a pool (judging, the simulated user, the builder's cells) parse code at once, and those
    interpreters can't (see capabench._compat). Closing the last open pool, or its collection,
    puts the interpreter's own `ast.parse` back."""

    def __init__(self, workers: int | None = None, *, isolation: str = "auto") -> None:
        """isolation: "auto" (bwrap when it works, else a warning and "process"), "bwrap", "process"."""
        if isolation not in ("auto", "bwrap", "process"):
            raise ValueError(f"isolation must be auto, bwrap or process, not {isolation!r}")
        ok, why = (
            bwrap_available() if isolation != "process" else (False, "process isolation requested")
        )
        if not ok and isolation == "bwrap":
            raise RuntimeError(f"no bubblewrap sandbox available: {why}")
        if not ok and isolation == "auto":
            log.warning(
                "judge runs WITHOUT bubblewrap (%s): rlimits and process cleanup only, "
                "no namespace isolation",
                why,
            )
        self.isolated = ok
        # A pool is shared by threads that parse code at once: while it is open, `ast.parse`
        # takes the lock (see _compat); its collection lets go as `close` does.
        self._ast = SerializedAstParse()
        self._ast.acquire()
        weakref.finalize(self, self._ast.release)
        # Jobs spend part of their time waiting on pipes: one spare worker keeps every core busy.
        self.size = workers or (os.cpu_count() or 1) + 1
        self._idle: queue.LifoQueue[_Worker] = queue.LifoQueue()
        self._all = [_Worker(slot, ok) for slot in range(self.size)]
        for worker in self._all:
            self._idle.put(worker)
        self._jobs = 0
        self._lock = threading.Lock()

    @property
    def isolation(self) -> str:
        return "bwrap" if self.isolated else "process"

    def run(
        self, code: str, tests: str, entry_point: str, limits: Limits, *, record: bool = False
    ) -> dict:
        with self._lock:
            self._jobs += 1
            job_id = self._jobs
        self._ast.acquire()  # open again after a close: a no-op while open
        header = {
            "op": "run",
            "id": job_id,
            "entry_point": entry_point,
            "record": record,
            **limits.__dict__,
        }
        code_frame = json.dumps(
            {"code": code, "entry_point": entry_point, "limits": limits.__dict__}
        ).encode()
        tests_frame = compiled_tests(tests)
        worker = self._idle.get()
        try:
            # A worker that was already up may have died between jobs: one retry on a fresh
            # one. A fresh worker dying is this job's doing.
            tries = 1 if not worker.alive else 2
            for attempt in range(1, tries + 1):
                try:
                    return worker.run(header, code_frame, tests_frame)
                except WorkerDied as exc:
                    if attempt == tries:
                        return {"status": "error", "detail": f"the sandbox worker died: {exc}"}
            raise AssertionError("unreachable")
        finally:
            self._idle.put(worker)

    def leftover_processes(self) -> list[int]:
        """Processes left in the workers' sandboxes besides their zygote and spare; [] when clean."""
        held = [self._idle.get() for _ in self._all]  # wait until no job is in flight
        try:
            return [pid for w in held if w.alive for pid in w.ping()["leftover"]]
        finally:
            for worker in held:
                self._idle.put(worker)

    def close(self) -> None:
        for worker in self._all:
            worker.stop()
        self._ast.release()


_default: SandboxPool | None = None
_default_lock = threading.Lock()


def default_pool() -> SandboxPool:
    global _default
    with _default_lock:
        if _default is None:
            _default = SandboxPool()
            atexit.register(_default.close)
        return _default
