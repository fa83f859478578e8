"""The README's keyless quick start, run as written (paths and the port made local)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _block() -> str:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("<!-- quickstart:")
    return re.search(r"```bash\n(.*?)```", readme[start:], re.S).group(1)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_readme_quick_start_runs_as_written(built, tmp_path):
    from capabench.benchmark import default_benchmark_path, write_benchmark

    bench, _ = built
    if not default_benchmark_path(0).exists():  # the commands use the cached default benchmark
        write_benchmark(bench, default_benchmark_path(0))
    script = (
        _block()
        .replace(".venv/bin/", f"{Path(sys.executable).parent}/")
        .replace("8765", str(_free_port()))
    )
    done = subprocess.run(
        ["bash", "-e", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert (tmp_path / "report" / "quick" / "report.html").is_file()
    assert "baseline/history-reader" in done.stdout and "nothing was measured" not in done.stderr
    results = (tmp_path / "runs" / "quick-server" / "results.jsonl").read_text().splitlines()
    assert len(results) == 10 and all('"status":"completed"' in line for line in results)
