"""A run directory survives kill -9: each result is one line, written with one append and
fsynced before the next; a torn last line is dropped on load; resume skips finished keys."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from pydantic import BaseModel

from capabench.records import SessionRun

# Settings that must match for a resumed run to mean the same thing.
_IDENTITY = ("model", "benchmark_hash", "seed", "user_model", "user_matcher", "budget")


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
        if not self.manifest_path.is_file():
            raise RunDirError(f"{self.path}: not a run directory (no manifest.json)")
        return json.loads(self.manifest_path.read_text())

    def open(self, manifest: dict) -> None:
        """Create the run, or check that a resumed one was started the same way."""
        self.path.mkdir(parents=True, exist_ok=True)
        if self.manifest_path.is_file():
            old = self.manifest()
            for field in _IDENTITY:
                if old.get(field) != manifest.get(field):
                    raise RunDirError(
                        f"{self.path}: started with {field}={old.get(field)!r}, not {manifest.get(field)!r}; use another --run-dir"
                    )
            merged = {
                **old,
                "conditions": sorted(
                    set(old.get("conditions", [])) | set(manifest.get("conditions", []))
                ),
            }
            manifest = {**manifest, **merged}
        self._drop_torn_tail()
        tmp = self.manifest_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, self.manifest_path)

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

    def append(self, *results: BaseModel) -> None:
        """One write and one fsync for all of them (group commit): sessions finishing together
        don't queue behind each other's fsync."""
        data = b"".join((r.model_dump_json() + "\n").encode() for r in results)
        with self._lock:
            if self._fd is None:
                self._fd = os.open(self.results_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            os.write(self._fd, data)
            os.fsync(self._fd)  # on disk before any of them counts as done

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def results(self) -> list:
        """The newest result per key; a line torn by a crash is ignored."""
        if not self.results_path.is_file():
            return []
        latest: dict[str, BaseModel] = {}
        for line in self.results_path.read_bytes().split(b"\n"):
            if not line.strip():
                continue
            try:
                result = self.record.model_validate_json(line)
            except ValueError:
                continue  # the torn tail of a killed write
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
