"""Containment for agent processes (the Codex CLI, the Claude Code CLI, the built-in agent's
commands, and whatever they start): bubblewrap with the root file system read-only, the
host's temporary and home directories hidden, only the checkout, a private home and a
private temporary directory writable, no capabilities, its own process table (so no other
process's environment or memory is readable), and an environment built from nothing: PATH,
HOME, TMPDIR, the agent's endpoint and key, and the host's locale, certificate and proxy
settings. The network is shared (the agent must reach its endpoint, which may be on
127.0.0.1) unless a caller cuts it: the built-in agent's commands and the local grader's test
runs have none, and run under rlimits in their own session (`limits`)."""

from __future__ import annotations

import os
import resource
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path

from capabench.judge.sandbox import bwrap_available

# Not secrets, and an agent behind a proxy or a private CA can't reach its endpoint without
# them.
PASSTHROUGH = (
    "LANG",
    "LC_ALL",
    "TZ",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
    "https_proxy",
    "http_proxy",
    "no_proxy",
)
SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")
# Host services a root process could drive through a socket on the read-only root.
SOCKETS = (
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/run/podman/podman.sock",
)


class SandboxUnavailable(ValueError):
    """Agents are contained by default; bubblewrap does not work on this host."""


def require_bwrap() -> None:
    ok, why = bwrap_available()
    if not ok:
        raise SandboxUnavailable(
            f"agents run inside bubblewrap by default, and it does not work here ({why}). "
            "Install bubblewrap (scripts/setup.sh does), or pass --no-sandbox to run agents "
            "uncontained on this host, with its files and network in reach (recorded per run)."
        )


def _hidden() -> list[Path]:
    """The host directories an agent never sees: temporary files and every home."""
    roots = [Path("/tmp"), Path("/root"), Path("/home")]
    home = Path(os.path.expanduser("~"))
    if home != Path("/") and home.is_absolute():
        roots.append(home)
    roots = [r for r in roots if r.is_dir() and not r.is_symlink()]
    return [r for r in roots if not any(o != r and r.is_relative_to(o) for o in roots)]


def install_root(binary: str | Path) -> Path:
    """The directory a program's installation lives in: an npm package tree as a whole
    (the Codex CLI's launcher finds its native binary beside it), else the file's folder."""
    resolved = Path(binary).resolve()
    parts = resolved.parts
    if "node_modules" in parts:
        return Path(*parts[: parts.index("node_modules") + 1])
    return resolved.parent


def interpreter_roots() -> set[Path]:
    """Where the Python running capabench lives (its venv and base install)."""
    return {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent.parent}


def bwrap_argv(
    argv: list[str],
    *,
    writable: Iterable[Path],
    chdir: Path,
    expose: Iterable[Path] = (),
    network: bool = True,
) -> list[str]:
    """`argv` inside bubblewrap. `expose`: paths to keep readable although they lie under a
    hidden directory (the agent's own installation, its interpreter)."""
    hidden = _hidden()
    wrap = [
        shutil.which("bwrap") or "bwrap",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
    ]
    for root in hidden:
        wrap += ["--tmpfs", str(root)]
    shown = {Path(p).resolve() for p in expose}
    for path in sorted(
        (p for p in shown if p.exists() and any(p.is_relative_to(h) for h in hidden)),
        key=lambda p: len(p.parts),
    ):
        wrap += ["--ro-bind", str(path), str(path)]
    for path in writable:
        wrap += ["--bind", str(path), str(path)]
    for socket in sorted({os.path.realpath(s) for s in SOCKETS if os.path.exists(s)}):
        wrap += ["--ro-bind", "/dev/null", socket]
    if not network:
        wrap.append("--unshare-net")
    wrap += ["--unshare-pid", "--unshare-ipc", "--die-with-parent"]
    if os.geteuid() == 0:  # root keeps every capability otherwise: it could remount / writable
        wrap += ["--cap-drop", "ALL"]
    return [*wrap, "--chdir", str(chdir), "--", *argv]


def agent_env(
    *, home: Path, tmp: Path, path: Iterable[str | Path] = (), extra: dict[str, str] | None = None
) -> dict[str, str]:
    """An agent's whole environment: nothing of the host's but locale, certificates and
    proxies. A TMPDIR apart from HOME: Codex won't install its helper commands under it."""
    env = {k: os.environ[k] for k in PASSTHROUGH if k in os.environ}
    dirs = dict.fromkeys([*map(str, path), *SYSTEM_PATH])
    env |= {"PATH": ":".join(dirs), "HOME": str(home), "TMPDIR": str(tmp)}
    env.setdefault("LANG", "C.UTF-8")
    return env | (extra or {})


def exec_wrapper(script: Path, argv: list[str], env: dict[str, str]) -> Path:
    """An executable that replaces itself with `argv` (plus its own arguments) under exactly
    `env`, for launchers that add the host's environment (the Claude Agent SDK merges
    os.environ into what it is given). Python rather than `env -i`: no key in a command line."""
    script.write_text(
        f"#!{sys.executable} -I\nimport os, sys\n"
        f"argv = {argv!r} + sys.argv[1:]\nos.execve(argv[0], argv, {env!r})\n"
    )
    script.chmod(0o700)
    return script


def limits() -> None:
    """A command's own session and rlimits (its whole group is killed on a timeout)."""
    os.setsid()
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))
    resource.setrlimit(resource.RLIMIT_NPROC, (512, 512))


def sandboxed(argv: list[str], work: Path, tmp: str) -> tuple[list[str], str]:
    """`argv` inside bubblewrap (`work` and `tmp` writable, no network), or as it is where
    bubblewrap doesn't work; and which it was."""
    if not bwrap_available()[0]:
        return argv, "process"
    # Hidden directories (/tmp, homes) hide whatever lived there: an interpreter or a virtual
    # environment under them (a fresh clone often is) comes back, read-only.
    wrapped = bwrap_argv(
        argv, writable=[Path(tmp), work], chdir=work, expose=interpreter_roots(), network=False
    )
    return wrapped, "bwrap"
