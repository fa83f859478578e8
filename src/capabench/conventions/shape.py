"""What a convention may assume about a task: its signature, and the calls its check makes."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from capabench.records import CallRecord, Task


@dataclass(frozen=True)
class Call:
    """One call the hidden tests make. Probes are calls a convention adds (bad input...)."""

    args: tuple
    kwargs: dict
    probe: bool = False


@dataclass(frozen=True)
class Shape:
    task: Task
    params: tuple[str, ...]  # positional parameter names of the entry point
    params_src: str  # the parameter list as written, annotations included
    calls: tuple[CallRecord, ...]  # what the original check does to the reference

    @classmethod
    def of(cls, task: Task, calls: list[CallRecord]) -> Shape:
        fn = entry_def(task)
        return cls(task, tuple(a.arg for a in fn.args.args), ast.unparse(fn.args), tuple(calls))

    @property
    def outputs(self) -> list[Any]:
        return [c.returned for c in self.calls if c.raised is None]

    def all_outputs(self, kind: type | tuple[type, ...]) -> bool:
        outs = self.outputs
        return bool(outs) and all(
            type(o) in (kind if isinstance(kind, tuple) else (kind,)) for o in outs
        )

    def first_args(self) -> list[Any]:
        return [c.args[0] for c in self.calls if c.args]

    def json_outputs(self) -> bool:
        try:
            json.dumps(self.outputs, allow_nan=False)
        except (TypeError, ValueError):
            return False
        return True

    def states(self, pattern: str) -> bool:
        """Whether the task's own description says something `pattern` finds: a family whose
        alternatives would override what the task states (its result's order, its letter
        case) can't apply, or the request would state what the hidden tests reject."""
        text = ast.get_docstring(entry_def(self.task)) or ""
        return re.search(pattern, text, re.IGNORECASE) is not None

    @property
    def simple_params(self) -> bool:
        """Only plain positional parameters, and every call passes them positionally."""
        fn = entry_def(self.task)
        plain = not (fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or fn.args.posonlyargs)
        return plain and all(len(c.args) == len(self.params) and not c.kwargs for c in self.calls)


def entry_def(task: Task) -> ast.FunctionDef:
    for node in ast.parse(task.reference_code).body:
        if isinstance(node, ast.FunctionDef) and node.name == task.entry_point:
            return node
    raise ValueError(f"{task.id}: no top-level def {task.entry_point}")
