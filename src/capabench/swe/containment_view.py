"""What a contained agent sees: a read-only root of the system's programs and libraries
(/usr, /etc, the /bin and /lib links), the paths the caller exposes (the agent's runtime),
and, masked even inside those, capabench's own package tree and cache."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

from capabench.paths import cache_dir

SYSTEM_RO = ("/usr", "/etc")  # read-only, whole
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


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


def base_python() -> tuple[Path, Path]:
    """(installation prefix, interpreter) of the Python under capabench's venv: what runs
    capabench's helpers inside (with -I -S: no site-packages, no capabench)."""
    prefix = Path(sys.base_prefix).resolve()
    exe = prefix / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    return prefix, exe if exe.exists() else Path(sys.executable).resolve()


def private_paths() -> list[Path]:
    """What no agent may read even where an exposed directory holds it: capabench's own
    package tree (the bundled instances' gold patches are in it) and its cache (datasets,
    tools' state)."""
    import capabench

    paths = [Path(p).resolve() for p in capabench.__path__]
    return [*paths, cache_dir().resolve()]


def root_mounts(expose: Iterable[Path], hide: Iterable[Path]) -> list[str]:
    """The read-only part of the root: the system, the exposed paths, the hidden ones
    masked; in depth order, so that a mask covers what a shallower bind shows and a deeper
    exposure shows through a mask."""
    ops: list[tuple[int, int, list[str]]] = []
    visible = [Path(p) for p in SYSTEM_RO if os.path.isdir(p)]
    for path in SYSTEM_LINKS:
        if os.path.islink(path):
            ops.append((1, 0, ["--symlink", os.readlink(path), path]))
        elif os.path.isdir(path):
            visible.append(Path(path))
    shown = {Path(p).resolve() for p in expose if os.path.exists(p)}
    shown = {p for p in shown if not any(p != q and p.is_relative_to(q) for q in shown)}
    visible += [p for p in shown if not any(p.is_relative_to(v) for v in visible)]
    for path in visible:
        ops.append((len(path.parts), 0, ["--ro-bind", str(path), str(path)]))
    for path in links_on_the_way(expose, visible):
        ops.append((len(path.parts), 2, ["--symlink", os.path.realpath(path), str(path)]))
    for path in {Path(p).resolve() for p in hide}:
        if any(path != v and path.is_relative_to(v) for v in visible) and path.is_dir():
            ops.append((len(path.parts), 1, ["--tmpfs", str(path), "--remount-ro", str(path)]))
    return [arg for _, _, args in sorted(ops, key=lambda o: (o[0], o[1])) for arg in args]


def links_on_the_way(paths: Iterable[Path], visible: list[Path]) -> set[Path]:
    """The symbolic links on the way to exposed paths (a venv reached through a linked
    directory), made inside so that the path as given works there too."""
    links = set()
    for path in map(Path, paths):
        for i in range(2, len(path.parts) + 1):
            part = Path(*path.parts[:i])
            if any(part.is_relative_to(v) for v in visible):
                break
            if part.is_symlink():
                links.add(part)
                break
    return links


def opened_parents(dests: Iterable[Path], mounted: Iterable[Path]) -> list[str]:
    """Directories bwrap makes on its way to a mount point copy the host's modes (a
    0700 /root would lock the agent out of what is exposed under it): opened to 0755. Only
    directories that are no mount's, and show nothing (they hold only mount points)."""
    mounts = [Path(m) for m in mounted]
    made = set()
    for dest in dests:
        for parent in Path(dest).parents:
            if str(parent) in ("/", "/tmp", "/var/tmp") or any(
                parent.is_relative_to(m) for m in mounts
            ):
                continue
            made.add(parent)
    return [
        arg for p in sorted(made, key=lambda p: len(p.parts)) for arg in ("--chmod", "0755", str(p))
    ]
