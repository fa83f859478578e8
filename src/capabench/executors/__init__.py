"""Executors: where a run's jobs are played (`local`: threads or worker processes here;
`ray`: a Ray cluster). The batch layers (capabench.runner, capabench.swe.batch) hand an
executor a worker recipe and the pending jobs, and store what it streams back."""

from __future__ import annotations

from capabench.executors.base import (
    ClusterUnavailable,
    Executor,
    ExecutorError,
    Outcome,
    Worker,
    WorkerSpec,
    WorkerStartError,
    bug_last,
)

EXECUTORS = ("local", "ray")


def make_executor(
    name: str = "local", *, processes: int = 1, address: str | None = None
) -> Executor:
    if name == "local":
        from capabench.executors.local import LocalExecutor

        return LocalExecutor(processes)
    if name == "ray":
        from capabench.executors.ray_cluster import RayExecutor

        return RayExecutor(address)
    raise ValueError(f"unknown executor {name!r} (choose from {', '.join(EXECUTORS)})")


__all__ = [
    "EXECUTORS",
    "ClusterUnavailable",
    "Executor",
    "ExecutorError",
    "Outcome",
    "Worker",
    "WorkerSpec",
    "WorkerStartError",
    "bug_last",
    "make_executor",
]
