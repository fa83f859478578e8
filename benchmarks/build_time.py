"""Build and validation time of the 600-session benchmark on this machine.

.venv/bin/python benchmarks/build_time.py [--seed 0]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from capabench.benchmark import load_benchmark, write_benchmark
from capabench.build.builder import build
from capabench.build.validate import validate
from capabench.judge import SandboxPool


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    pool = SandboxPool()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        bench = build(args.seed, pool=pool)
        manifest = write_benchmark(bench, Path(tmp) / "capa")
        built = time.perf_counter() - start
        start = time.perf_counter()
        report = validate(load_benchmark(Path(tmp) / "capa"), pool=pool)
        checked = time.perf_counter() - start
    pool.close()
    c = manifest.counts
    print(
        f"sessions {c['sessions']} in {c['cells']} cells; drafts rejected by the validators while building: {c['rejected_drafts']}"
    )
    print(f"build (spy, compose, validate drafts, resolve histories, write): {built:6.1f} s")
    print(
        f"validation of the written benchmark ({report.sessions_checked} sessions):  {checked:6.1f} s"
    )
    print(
        f"total: {built + checked:6.1f} s; violations: {len(report.problems)}; workers: {pool.size} ({pool.isolation})"
    )


if __name__ == "__main__":
    main()
