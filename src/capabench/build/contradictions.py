"""The no-contradiction validator: a request may leave things out, never state what its
hidden tests reject. Every example it shows (any form, any name) is replayed against the
composed reference, called by the hidden entry point as the example shows it, and must agree
exactly (value and type; floats within 1e-6, as the hidden tests compare). A `def` line must
name the function the tests call, take what they pass and hint the types they pass and get
back. Where a convention decides what a call shows, a call site that can't be read is
refused too: nobody could vouch for it."""

from __future__ import annotations

import ast
import math
import re
from typing import Any

from capabench.build.examples import find
from capabench.build.information import Decided
from capabench.build.replay import record_calls
from capabench.conventions import hidden_calls
from capabench.conventions.shape import Call, Shape
from capabench.judge.sandbox import SandboxPool
from capabench.records import Session

_HINTS: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "float": (float, int),
    "str": (str,),
    "bool": (bool,),
    "list": (list,),
    "List": (list,),
    "dict": (dict,),
    "Dict": (dict,),
    "tuple": (tuple,),
    "Tuple": (tuple,),
    "None": (type(None),),
}


def same(got: Any, expected: Any) -> bool:
    """The hidden tests' comparison: exact types all the way down, floats within 1e-6."""
    if type(got) is not type(expected):
        return False
    if isinstance(got, float):
        return (
            got == expected
            or abs(got - expected) <= 1e-6 * max(1.0, abs(expected))
            or (math.isnan(got) and math.isnan(expected))
        )
    if isinstance(got, list | tuple):
        return len(got) == len(expected) and all(
            same(g, e) for g, e in zip(got, expected, strict=True)
        )
    if isinstance(got, dict):
        return got.keys() == expected.keys() and all(same(got[k], expected[k]) for k in got)
    return got == expected


def _hint_types(node: ast.expr | None) -> tuple[type, ...] | None:
    """The types a plain annotation admits; None for one not checked (Optional, Any, ...)."""
    if node is None:
        return None
    base = node.value if isinstance(node, ast.Subscript) else node
    name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
    if isinstance(node, ast.Constant) and node.value is None:
        name = "None"
    return _HINTS.get(name or "")


def _def_lines(request: str) -> list[ast.FunctionDef]:
    found = []
    for m in re.finditer(r"\bdef\s+\w+\s*\(", request):
        line = request[m.start() :].split("\n", 1)[0].strip().rstrip("`.,;")
        src = line if line.endswith(":") else line + ":"
        try:
            node = ast.parse(src + "\n    pass\n").body[0]
        except SyntaxError:
            continue
        if isinstance(node, ast.FunctionDef):
            found.append(node)
    return found


def contradictions(session: Session, shape: Shape, pool: SandboxPool | None = None) -> list[str]:
    """What `session.request` states that its hidden tests reject; [] when nothing."""
    decided = Decided.of(session.slots)
    base, hidden = session.base_entry_point, session.entry_point
    where = session.id
    found = []
    if base != hidden and re.search(rf"(?<![\w.]){re.escape(base)}\b", session.request):
        found.append(f"{where}: names the function {base}; the tests call {hidden}")
    names = [hidden, base] if base != hidden else [hidden]
    examples, unread = find(session.request, names, shape.params, others=True)
    if decided.shape:
        found += [
            f"{where}: shows a call it can't vouch for ({u.why}): "
            f"{session.request[u.start : u.end][:60]!r}"
            for u in unread
        ]
    calls = hidden_calls(shape, {s.family: s.alternative for s in session.slots})
    defs = _def_lines(session.request)
    replay = [Call(e.args, e.kwargs) for e in examples] + (calls if defs else [])
    records = record_calls(session.reference, hidden, replay, pool) if replay else []
    if records is None:
        return [*found, f"{where}: the composed reference did not run on the request's examples"]
    for example, record in zip(examples, records, strict=False):
        shown = session.request[example.start : example.end].strip()[:80]
        if record.raised is not None:
            found.append(f"{where}: example {shown!r}: the reference raises {record.raised}")
        elif not same(record.returned, example.result):
            found.append(f"{where}: example {shown!r}: the reference returns {record.returned!r}")
    outcomes = records[len(examples) :]
    for fn in defs:
        found += _signature_problems(where, fn, hidden, decided, calls, outcomes)
    return found


def _signature_problems(where, fn, hidden, decided, calls, outcomes) -> list[str]:
    found = []
    if fn.name != hidden:
        found.append(f"{where}: shows def {fn.name}; the tests call {hidden}")
    if decided.call:
        found.append(f"{where}: shows a single call's signature; the tests call it in batches")
    params = fn.args.args
    for call in calls:
        if len(call.args) + len(call.kwargs) != len(params) and not (
            fn.args.vararg or fn.args.kwarg or fn.args.defaults
        ):
            found.append(
                f"{where}: def {fn.name} takes {len(params)}; the tests pass another count"
            )
            break
        for param, arg in zip(params, call.args, strict=False):
            admits = _hint_types(param.annotation)
            if admits is not None and type(arg) not in admits:
                found.append(
                    f"{where}: hints {param.arg}: {ast.unparse(param.annotation)}; "
                    f"the tests pass {type(arg).__name__}"
                )
                break
    admits = _hint_types(fn.returns)
    for record in outcomes:
        if admits is not None and record.raised is None and type(record.returned) not in admits:
            found.append(
                f"{where}: hints -> {ast.unparse(fn.returns)}; the tests expect "
                f"{type(record.returned).__name__}"
            )
            break
    return list(dict.fromkeys(found))
