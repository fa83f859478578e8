"""The built benchmark: its record, its directory (write, read, verify) and where the default
one is cached. Low in the house on purpose: whatever plays, studies or serves sessions reads
a benchmark through here, and only `capabench.build` knows how one is made."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from capabench.paths import cache_dir, file_in_the_way
from capabench.records import Cell, Manifest, Session, Task, User

# The module whose imports, followed to the end, are everything that shapes a built benchmark.
BUILD_ENTRY = "capabench.build.builder"


@dataclass
class Benchmark:
    manifest: Manifest
    cells: list[Cell]
    users: list[User]
    sessions: list[Session]
    tasks: list[Task] | None = None  # a custom pool (tasks.jsonl); None: HumanEval

    def task_pool(self) -> list[Task]:
        """The tasks its sessions come from (what the reference policies spy on)."""
        if self.tasks is not None:
            return self.tasks
        from capabench.tasks import load_humaneval

        return load_humaneval()

    def session(self, session_id: str) -> Session:
        for s in self.sessions:
            if s.id == session_id:
                return s
        raise KeyError(session_id)


FILES = ("cells.jsonl", "users.jsonl", "sessions-history.jsonl", "sessions-heldout.jsonl")
TASKS_FILE = "tasks.jsonl"  # only a benchmark over a custom task pool has one


class BenchmarkDirError(ValueError):
    pass


def _jsonl(records) -> bytes:
    return "".join(r.model_dump_json() + "\n" for r in records).encode()


def check_out_dir(out: str | Path) -> None:
    """`out` may be new, empty, or a benchmark directory holding only capabench's files (it
    is then replaced); anything else is refused before any work: capabench never deletes
    what it didn't write."""
    out = Path(out)
    if (blocking := file_in_the_way(out)) is not None:
        raise BenchmarkDirError(
            f"{out}: {blocking} is a file, not a directory; choose another --out"
        )
    if not out.exists():
        return
    present = {p.name for p in out.iterdir()}
    if not present:
        return
    ours = set(FILES) | {"manifest.json", TASKS_FILE}
    if "manifest.json" not in present:
        raise BenchmarkDirError(
            f"{out} is not empty and not a benchmark directory ({len(present)} entries, e.g. "
            f"{sorted(present)[0]!r}); choose a new or empty directory for --out"
        )
    foreign = sorted(present - ours)
    if foreign:
        raise BenchmarkDirError(
            f"{out} holds files capabench didn't write ({', '.join(foreign[:3])}); "
            "move them or choose another --out (capabench replaces only its own files)"
        )


def write_benchmark(bench: Benchmark, out: str | Path) -> Manifest:
    """Write atomically: a half-written directory never replaces a good one, and nothing
    capabench didn't write is ever replaced (see check_out_dir)."""
    out = Path(out)
    check_out_dir(out)
    blobs = {
        "cells.jsonl": _jsonl(bench.cells),
        "users.jsonl": _jsonl(bench.users),
        "sessions-history.jsonl": _jsonl(s for s in bench.sessions if s.split == "history"),
        "sessions-heldout.jsonl": _jsonl(s for s in bench.sessions if s.split == "heldout"),
    }
    if bench.tasks is not None:
        blobs[TASKS_FILE] = _jsonl(bench.tasks)
    hashes = {name: hashlib.sha256(data).hexdigest() for name, data in blobs.items()}
    content = hashlib.sha256(
        "".join(f"{n}:{h}\n" for n, h in sorted(hashes.items())).encode()
    ).hexdigest()
    manifest = bench.manifest.model_copy(update={"files": hashes, "content_hash": content})
    blobs["manifest.json"] = (
        json.dumps(manifest.model_dump(mode="json"), indent=2, sort_keys=True) + "\n"
    ).encode()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    staging.chmod(0o755)  # mkdtemp's 0700 would outlive the rename
    for name, data in blobs.items():
        (staging / name).write_bytes(data)
    if out.exists():
        shutil.rmtree(out)
    os.replace(staging, out)
    bench.manifest = manifest
    return manifest


