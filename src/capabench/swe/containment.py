"""Containment for agent processes (the Codex CLI, the Claude Code CLI, the built-in agent's
commands, and whatever they start) and for the grader's test runs: bubblewrap, with

- a root file system made of the system's programs and libraries only (/usr, /etc and the
  /bin, /lib links), read-only, plus what the caller exposes (the agent's own runtime: node
  and the CLI's package, the SDK's bundled binary, an interpreter), and nothing else of the
  host: no /home, /root, /tmp, /var, /opt, /srv, /mnt, /work, /run, /sys, no capabench
  package tree and no cache (the dataset and its gold patches), masked even where an
  exposed directory holds them;
- only the checkout, a private home and a private temporary directory writable;
- an unprivileged user: uid and gid 1000 in a user namespace of its own that can make no
  further namespaces; when capabench runs as root that uid is an unprivileged host uid
  (HOST_AGENT_ID), so root-only files stay unreadable and nothing written is root's;
- its own network namespace (loopback only: no host service, no abstract unix socket, no
  DNS), its own process table, IPC and hostname; a CLI reaches its model endpoint through
  swe.egress, which allows only that endpoint;
- an environment built from nothing (`agent_env`).

One bwrap binary, resolved once (`bwrap_binary`), and `bwrap_available` checks it by
running a sandbox of exactly this shape."""

from __future__ import annotations

import functools
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path

from capabench.swe.containment_view import (
    SYSTEM_RO,
    base_python,
    interpreter_roots,
    links_on_the_way,
    opened_parents,
    private_paths,
    root_mounts,
)

# Not secrets: the host's locale, certificates and proxies (what a process on the host,
# such as an environment's pip install, needs to reach an index).
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
# What of them an agent gets: not the proxies (the sandbox has no route to them; swe.egress
# sets a CLI's own).
AGENT_PASSTHROUGH = tuple(k for k in PASSTHROUGH if "proxy" not in k.lower())
SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")
# Where host service sockets live (rootful and rootless): none of them exists inside, the
# sandbox's root has no /run and no /var.
SOCKETS = (
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/run/podman/podman.sock",
    "/run/user",
)
AGENT_ID = 1000  # the agent's uid and gid inside
# The host uid (and gid) agents run as when capabench runs as root: owns nothing else.
HOST_AGENT_ID = int(os.environ.get("CAPABENCH_AGENT_UID", "190000"))
INSIDE = "/run/capabench"  # where capabench's own helpers are bound, read-only


class SandboxUnavailable(ValueError):
    """Agents are contained by default; bubblewrap does not work on this host."""


@functools.cache
def bwrap_binary() -> str | None:
    """The one bwrap every sandbox runs (and the check runs), by absolute path."""
    found = shutil.which("bwrap")
    return os.path.realpath(found) if found else None


_probe_lock = threading.Lock()
_probe: tuple[bool, str] | None = None


def bwrap_available() -> tuple[bool, str]:
    """Whether an agent's sandbox starts here, checked by starting one (same binary, same
    flags): the agent's uid inside, its own network, a writable checkout."""
    global _probe
    with _probe_lock:
        if _probe is None:
            _probe = _check()
        return _probe


