"""Where capabench keeps what it can rebuild: $CAPABENCH_CACHE, else ~/.cache/capabench."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    return Path(os.environ.get("CAPABENCH_CACHE", Path.home() / ".cache" / "capabench"))