def load_benchmark(path: str | Path, *, verify: bool = True) -> Benchmark:
    path = Path(path)
    if not (path / "manifest.json").is_file():
        raise BenchmarkDirError(f"{path}: not a benchmark directory (no manifest.json)")
    try:
        raw = json.loads((path / "manifest.json").read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BenchmarkDirError(f"{path / 'manifest.json'} is not valid JSON ({exc})") from None
    if isinstance(raw, dict) and "model" in raw and "conditions" in raw:
        raise BenchmarkDirError(
            f"{path} is a run directory, not a benchmark; `capabench report {path}` shows a run"
        )
    try:
        manifest = Manifest.model_validate(raw)
    except ValueError as exc:
        raise BenchmarkDirError(
            f"{path / 'manifest.json'} is not a benchmark manifest ({str(exc).splitlines()[0]})"
        ) from None
    if verify:
        for name in (*FILES, *([TASKS_FILE] if TASKS_FILE in manifest.files else [])):
            if not (path / name).is_file():
                raise BenchmarkDirError(f"{path / name} is missing; rebuild the benchmark")
            digest = hashlib.sha256((path / name).read_bytes()).hexdigest()
            if manifest.files.get(name) != digest:
                raise BenchmarkDirError(
                    f"{path / name}: content does not match the manifest's sha256"
                )

    def rows(name, model):
        return [
            model.model_validate_json(line)
            for line in (path / name).read_text().splitlines()
            if line
        ]

    sessions = rows("sessions-history.jsonl", Session) + rows("sessions-heldout.jsonl", Session)
    sessions.sort(key=lambda s: (s.cell, s.index))
    tasks = rows(TASKS_FILE, Task) if TASKS_FILE in manifest.files else None
    return Benchmark(
        manifest, rows("cells.jsonl", Cell), rows("users.jsonl", User), sessions, tasks
    )


def build_sources(root: Path | None = None) -> list[Path]:
    """Every file the build depends on: the modules `BUILD_ENTRY` imports, followed to the end
    (function-level imports too), and everything else inside their packages (data, the code
    the judge runs inside its sandbox), the top package's own siblings aside. `root`: the
    directory holding the `capabench` package (default: this one's)."""
    root = root or Path(__file__).resolve().parents[1]
    seen: set[str] = set()
    todo = [BUILD_ENTRY]
    while todo:
        name = todo.pop()
        path = _module_file(root, name)
        if name in seen or path is None:
            continue
        seen.add(name)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                todo += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                todo += [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(2, len(parts))]  # the packages above it
    files = {_module_file(root, n) for n in seen}
    for name in seen:
        package = root.joinpath(*name.split("."))
        if name != "capabench" and (package / "__init__.py").is_file():
            files |= {p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    return sorted(f for f in files if f is not None)


def _module_file(root: Path, name: str) -> Path | None:
    if name != "capabench" and not name.startswith("capabench."):
        return None
    base = root.joinpath(*name.split("."))
    for path in (base / "__init__.py", base.with_suffix(".py")):
        if path.is_file():
            return path
    return None


def outside_families() -> list[Path]:
    """The files of convention families an installed package registered (entry points): the
    builder chooses from them too, so they are part of what a build depends on."""
    import importlib

    from capabench.conventions import REGISTRY

    modules = {REGISTRY.origin(name) for name in REGISTRY}
    outside = {m for m in modules if m and m != "capabench" and not m.startswith("capabench.")}
    files = (getattr(importlib.import_module(m), "__file__", None) for m in sorted(outside))
    return [Path(f).resolve() for f in files if f]


def source_fingerprint(root: Path | None = None) -> str:
    """Changes whenever a file the build depends on changes: the default benchmark's cache key."""
    root = root or Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in build_sources(root):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    for path in outside_families():  # none unless a package adds one
        digest.update(str(path).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def default_benchmark_path(seed: int = 0) -> Path:
    return cache_dir() / "benchmarks" / f"capa-seed{seed}-{source_fingerprint()}"


def cached_default(seed: int = 0) -> Benchmark:
    """The default benchmark for `seed` as cached by an earlier build (`capabench build`, or
    any `capabench run` without --benchmark, builds it)."""
    path = default_benchmark_path(seed)
    if not (path / "manifest.json").is_file():
        raise BenchmarkDirError(
            f"the default benchmark (seed {seed}) is not built yet: `capabench build --out DIR` and "
            "pass DIR, or let any `capabench run` build it first"
        )
    return load_benchmark(path)
