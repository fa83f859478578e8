"""Repositories of a dataset's instances: a local mirror folder (`--repos DIR`, clones or
mirrors named `<owner>__<name>`) for offline machines, else a mirror clone from GitHub kept
in capabench's cache (where `repo_dir` finds it)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from capabench.paths import cache_dir
from capabench.swe.data.bundled import repo_dir
from capabench.swe.swe_records import Instance

GITHUB = "https://github.com/{repo}.git"


def has_commit(repo: Path, commit: str) -> bool:
    proc = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "-e", f"{commit}^{{commit}}"], capture_output=True
    )
    return proc.returncode == 0


def ensure_repo(instance: Instance, repos: Path | None, *, log=print) -> Path:
    """The instance's repository with its base and environment commits in it; cloned from
    GitHub into the cache when `repos` is None and no clone is there yet."""
    try:
        path = repo_dir(instance, repos)
    except FileNotFoundError:
        if repos is not None:
            raise
        path = cache_dir() / "swe" / "repos" / instance.repo.replace("/", "__")
        url = GITHUB.format(repo=instance.repo)
        log(f"  cloning {url} into {path}")
        path.parent.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(
            ["git", "clone", "--quiet", "--mirror", url, str(path)], capture_output=True, text=True
        )
        if proc.returncode != 0:
            raise FileNotFoundError(
                f"could not clone {url}: {proc.stderr.strip()[:300]} (offline? pass --repos DIR "
                "with <owner>__<name> clones)"
            ) from None
    for commit in {instance.base_commit, instance.environment_setup_commit} - {""}:
        if not has_commit(path, commit):
            raise FileNotFoundError(
                f"{path} has no commit {commit[:12]} that {instance.instance_id} needs "
                "(fetch the repository's full history)"
            )
    return path
