"""Git plumbing every part of the arm shares: fresh checkouts at a commit, applying a patch
(the bundled repositories are made with it, agents work in a checkout, graders apply the
agent's patch to one), and reading an agent's checkout (`TreeGit`).

Every git process runs under a configuration nobody else writes: no global or system config
(/dev/null), HOME and XDG_CONFIG_HOME pointing nowhere, no hooks, no fsmonitor, no pager,
no external diff or textconv, no credential helper, no prompts. An agent's checkout is read
through a git directory of capabench's own, outside everything the agent can write
(`TreeGit`): the `.git` in the checkout is the agent's and never read by capabench, and the
checkout's `.gitattributes` can neither name a filter nor change line endings or encodings
(overridden in the private git directory's info/attributes, the highest-precedence file)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

# Settings a repository's own config (or an agent's) could use to run a program or change
# what git reports; fixed on the command line, which overrides every config file.
SAFE_CONFIG = {
    "core.hooksPath": "/dev/null",
    "core.fsmonitor": "false",
    "core.untrackedCache": "false",
    "core.pager": "cat",
    "core.attributesFile": "/dev/null",
    "core.excludesFile": "/dev/null",
    "core.autocrlf": "false",
    "core.safecrlf": "false",
    "core.symlinks": "true",
    "core.sshCommand": "false",
    "credential.helper": "",
    "diff.noprefix": "false",
    "diff.mnemonicPrefix": "false",
    "diff.relative": "false",
    "diff.renames": "false",
    "color.ui": "false",
    "gc.auto": "0",
    "maintenance.auto": "false",
    "submodule.recurse": "false",
    "status.showUntrackedFiles": "all",
    "safe.directory": "*",
}
# Every attribute that changes content or runs a driver, reset to unspecified for every path
# (info/attributes wins over any .gitattributes in the tree): no filter, no textconv or diff
# driver, no end-of-line or encoding conversion, no ident expansion.
NEUTRAL_ATTRIBUTES = (
    "* !text !crlf !eol !filter !diff !merge !ident !working-tree-encoding "
    "!export-subst !export-ignore !whitespace\n"
)
# Options for every diff capabench records: the patch is git's own, whatever the config says.
DIFF_OPTIONS = (
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
    "--src-prefix=a/",
    "--dst-prefix=b/",
)


def _config_args() -> list[str]:
    return [arg for key, value in SAFE_CONFIG.items() for arg in ("-c", f"{key}={value}")]


def git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The whole environment of a git process: nothing of the caller's but PATH."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/nonexistent",
        "XDG_CONFIG_HOME": "/nonexistent",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_SYSTEM": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_ATTR_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
        "LC_ALL": "C",
        "GIT_AUTHOR_NAME": "capabench",
        "GIT_AUTHOR_EMAIL": "capabench@localhost",
        "GIT_COMMITTER_NAME": "capabench",
        "GIT_COMMITTER_EMAIL": "capabench@localhost",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    }
    return env | (extra or {})


def _run(
    args: list[str], *, cwd: Path, env: dict[str, str], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Bytes in and out, decoded without newline translation: a CRLF file's patch keeps its
    carriage returns (text mode would drop them)."""
    proc = subprocess.run(
        ["git", *_config_args(), *args],
        cwd=cwd,
        env=env,
        input=None if stdin is None else stdin.encode("utf-8", "surrogateescape"),
        capture_output=True,
    )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


def git(*args: str, cwd: Path) -> str:
    """git in a repository capabench made (never an agent's checkout: see TreeGit)."""
    proc = _run(list(args), cwd=cwd, env=git_env())
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.strip()[:500]}")
    return proc.stdout


def checkout(repo: Path, commit: str, dest: Path, *, hardlinks: bool = True) -> None:
    """A fresh clone of `repo` at `commit` in `dest` (never a reused working tree), without
    a remote. `hardlinks` False: objects copied, for a checkout someone else will own (its
    owner could otherwise write the source's objects through a shared inode)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    copy = [] if hardlinks else ["--no-hardlinks"]
    git("clone", "--quiet", "--no-checkout", *copy, str(repo), str(dest), cwd=dest.parent)
    git("remote", "remove", "origin", cwd=dest)
    git("checkout", "--quiet", "--detach", commit, cwd=dest)


def apply_patch(work: Path, patch: str) -> str:
    """Apply a unified diff; '' on success, else why not. The .gitattributes it adds or
    changes decide nothing about how it applies (the checkout's git dir overrides them)."""
    info = work / ".git" / "info"
    if info.parent.is_dir() and not info.parent.is_symlink():
        info.mkdir(exist_ok=True)
        (info / "attributes").write_text(NEUTRAL_ATTRIBUTES)
    proc = _run(["apply", "--whitespace=nowarn", "-"], cwd=work, env=git_env(), stdin=patch)
    return "" if proc.returncode == 0 else proc.stderr.strip()[:500]


class TreeGit:
    """Git over a working tree someone else writes (an agent's checkout), through a git
    directory of capabench's own (`git_dir`, which must lie outside everything the writer
    can reach). The tree's own `.git`, config, hooks and attributes decide nothing."""

    def __init__(self, git_dir: Path, work_tree: Path) -> None:
        self.git_dir = git_dir
        self.work_tree = work_tree

    @classmethod
    def create(cls, repo: Path, commit: str, git_dir: Path, work_tree: Path) -> TreeGit:
        """A private git directory for `work_tree`, which already holds `commit`'s files:
        its index matches them, so an unchanged tree reports nothing."""
        git("clone", "--quiet", "--bare", str(repo), str(git_dir), cwd=git_dir.parent)
        git("config", "core.bare", "false", cwd=git_dir)
        git("remote", "remove", "origin", cwd=git_dir)
        (git_dir / "info").mkdir(exist_ok=True)
        (git_dir / "info" / "attributes").write_text(NEUTRAL_ATTRIBUTES)
        (git_dir / "info" / "exclude").write_text("")
        shutil.rmtree(git_dir / "hooks", ignore_errors=True)
        tree = cls(git_dir, work_tree)
        tree("update-ref", "--no-deref", "HEAD", commit)
        tree("read-tree", commit)
        tree("update-index", "-q", "--refresh", check=False)
        return tree

    def __call__(self, *args: str, check: bool = True, index: Path | None = None) -> str:
        extra = {"GIT_DIR": str(self.git_dir), "GIT_WORK_TREE": str(self.work_tree)}
        if index is not None:
            extra["GIT_INDEX_FILE"] = str(index)
        proc = _run(list(args), cwd=self.git_dir, env=git_env(extra))
        if check and proc.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.strip()[:500]}")
        return proc.stdout

    def patch(self, base: str) -> str:
        """Every change since `base`, new files included, as a git diff (binary-safe)."""
        self("add", "--all", "--", ".")
        return self("diff", "--cached", "--binary", *DIFF_OPTIONS, base, "--")

    def tree_id(self) -> str:
        """The tree object the working tree's files make now (a scratch index, so the
        recorded patch's index is not touched): equal ids, equal contents."""
        scratch = self.git_dir / "fingerprint-index"
        shutil.copyfile(self.git_dir / "index", scratch)  # its stat cache: only changes hashed
        try:
            self("add", "--all", "--", ".", index=scratch)
            return self("write-tree", index=scratch).strip()
        finally:
            scratch.unlink(missing_ok=True)
