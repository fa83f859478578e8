"""Git plumbing every part of the arm shares: fresh checkouts at a commit, and applying a
patch (the bundled repositories are made with it, agents work in a checkout, graders apply
the agent's patch to one)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def git(*args: str, cwd: Path) -> str:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cwd),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "capabench",
        "GIT_AUTHOR_EMAIL": "capabench@localhost",
        "GIT_COMMITTER_NAME": "capabench",
        "GIT_COMMITTER_EMAIL": "capabench@localhost",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    }
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.strip()[:500]}")
    return proc.stdout


def checkout(repo: Path, commit: str, dest: Path) -> None:
    """A fresh clone of `repo` at `commit` in `dest` (never a reused working tree)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    git("clone", "--quiet", "--no-checkout", str(repo), str(dest), cwd=dest.parent)
    git("checkout", "--quiet", "--detach", commit, cwd=dest)


def apply_patch(work: Path, patch: str) -> str:
    """Apply a unified diff; '' on success, else why not."""
    proc = subprocess.run(
        ["git", "apply", "--whitespace=nowarn", "-"],
        cwd=work,
        input=patch,
        capture_output=True,
        text=True,
    )
    return "" if proc.returncode == 0 else proc.stderr.strip()[:500]
