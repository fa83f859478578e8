"""The HTML report with its session viewer at 900 sessions (the history-reader over the 300
held-out sessions x none/same-user/shuffled): the page's size, and the time headless
Chromium takes to load it and run its scripts (median of three, Chromium's own start
included; the start alone is timed on an empty page and printed too).

    .venv/bin/python benchmarks/report_viewer.py [--model baseline/history-reader]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from capabench.build.default import default_benchmark
from capabench.judge import SandboxPool
from capabench.report import load_runs
from capabench.report.render import write_report
from capabench.runner import RunConfig, Runner
from capabench.testing.browser import chromium


def load_seconds(page: Path, profile: Path) -> float:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(
            [*chromium(profile), "--dump-dom", page.resolve().as_uri()],
            capture_output=True,
            timeout=120,
            check=True,
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="baseline/history-reader")
    args = parser.parse_args()
    pool = SandboxPool()
    try:
        bench = default_benchmark(0, pool=pool)
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            config = RunConfig(model=args.model, conditions=["none", "same-user", "shuffled"])
            Runner(config, bench, root / "run", pool=pool).run()
            runs = load_runs([root / "run"])
            write_report(runs, root / "report")
            page = root / "report" / "report.html"
            empty = root / "empty.html"
            empty.write_text("<!doctype html><title>x</title>")
            n = len(runs[0].results)
            size = page.stat().st_size / 1e6
            base = load_seconds(empty, root / "profile")
            full = load_seconds(page, root / "profile")
            print(f"{n} sessions: report.html {size:.2f} MB")
            print(
                f"headless Chromium: {full:.2f} s to load it and run its scripts ({base:.2f} s for an empty page: {full - base:.2f} s the page's own)"
            )
    finally:
        pool.close()


if __name__ == "__main__":
    main()
