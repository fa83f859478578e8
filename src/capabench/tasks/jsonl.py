"""Custom tasks from JSONL: one object per line, HumanEval's field names or ours."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from capabench.records import Task

# HumanEval's names on the left, ours on the right; either spelling is accepted.
_ALIASES = {"task_id": "id", "canonical_solution": "reference_solution"}


class TaskFileError(ValueError):
    """A task file that can't be used; the message names the file, line and field."""


def _task(row: object, where: str) -> Task:
    if not isinstance(row, dict):
        raise TaskFileError(f"{where}: expected a JSON object, got {type(row).__name__}")
    fields = {_ALIASES.get(key, key): value for key, value in row.items()}
    fields.setdefault("source", "custom")
    try:
        return Task(**fields)
    except ValidationError as exc:
        problems = "; ".join(
            f"field '{'.'.join(str(p) for p in err['loc']) or '?'}': {err['msg']}"
            for err in exc.errors()
        )
        raise TaskFileError(f"{where}: {problems}") from None


def load_jsonl(path: str | Path) -> list[Task]:
    path = Path(path)
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise TaskFileError(
                    f"{where}: invalid JSON ({exc.msg} at column {exc.colno})"
                ) from None
            task = _task(row, where)
            if task.id in seen:
                raise TaskFileError(
                    f"{where}: field 'id': duplicate task id {task.id!r} (first on line {seen[task.id]})"
                )
            seen[task.id] = number
            tasks.append(task)
    if not tasks:
        raise TaskFileError(f"{path}: no tasks in the file")
    return tasks
