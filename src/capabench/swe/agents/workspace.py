"""An agent's workspace: a fresh checkout of the instance's repository at its base commit,
commands run inside it (sandboxed where bubblewrap works), and the patch it ends with.

The checkout has a `.git` of its own, the agent's to use and to break; capabench reads the
checkout only through a second git directory beside it (`TreeGit`), which no sandbox sees:
nothing the agent writes (config, hooks, attributes, a .gitconfig, symlinks) runs on the
host or changes the recorded patch. The checkout, home and temporary directory are the
sandbox user's; the workspace's root and its git directory stay capabench's."""

from __future__ import annotations

import hashlib
import os
import stat
import sys
import tempfile
from pathlib import Path

from capabench.swe.containment import bwrap_argv, give, run_limited
from capabench.swe.containment_view import interpreter_roots
from capabench.swe.git import TreeGit, checkout

MAX_OUTPUT = 10_000  # characters of a command's output shown to the agent
ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/tmp",
    "LANG": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
}


MAX_AGENT_FILE = 64 << 20  # bytes of one file capabench reads from an agent's directories


def agent_files(base: Path, sub: str, suffix: str) -> list[Path]:
    """Regular files ending in `suffix` under `base/sub`, a directory the agent writes:
    never through a symbolic link (one to a host file would make capabench read it)."""
    base = base.resolve()
    root = base / sub
    if not root.is_dir() or not root.resolve().is_relative_to(base):
        return []
    found = []
    for parent, _, names in os.walk(root):  # does not descend into linked directories
        for name in names:
            path = Path(parent) / name
            if name.endswith(suffix) and not path.is_symlink() and path.is_file():
                found.append(path)
    return sorted(found)


def read_agent_file(path: Path, offset: int = 0) -> bytes:
    """A file the agent wrote, from `offset`: b"" unless it is a regular file reached
    without a symbolic link at its end (a FIFO or a device would hang or flood us)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return b""
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        fh.seek(offset)
        return fh.read(MAX_AGENT_FILE)


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
        checkout(repo, commit, self.path, hardlinks=False)  # the agent owns these files
        self.git = TreeGit.create(repo, commit, self.root / "git", self.path)
        give([self.path, self.home, self.scratch])
        self.root.chmod(0o711)  # the sandbox user passes through, and lists nothing

    def run(
        self, command: str, timeout_s: float = 60.0, *, contained: bool = True
    ) -> tuple[int | None, str]:
        """(exit code or None on a timeout, combined output, truncated head and tail).
        Contained: inside bubblewrap, which must work (the caller checked)."""
        # Not a login shell: /etc/profile would reset PATH (the interpreter first on it).
        argv = ["bash", "--noprofile", "--norc", "-c", command]
        if contained:
            argv = bwrap_argv(
                argv,
                writable=[self.scratch, self.path],
                chdir=self.path,
                expose=interpreter_roots(),
            )
        env = {**ENV, "PATH": f"{Path(sys.executable).parent.resolve()}:{ENV['PATH']}"}
        code, text = run_limited(argv, cwd=self.path, env=env, timeout_s=timeout_s)
        if len(text) > MAX_OUTPUT:
            cut = len(text) - MAX_OUTPUT
            text = f"{text[: MAX_OUTPUT // 2]}\n[... {cut} characters cut ...]\n{text[-MAX_OUTPUT // 2 :]}"
        return code, text

    def patch(self) -> str:
        """Every change since the base commit, new files included, as a git diff."""
        return self.git.patch(self.base)

    def fingerprint(self) -> str:
        """A hash of the working tree's state (every file's content, untracked ones too):
        changes between two turns, by any means."""
        return hashlib.sha256(self.git.tree_id().encode()).hexdigest()[:16]

    def close(self) -> None:
        self._tmp.cleanup()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
