"""Harness overhead: the oracle over all 300 held-out sessions under three conditions
(the model costs nothing, so this is the harness: history, user, judge, store).

    .venv/bin/python benchmarks/run_overhead.py
"""

from __future__ import annotations

import tempfile
import time

from capabench.build.default import default_benchmark
from capabench.judge import SandboxPool
from capabench.runner import RunConfig, Runner


def main() -> None:
    pool = SandboxPool()
    bench = default_benchmark(0, pool=pool)
    with tempfile.TemporaryDirectory() as tmp:
        config = RunConfig(
            model="baseline/oracle",
            conditions=["none", "same-user", "shuffled"],
            concurrency=pool.size,
        )
        start = time.perf_counter()
        results = Runner(config, bench, tmp, pool=pool).run()
        wall = time.perf_counter() - start
    pool.close()
    print(
        f"sessions: {len(results)} (300 held-out x 3 conditions), all solved: {all(r.solved for r in results)}"
    )
    print(
        f"wall time: {wall:.1f} s; {len(results) / wall:.1f} sessions/s; workers: {pool.size} ({pool.isolation})"
    )


if __name__ == "__main__":
    main()
