"""Where capabench keeps what it can rebuild ($CAPABENCH_CACHE, else ~/.cache/capabench), and
the file-system steps every layer takes the same way: a lock, an atomic write."""

from __future__ import annotations

import fcntl
import os
import uuid
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


def write_atomically(
    path: Path, data: bytes | str, *, durable: bool = False, exclusive: bool = False
) -> None:
    """Whole or not at all: a reader, or what a crash leaves, finds the old file or the new
    one, never half of one. `durable`: on disk before it replaces the old (fsync). `exclusive`:
    a file already there stays as it is (FileExistsError). Made with the umask's mode, as a
    plain write would be (mkstemp's 0600 would outlive the rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(staging, "xb") as handle:
            handle.write(data.encode() if isinstance(data, str) else data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if exclusive:
            os.link(staging, path)  # unlike a rename, fails where the file exists
            staging.unlink()
        else:
            os.replace(staging, path)
    except BaseException:
        staging.unlink(missing_ok=True)
        raise
