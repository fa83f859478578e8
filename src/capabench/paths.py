"""Where capabench keeps what it can rebuild: $CAPABENCH_CACHE, else ~/.cache/capabench."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def cache_dir() -> Path:
    return Path(os.environ.get("CAPABENCH_CACHE", Path.home() / ".cache" / "capabench"))


def file_in_the_way(directory: Path) -> Path | None:
    """The file that stands where `directory` or one of its parents would have to be."""
    return next((p for p in [directory, *directory.parents] if p.exists() and not p.is_dir()), None)


@contextmanager
def one_at_a_time(lock: Path) -> Iterator[None]:
    """Held by one process at a time (an exclusive lock on the file `lock`, made with its
    folder): a builder of something cached takes it, and one that waited finds it built."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
