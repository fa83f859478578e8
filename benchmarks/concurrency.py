"""Concurrency efficiency against the fake OpenAI-compatible server (in a process of its
own, as a remote endpoint would be) with injected latency: achieved model calls per
second over the ideal, concurrency / latency.

    .venv/bin/python benchmarks/concurrency.py [--latency 0.2] [--concurrency 32] [--sessions 300]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time

from capabench.build.export import default_benchmark, default_benchmark_path
from capabench.judge import SandboxPool
from capabench.models import ModelOptions
from capabench.runner import RunConfig, Runner


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument(
        "--workers", type=int, default=None, help="judge workers (default: cores + 1)"
    )
    args = parser.parse_args()
    pool = SandboxPool(args.workers)
    bench = default_benchmark(0, pool=pool)
    server = subprocess.Popen(
        [sys.executable, "-m", "capabench.testing.fake_openai", "--references", str(default_benchmark_path(0)),
         "--latency", str(args.latency)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    base_url = server.stdout.readline().strip()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            options = ModelOptions(base_url=base_url, concurrency=args.concurrency, timeout_s=30)
            config = RunConfig(model="openai/fake", conditions=["none"], limit=args.sessions,
                               concurrency=args.concurrency, options=options)  # fmt: skip
            runner = Runner(config, bench, tmp, pool=pool)
            start = time.perf_counter()
            results = runner.run()
            wall = time.perf_counter() - start
    finally:
        server.stdin.close()
        server.wait()
        pool.close()
    calls = sum(sum(t.role == "assistant" for t in r.turns) for r in results)
    ideal = args.concurrency / args.latency
    achieved = calls / wall
    print(
        f"sessions {len(results)}, model calls {calls}, solved {sum(r.solved for r in results)}, wall {wall:.1f} s"
    )
    print(f"latency {args.latency * 1000:.0f} ms, concurrency {args.concurrency}, judge workers {pool.size}: "
          f"ideal {ideal:.1f} calls/s, achieved {achieved:.1f} calls/s")  # fmt: skip
    print(f"efficiency: {achieved / ideal:.2f}")


if __name__ == "__main__":
    main()