def _check() -> tuple[bool, str]:
    if bwrap_binary() is None:
        return False, "bwrap is not installed"
    with tempfile.TemporaryDirectory(prefix="capabench-bwrap-check-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        give([Path(tmp), work])
        script = f'test "$(id -u)" = {AGENT_ID} && echo ok > probe'
        argv = bwrap_argv(["/bin/sh", "-c", script], writable=[work], chdir=work)
        try:
            proc = subprocess.run(
                argv, env=agent_env(home=work, tmp=work), capture_output=True, text=True, timeout=60
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return False, f"{bwrap_binary()} failed: {exc}"
        if proc.returncode != 0 or not (work / "probe").is_file():
            return (
                False,
                f"{bwrap_binary()} failed (exit {proc.returncode}): {proc.stderr.strip()[:500]}",
            )
    return True, ""


def require_bwrap() -> None:
    ok, why = bwrap_available()
    if not ok:
        raise SandboxUnavailable(
            f"agents run inside bubblewrap by default, and it does not work here ({why}). "
            "Install bubblewrap (scripts/setup.sh does), or pass --no-sandbox to run agents "
            "uncontained on this host, with its files and network in reach (recorded per run)."
        )


def host_id() -> int:
    """The host uid a sandboxed process runs as: ours, unless we are root."""
    return HOST_AGENT_ID if os.geteuid() == 0 else os.geteuid()


def give(paths: Iterable[Path], *, skip: Iterable[Path] = ()) -> None:
    """Make `paths` (and everything under them but `skip`) the sandbox user's, so that it
    can write them: only when we are root (otherwise they are ours, and the sandbox's)."""
    if os.geteuid() != 0:
        return
    uid = host_id()
    skipped = {Path(p) for p in skip}
    for root in paths:
        if os.lstat(root).st_uid == uid:
            continue  # given already: everything in it is the sandbox user's or capabench's
        os.lchown(root, uid, uid)
        for parent, dirs, files in os.walk(root):
            here = Path(parent)
            dirs[:] = [d for d in dirs if here / d not in skipped]
            for name in [*dirs, *files]:
                os.lchown(here / name, uid, uid)


def bwrap_argv(
    argv: list[str],
    *,
    writable: Iterable[Path],
    chdir: Path,
    expose: Iterable[Path] = (),
    readonly: Iterable[Path] = (),
    binds: Iterable[tuple[Path, str]] = (),
    writable_at: Iterable[tuple[Path, str]] = (),
    hide: Iterable[Path] = (),
    network: bool = False,
) -> list[str]:
    """`argv` inside the agent's sandbox (module docstring). `writable`: bound read-write
    at their own paths (they must be the sandbox user's: `give`); `writable_at`: (host
    path, path inside) read-write, mounted last (a graded checkout over an environment's
    installed one); `readonly`: paths under them kept read-only (a grader's .git);
    `expose`: host paths readable at their own paths; `binds`: (host path, path inside)
    read-only, for capabench's helpers; `hide`: masked besides `private_paths()`.
    `network`: kept for callers of the old signature; only False (the sandbox always has a
    network namespace of its own: a CLI's way out is swe.egress). The writable paths are
    given to the sandbox user here (`give`), the read-only ones under them left alone."""
    if network:
        raise ValueError(
            "no sandbox shares the host's network: reach an endpoint through swe.egress"
        )
    bwrap = bwrap_binary() or "bwrap"
    writable = [Path(p) for p in writable]
    readonly = [Path(p) for p in readonly if Path(p).exists()]
    binds = [(Path(src), dest) for src, dest in binds]
    writable_at = [(Path(src), dest) for src, dest in writable_at]
    give([*writable, *(src for src, _ in writable_at)], skip=readonly)
    prefix, _ = base_python()
    exposed = [*expose, prefix] if os.geteuid() == 0 else list(expose)
    wrap = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    wrap += ["--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    # The private /tmp first: an exposed path under the host's /tmp shows through it.
    wrap += ["--perms", "1777", "--tmpfs", "/tmp", "--perms", "1777", "--tmpfs", "/var/tmp"]
    wrap += root_mounts(exposed, [*private_paths(), *hide])
    wrap += ["--proc", "/proc", "--dev", "/dev"]
    for path in writable:
        wrap += ["--bind", str(path), str(path)]
    for path in readonly:
        wrap += ["--ro-bind", str(path), str(path)]
    for src, dest in binds:
        wrap += ["--ro-bind", str(src), dest]
    for src, dest in writable_at:
        wrap += ["--bind", str(src), dest]
    # Host directories (they exist, with the host's modes); /tmp is a tmpfs, made here.
    mounted = [*SYSTEM_RO, "/proc", "/dev", *map(str, writable)]
    mounted += [str(Path(p).resolve()) for p in exposed if os.path.exists(p)]
    shown = [Path(p).resolve() for p in exposed if os.path.exists(p)]
    given = links_on_the_way(exposed, [Path(p) for p in SYSTEM_RO])  # and the links on the way
    wrap += opened_parents([*writable, *shown, *given, *(Path(d) for _, d in binds)], mounted)
    inner = ["--unshare-user", "--disable-userns", "--uid", str(AGENT_ID), "--gid", str(AGENT_ID)]
    if os.geteuid() == 0:
        # Root keeps only what switching to the unprivileged host uid takes; the switch is
        # the first thing that runs inside, and a second bwrap (unprivileged now) adds the
        # user namespace: uid 1000 inside is HOST_AGENT_ID outside, not root.
        wrap += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        wrap += ["--chdir", str(chdir), "--"]
        _, python = base_python()
        uid = str(host_id())
        wrap += [
            str(python),
            "-I",
            "-S",
            "-c",
            DROP,
            uid,
            bwrap,
            "--bind",
            "/",
            "/",
            "--dev",
            "/dev",
        ]
        wrap += [*inner, "--die-with-parent", "--chdir", str(chdir), "--", *argv]
        return wrap
    return [*wrap, *inner, "--chdir", str(chdir), "--", *argv]


# Switch to an unprivileged uid and gid (no supplementary groups), then exec the rest.
DROP = (
    "import os, sys; i = int(sys.argv[1]); os.setgroups([]); os.setresgid(i, i, i); "
    "os.setresuid(i, i, i); os.execv(sys.argv[2], sys.argv[2:])"
)


def agent_env(
    *, home: Path, tmp: Path, path: Iterable[str | Path] = (), extra: dict[str, str] | None = None
) -> dict[str, str]:
    """An agent's whole environment: nothing of the host's but locale and certificates.
    A TMPDIR apart from HOME: Codex won't install its helper commands under it."""
    env = {k: os.environ[k] for k in AGENT_PASSTHROUGH if k in os.environ}
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
    """`argv` contained (the grader's test runs: repositories' own test code): the agents'
    sandbox with `work` and `tmp` writable and given to the sandbox user, `work/.git`
    read-only, capabench's interpreter visible, no network. Or `argv` as it is where
    bubblewrap doesn't work; and which it was. Run it with `limits` as preexec_fn."""
    if not bwrap_available()[0]:
        return argv, "process"
    return _in_checkout(argv, Path(work), Path(tmp)), "bwrap"


def _in_checkout(argv: list[str], work: Path, tmp: Path, expose: Iterable[Path] = ()) -> list[str]:
    """`argv` in the sandbox with `work` and `tmp` writable and the sandbox user's, `work/.git`
    read-only, capabench's interpreter (and `expose`) readable."""
    give([tmp, work], skip=[work / ".git"])
    return bwrap_argv(
        argv,
        writable=[tmp, work],
        readonly=[work / ".git"],
        chdir=work,
        expose=[*interpreter_roots(), *expose],
    )


def run_contained(
    argv: list[str],
    *,
    work: Path,
    tmp: Path,
    env: dict[str, str],
    timeout_s: float,
    expose: Iterable[Path] = (),
) -> tuple[int | None, str]:
    """Run `argv` in the sandbox (`sandboxed`'s shape; `expose`: more host paths to read)
    under rlimits in its own session; (exit code, or None on a timeout, and the combined
    output). The sandbox must work (`require_bwrap`)."""
    require_bwrap()
    work = Path(work)
    wrapped = _in_checkout(argv, work, Path(tmp), expose)
    return run_limited(wrapped, cwd=work, env=env, timeout_s=timeout_s)


def run_limited(
    argv: list[str], *, cwd: Path, env: dict[str, str], timeout_s: float
) -> tuple[int | None, str]:
    """Run `argv` under rlimits in its own session, no stdin; (exit code, or None when it
    ran past `timeout_s` and its whole group was killed, and the combined output)."""
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        preexec_fn=limits,
    )
    try:
        out, _ = proc.communicate(timeout=timeout_s)
        return proc.returncode, out.decode(errors="replace")
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out.decode(errors="replace")
