"""Spying on tasks: each task's reference run under the recorder against its own tests, and the
calls it makes read as the task's shape (what conventions it can carry). The builder lays
sessions on these shapes; the reference policies read them off each task."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from capabench.conventions import Shape
from capabench.conventions.pool import exclusion_reason
from capabench.judge import judge_recorded
from capabench.judge.sandbox import SandboxPool
from capabench.records import Task


def spy_tasks(tasks: list[Task], pool: SandboxPool) -> tuple[dict[str, Shape], dict[str, str]]:
    """Shapes of the tasks that can carry conventions, and why the others can't."""
    excluded = {t.id: reason for t in tasks if (reason := exclusion_reason(t))}
    eligible = [t for t in tasks if t.id not in excluded]
    with ThreadPoolExecutor(pool.size) as ex:
        spied = list(
            ex.map(
                lambda t: judge_recorded(t.reference_code, t.judge_tests, t.entry_point, pool=pool),
                eligible,
            )
        )
    shapes = {}
    for task, (verdict, calls) in zip(eligible, spied, strict=True):
        if not verdict.passed:
            excluded[task.id] = f"its reference fails its own tests: {verdict.detail[:120]}"
        elif not calls:
            excluded[task.id] = "its check makes no calls"
        else:
            shapes[task.id] = Shape.of(task, calls)
    return shapes, dict(sorted(excluded.items()))
