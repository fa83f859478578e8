"""Where the Codex CLI is, and which version: `$CAPABENCH_CODEX`, else `codex` on PATH, else
the copy `scripts/setup.sh test` installs under capabench's tools folder (`$CAPABENCH_TOOLS`,
default ~/.cache/capabench/tools)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

MIN_VERSION = (0, 146, 0)  # older CLIs are rejected server-side for gpt-5.6 models


def tools_dir() -> Path:
    # Not under $CAPABENCH_CACHE, which runs and tests point elsewhere at will: an installed
    # tool is found wherever the cache is.
    return Path(os.environ.get("CAPABENCH_TOOLS") or Path.home() / ".cache" / "capabench" / "tools")


def codex_binary() -> str:
    installed = tools_dir() / "codex" / "node_modules" / ".bin" / "codex"
    found = (
        os.environ.get("CAPABENCH_CODEX")
        or shutil.which("codex")
        or (str(installed) if installed.exists() else None)
    )
    if not found:
        raise ValueError(
            "the Codex CLI is not installed: npm install -g @openai/codex (or set CAPABENCH_CODEX; "
            f"scripts/setup.sh test installs it under {installed.parent.parent.parent})"
        )
    return found


def codex_version(binary: str) -> tuple[int, ...]:
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60).stdout
    match = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
    if not match:
        raise ValueError(f"could not read the Codex CLI version from {out!r}")
    return tuple(int(x) for x in match.groups())


def check_version(version: tuple[int, ...]) -> None:
    if version < MIN_VERSION:
        raise ValueError(
            f"codex-cli {'.'.join(map(str, version))} is older than "
            f"{'.'.join(map(str, MIN_VERSION))}: npm install -g @openai/codex@latest"
        )
