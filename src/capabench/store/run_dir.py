"""A run directory survives kill -9: each result is one line, written with one append
before it counts as done (fsynced at least once a second); a torn last line is dropped on
load; resume skips finished keys."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

from pydantic import BaseModel

from capabench.paths import file_in_the_way, write_atomically
from capabench.records import SessionRun
from capabench.store.manifest import RunManifest

_OURS = {"blank-control", "results.jsonl"}  # what a run directory may hold before its manifest


class RunDirError(ValueError):
    pass


class RunStore:
    """`results.jsonl` holds SessionRun lines; other record kinds (the blank control) get
    a file of their own in the same run directory."""

    def __init__(
        self, path: str | Path, *, name: str = "results", record: type[BaseModel] = SessionRun
    ) -> None:
        self.path = Path(path)
        self.results_path = self.path / f"{name}.jsonl"
        self.record = record
        self._lock = threading.Lock()
        self._fd: int | None = None

    @property
    def manifest_path(self) -> Path:
        return self.path / "manifest.json"

    def manifest(self) -> dict:
        if self.path.exists() and not self.path.is_dir():
            raise RunDirError(f"{self.path} is a file, not a run directory")
        if not self.manifest_path.is_file():
            raise RunDirError(f"{self.path}: not a run directory (no manifest.json)")
        try:
            data = json.loads(self.manifest_path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise RunDirError(
                f"{self.manifest_path} is not valid JSON ({exc}); restore it or start another --run-dir"
            ) from None
        if not isinstance(data, dict) or "model" not in data:
            raise RunDirError(
                f"{self.manifest_path} is not a run manifest (a benchmark directory? use it with --benchmark)"
            )
        return data

    def check(self, manifest: RunManifest | dict) -> dict:
        """The manifest a resumed run will have; refuses a setting that changes a result
        (naming it and its flag). Nothing is written. A resumed run's conditions, sessions
        (--limit picks a prefix) and epochs may grow."""
        if isinstance(manifest, RunManifest):
            manifest = manifest.model_dump(mode="json")
        if (blocking := file_in_the_way(self.path)) is not None:
            raise RunDirError(f"{self.path}: {blocking} is a file; choose another --run-dir")
        if not self.manifest_path.is_file():
            if self.path.is_dir() and {p.name for p in self.path.iterdir()} - _OURS:
                raise RunDirError(
                    f"{self.path} is not empty and not a run directory; choose a new or empty --run-dir"
                )
            return manifest
        old = self.manifest()
        for field, flag in RunManifest.identity().items():
            if old.get(field) != manifest.get(field):
                raise RunDirError(
                    f"{self.path}: started with {field}={old.get(field)!r}, not {manifest.get(field)!r} "
                    f"({flag}); resume with the same setting or use another --run-dir"
                )
        grown = {
            "conditions": sorted(
                set(old.get("conditions", [])) | set(manifest.get("conditions", []))
            ),
            "epochs": max(old.get("epochs", 1), manifest.get("epochs", 1)),
            "limit": None
            if None in (old.get("limit"), manifest.get("limit"))
            else max(old["limit"], manifest["limit"]),
        }
        return {**old, **manifest, **grown}

    def open(self, manifest: RunManifest | dict) -> None:
        """Create the run, or check that a resumed one was started the same way."""
        manifest = self.check(manifest)
        self.path.mkdir(parents=True, exist_ok=True)
        self._drop_torn_tail()
        write_atomically(self.manifest_path, json.dumps(manifest, indent=2, sort_keys=True) + "\n")

    def _drop_torn_tail(self) -> None:
        """A kill mid-write can leave a last line without its newline: cut it, or the next
        append would glue onto it and be lost too."""
        if not self.results_path.is_file():
            return
        data = self.results_path.read_bytes()
        keep = data.rfind(b"\n") + 1
        if keep < len(data):
            with self.results_path.open("r+b") as fh:
                fh.truncate(keep)

    SYNC_EVERY_S = 1.0

    def append(self, *results: BaseModel) -> None:
        """One write for all of them, in the kernel before any counts as done: a killed or
        crashed run loses nothing. fsync (what a power cut needs) at most once a second and
        at close: one per result made quick sessions wait on the disk (tens of ms each)."""
        data = b"".join((r.model_dump_json() + "\n").encode() for r in results)
        with self._lock:
            if self._fd is None:
                self._fd = os.open(self.results_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
                self._synced = 0.0
            os.write(self._fd, data)
            if time.monotonic() - self._synced >= self.SYNC_EVERY_S:
                os.fsync(self._fd)
                self._synced = time.monotonic()

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.fsync(self._fd)
                os.close(self._fd)
                self._fd = None

    def results(self, *, warn=None) -> list:
        """The newest result per key. A line that doesn't parse (torn by a crash, or damaged)
        is skipped and reported to `warn` with its file and line number; running the run
        again replays that session."""
        if not self.results_path.is_file():
            return []
        latest: dict[str, BaseModel] = {}
        lines = self.results_path.read_bytes().split(b"\n")
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                result = self.record.model_validate_json(line)
            except ValueError:
                if warn is not None:
                    warn(
                        f"{self.results_path}:{number}: not a valid result, skipped (running the run again replays it)"
                    )
                continue
            latest[result.key] = result
        return list(latest.values())

    def done(self, results=None) -> set[str]:
        """Keys with a completed result (of `results` when given, else of the file);
        infrastructure errors are tried again."""
        return {
            r.key
            for r in (self.results() if results is None else results)
            if r.status == "completed"
        }
