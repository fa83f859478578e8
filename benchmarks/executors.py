"""The executors' overhead: the oracle policy over the held-out sessions under three
conditions with `--executor local` (threads) and `--executor ray` (a local Ray instance,
then a two-node Ray test cluster on this machine), in sessions per second and as a ratio to
local; and the harness CPU per session turn (what bounds any executor on a core count).
Ray's start (and the actors' model and judge start) is timed apart from the play.

    .venv/bin/python benchmarks/executors.py [--sessions 300] [--conditions none,same-user,shuffled] [--concurrency 4]
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time

from capabench.build.default import default_benchmark
from capabench.judge import SandboxPool
from capabench.runner import RunConfig, Runner


def busy_ticks() -> int:
    """Busy CPU ticks of the whole machine, from /proc/stat."""
    fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return sum(fields) - fields[3] - fields[4]


def play(args, bench, pool, executor: str, address: str | None = None) -> tuple[float, int, int]:
    """(wall seconds of the play, sessions, turns), after one warm-up session per worker."""
    with tempfile.TemporaryDirectory() as tmp:
        config = RunConfig(
            model="baseline/oracle",
            conditions=args.conditions.split(","),
            limit=args.sessions,
            concurrency=args.concurrency,
            executor=executor,
            ray_address=address,
        )
        firsts: list[float] = []
        start = time.monotonic()
        results = Runner(config, bench, tmp, pool=pool).run(
            lambda r: firsts.append(time.monotonic())
        )
        # The play: from the first result (workers warm) to the last.
        wall = max(firsts) - min(firsts)
        print(
            f"  {executor}{' @ ' + address if address else ''}: whole {time.monotonic() - start:.1f} s"
        )
    return wall, len(results) - 1, sum(len(r.turns) for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--conditions", default="none,same-user,shuffled")
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    pool = SandboxPool()
    try:
        bench = default_benchmark(0, pool=pool)
        print(
            f"oracle, {args.sessions} sessions x {args.conditions}, concurrency {args.concurrency}, {os.cpu_count()} cores"
        )
        busy0 = busy_ticks()
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        wall, n, turns = play(args, bench, pool, "local")
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        busy1 = busy_ticks()
        local = n / wall
        tick = os.sysconf("SC_CLK_TCK")
        print(
            f"local: {local:.1f} sessions/s; harness CPU {1000 * (cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime) / turns:.2f} ms "
            f"per session turn in the runner's process, {1000 * (busy1 - busy0) / tick / turns:.2f} ms machine-wide (judge included)"
        )
        wall, n, _ = play(args, bench, pool, "ray")
        print(f"ray, local instance: {n / wall:.1f} sessions/s, {n / wall / local:.2f} of local")

        import ray
        from ray.cluster_utils import Cluster

        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        try:
            wall, n, _ = play(args, bench, pool, "ray", cluster.address)
            print(
                f"ray, two-node cluster: {n / wall:.1f} sessions/s, {n / wall / local:.2f} of local"
            )
        finally:
            ray.shutdown()
            cluster.shutdown()
    finally:
        pool.close()


if __name__ == "__main__":
    main()
