"""An agent's workspace: a fresh checkout of the instance's repository at its base commit,
commands run inside it (sandboxed where bubblewrap works), and the patch it ends with."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from capabench.swe.git import checkout, git
from capabench.swe.sandbox import bwrap_argv, interpreter_roots, limits

MAX_OUTPUT = 10_000  # characters of a command's output shown to the agent
ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/tmp",
    "LANG": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
}


class Workspace:
    """A fresh checkout (never one an earlier session left dirty), removed on close."""

    def __init__(self, repo: Path, commit: str) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="capabench-ws-")
        self.root = Path(self._tmp.name)
        self.path = self.root / "repo"
        self.scratch = self.root / "tmp"
        self.scratch.mkdir()
        self.home = self.root / "home"  # the agent's private home (its config dir inside)
        self.home.mkdir()
        self.base = commit
        checkout(repo, commit, self.path)

    def run(
        self, command: str, timeout_s: float = 60.0, *, contained: bool = True
    ) -> tuple[int | None, str]:
        """(exit code or None on a timeout, combined output, truncated head and tail).
        Contained: inside bubblewrap, which must work (the caller checked)."""
        argv = ["bash", "-lc", command]
        if contained:
            argv = bwrap_argv(
                argv,
                writable=[self.scratch, self.path],
                chdir=self.path,
                expose=interpreter_roots(),
                network=False,
            )
        env = {**ENV, "PATH": f"{Path(sys.executable).parent}:{ENV['PATH']}"}
        proc = subprocess.Popen(
            argv,
            cwd=self.path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=limits,
        )
        try:
            out, _ = proc.communicate(timeout=timeout_s)
            code: int | None = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            code = None
        text = out.decode(errors="replace")
        if len(text) > MAX_OUTPUT:
            cut = len(text) - MAX_OUTPUT
            text = f"{text[: MAX_OUTPUT // 2]}\n[... {cut} characters cut ...]\n{text[-MAX_OUTPUT // 2 :]}"
        return code, text

    def patch(self) -> str:
        """Every change since the base commit, new files included, as a git diff."""
        git("add", "-A", cwd=self.path)
        return git("diff", "--cached", "--binary", self.base, cwd=self.path)

    def fingerprint(self) -> str:
        """A hash of the working tree's state: changes between two turns, by any means."""
        status = git("status", "--porcelain", "--untracked-files=all", cwd=self.path)
        diff = git("diff", "HEAD", cwd=self.path) if status else ""
        return hashlib.sha256((status + diff).encode()).hexdigest()[:16]

    def close(self) -> None:
        self._tmp.cleanup()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
