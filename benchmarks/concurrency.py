"""Concurrency efficiency against the fake OpenAI-compatible server (in a process of its
own, as a remote endpoint would be) with injected latency: achieved model calls per
second over the ideal, concurrency / latency.

Each dialogue shape is measured on its own: the server asks N clarifying questions, then
answers with the session's reference. With N = 0 every model call is followed by a judge
run (the most CPU per call); real assistants ask and revise, so calls outnumber judge runs.
The machine's CPU use is printed with each figure, to show what binds when it falls short.
Two figures: over the whole run (worker start-up included), and over its saturated part
(from the first session's start to the last one's: `concurrency` sessions are in flight; the ramp-down after it can't reach the ideal).

    .venv/bin/python benchmarks/concurrency.py [--latency 0.2] [--concurrency 32] [--sessions 300] [--conditions none,same-user,shuffled] [--asks 0,3] [--processes 2] [--executor local|ray]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from capabench.benchmark import default_benchmark_path
from capabench.build.default import default_benchmark
from capabench.judge import SandboxPool
from capabench.models import ModelOptions
from capabench.runner import RunConfig, Runner


def busy_ticks() -> tuple[int, int]:
    """(busy, total) CPU ticks of the whole machine, from /proc/stat."""
    fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def process_ticks(pid: int) -> int:
    """User + system CPU ticks of one process, from /proc/PID/stat."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def measure(args, bench, pool, asks: int) -> None:
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "capabench.testing.fake_openai",
            "--references",
            str(default_benchmark_path(0)),
            "--latency",
            str(args.latency),
            "--asks",
            str(asks),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    base_url = server.stdout.readline().strip()
    starts: list[float] = []  # when each session started: its result's arrival less its duration
    try:
        with tempfile.TemporaryDirectory() as tmp:
            options = ModelOptions(
                base_url=base_url, concurrency=args.concurrency, timeout_s=30, cache=False
            )
            config = RunConfig(
                model="openai/fake",
                conditions=args.conditions.split(","),
                limit=args.sessions,
                concurrency=args.concurrency,
                options=options,
                processes=args.processes,
                executor=args.executor,
                ray_address=args.ray_address,
            )
            runner = Runner(config, bench, tmp, pool=pool)
            busy0, total0 = busy_ticks()
            server0 = process_ticks(server.pid)
            start = time.monotonic()
            results = runner.run(lambda r: starts.append(time.monotonic() - r.duration_s))
            wall = time.monotonic() - start
            busy1, total1 = busy_ticks()
            server_ms = (process_ticks(server.pid) - server0) / os.sysconf("SC_CLK_TCK") * 1000
    finally:
        server.stdin.close()
        sent = json.loads(server.stdout.readline())
        server.wait()
    calls = sum(sum(t.role == "assistant" for t in r.turns) for r in results)
    judged = sum(sum(t.verdict is not None for t in r.turns) for r in results)
    ideal = args.concurrency / args.latency
    achieved = calls / wall
    cpu_ms = (busy1 - busy0) / os.sysconf("SC_CLK_TCK") * 1000
    print(
        f"\n{asks} question(s) before the reference: {len(results)} sessions, {calls} model calls, "
        f"{judged} judge runs, {sum(r.solved for r in results)} solved, wall {wall:.1f} s"
    )
    # Saturated: until the last session starts, `concurrency` sessions are always in flight;
    # after it, fewer remain and the ideal no longer applies (the run's ramp-down).
    # Its start is the first session's (worker processes take a moment to start).
    first, last = min(starts), max(starts)
    saturated = sum(first <= t <= last for t in sent) / (last - first)
    print(
        f"  ideal {ideal:.1f} calls/s; whole run {achieved:.1f} calls/s: efficiency {achieved / ideal:.2f}; "
        f"saturated ({last - first:.1f} s) {saturated:.1f} calls/s: efficiency {saturated / ideal:.2f}"
    )
    print(
        f"  machine CPU busy {(busy1 - busy0) / (total1 - total0):.0%} of {os.cpu_count()} cores "
        f"(the fake server's share {server_ms / (cpu_ms or 1):.0%}); harness + judge "
        f"{(cpu_ms - server_ms) / calls:.1f} ms CPU per model call, "
        f"{(cpu_ms - server_ms) / len(results):.1f} ms per session"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--conditions", default="none,same-user,shuffled")
    parser.add_argument("--asks", default="0,3", help="comma-separated numbers of questions")
    parser.add_argument(
        "--processes", type=int, default=2, help="runner worker processes (1: threads only)"
    )
    parser.add_argument("--executor", default="local", help="local or ray (then --processes 1)")
    parser.add_argument("--ray-address", help="an existing Ray cluster (default: a local one)")
    args = parser.parse_args()
    pool = SandboxPool()  # for building the benchmark, and the judge with --processes 1
    try:
        bench = default_benchmark(0, pool=pool)
        print(
            f"latency {args.latency * 1000:.0f} ms, concurrency {args.concurrency}, "
            f"runner processes {args.processes}, executor {args.executor}, judge {pool.isolation}"
        )
        for asks in (int(x) for x in args.asks.split(",")):
            measure(args, bench, pool, asks)
    finally:
        pool.close()


if __name__ == "__main__":
    main()
