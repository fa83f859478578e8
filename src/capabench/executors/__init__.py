"""Executors: where a run's jobs are played (`local`: threads or worker processes here;
`ray`: a Ray cluster), each one module registering its factory (`base.register`). The batch
layers (capabench.runner, capabench.swe.batch) hand an executor a worker recipe and the
pending jobs, and store what it streams back."""

from __future__ import annotations

from capabench.executors.base import (
    EXECUTORS,
    ClusterUnavailable,
    Executor,
    ExecutorError,
    Outcome,
    Worker,
    WorkerSpec,
    WorkerStartError,
    bug_last,
    register,
)


def make_executor(
    name: str = "local", *, processes: int = 1, address: str | None = None
) -> Executor:
    if name not in EXECUTORS:
        raise ValueError(f"unknown executor {name!r} (choose from {', '.join(EXECUTORS)})")
    return EXECUTORS[name](processes=processes, address=address)


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
    "register",
]
