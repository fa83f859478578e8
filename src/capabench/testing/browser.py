"""Reading a self-contained HTML page as a browser renders it (headless Chromium), for the
tests of the report and the dashboard."""

from __future__ import annotations

import subprocess
from pathlib import Path


def chromium(profile: Path) -> list[str]:
    """Headless Chromium's command line, with a profile of its own."""
    return ["chromium", "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}"]


def dump_dom(page: Path, profile: Path) -> str:
    """The page's DOM after its scripts ran."""
    return subprocess.run(
        [*chromium(profile), "--dump-dom", page.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
