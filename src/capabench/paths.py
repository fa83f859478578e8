"""Where capabench keeps what it can rebuild: $CAPABENCH_CACHE, else ~/.cache/capabench."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    return Path(os.environ.get("CAPABENCH_CACHE", Path.home() / ".cache" / "capabench"))


def file_in_the_way(directory: Path) -> Path | None:
    """The file that stands where `directory` or one of its parents would have to be."""
    return next((p for p in [directory, *directory.parents] if p.exists() and not p.is_dir()), None)
